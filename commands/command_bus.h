#pragma once
// The command bus of a cluster (docs/decisions.md, "A cluster on Kafka"): a command whose
// partition another node decides travels there as data through the commands topic
// (eventstore/command_channel.h), and its answer comes back the same way.
//
// - The asking side: the Writer hands a command of a partition it does not decide to Forward,
//   which encodes it (command_codec.h) and waits for the answer at most `wait`; no answer in time
//   is kUnavailable, and then the command was not decided (its deadline passed at the writer).
// - The deciding side: the writers' group hands every command record of a partition this node
//   decides to Deliver, which decodes it, drops it past its deadline, marks it with its offset
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
  CommandBus(Writer& writer, eventstore::CommandChannel& channel, core::IdSource& ids,
             std::chrono::milliseconds wait)
      : writer_(writer), channel_(channel), ids_(ids), wait_(wait) {}

  void Forward(uint32_t partition, Command command, CommandCallback done) override;
  void Deliver(eventstore::CommandRecord record);

 private:
  Writer& writer_;
  eventstore::CommandChannel& channel_;
  core::IdSource& ids_;
  std::chrono::milliseconds wait_;
};

}  // namespace svc::commands
