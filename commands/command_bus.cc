#include "commands/command_bus.h"

#include "commands/command_codec.h"
#include "core/json.h"
#include "core/log.h"

namespace svc::commands {

void CommandBus::Forward(uint32_t partition, Command command, CommandCallback done) {
  auto wire = EncodeCommand(command);
  if (!wire.ok()) {
    // Only process managers make commands that are not data, and they act for the partitions
    // their node writes: this one moved away meanwhile. Its new owner does the work; retry.
    core::LogWarn("a command that cannot travel to its writer", {{"error", wire.status().ToString()}});
    done(core::Unavailable("the command's partition is written by another node; retry", "SERVICE_UNAVAILABLE"));
    return;
  }
  channel_.Send(partition, core::DumpJson(*wire), wait_, [done = std::move(done)](core::Result<std::string> answer) {
    if (!answer.ok()) return done(answer.status());
    auto reply = DecodeReply(core::ParseJsonOrDiscarded(*answer));
    if (!reply.ok()) return done(core::Internal("the writer's answer is unreadable: " + reply.status().message()));
    done(std::move(*reply));
  });
}

void CommandBus::Deliver(eventstore::CommandRecord record) {
  // Both on this node's clock (CommandRecord::deadline_micros).
  if (core::SystemClock().Now().micros > record.deadline_micros) return;  // the asker answered 503 already
  auto command = DecodeCommand(core::ParseJsonOrDiscarded(record.payload),
                               [this](std::string_view name) { return writer_.Type(name); }, &ids_);
  if (!command.ok()) {
    core::LogError("a command from another node could not be decoded",
                   {{"partition", record.partition}, {"offset", record.offset}, {"error", command.status().ToString()}});
    channel_.Reply(record, core::DumpJson(EncodeReply(core::Internal("the writer could not read the command"))));
    return;
  }
  command->bus_offset = record.offset;
  command->context.now = clock_.Now();  // decided on this node's time, not the asker's
  command->answer_by_micros = record.deadline_micros;  // still queued past it: not decided
  const uint32_t partition = record.partition;
  writer_.Execute(std::move(*command), [this, record = std::move(record), partition](core::Result<CommandOutcome> r) {
    // Turned away because the partition moved on: its next writer reads the record again.
    if (!r.ok() && !writer_.IsDeciding(partition)) return;
    channel_.Reply(record, core::DumpJson(EncodeReply(r)));
  });
}

}  // namespace svc::commands
