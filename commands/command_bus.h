#pragma once
// The command bus of a cluster (docs/decisions.md, "A cluster on Kafka"): a command whose
// partition another node decides travels there as data through the commands topic
// (eventstore/command_channel.h), and its answer comes back the same way.
//
// - The asking side: the Writer hands a command of a partition it does not decide to Forward,
//   which encodes it (command_codec.h) and waits for the answer at most `wait`; no answer in time
//   is kUnavailable, the outcome unknown (eventstore/command_channel.h: the writer decides it
//   within the wait counted on its own clock, so a writer that read it late may still decide it).
// - The deciding side: the writers' group hands every command record of a partition this node
//   decides to Deliver, which decodes it, drops it past its deadline, stamps it with this node's
//   time (event times and claim times in a partition come from its writer's clock, never from
//   the asker's: two nodes' clocks are never compared, issue 67), marks it with its offset
//   (its events record it, so a new owner resumes after it: decided once) and executes it; the
//   answer goes back to the asker. A command the writer turned away because the partition just
//   moved gets no answer here: the partition's next writer reads the record again.

#include <chrono>

#include "commands/writer.h"
#include "core/clock.h"
#include "core/ids.h"
#include "eventstore/command_channel.h"

namespace svc::commands {

class CommandBus final : public CommandForwarder {
 public:
  CommandBus(Writer& writer, eventstore::CommandChannel& channel, core::IdSource& ids, const core::Clock& clock,
             std::chrono::milliseconds wait)
      : writer_(writer), channel_(channel), ids_(ids), clock_(clock), wait_(wait) {}

  void Forward(uint32_t partition, Command command, CommandCallback done) override;
  void Deliver(eventstore::CommandRecord record);

 private:
  Writer& writer_;
  eventstore::CommandChannel& channel_;
  core::IdSource& ids_;
  const core::Clock& clock_;
  std::chrono::milliseconds wait_;
};

}  // namespace svc::commands
