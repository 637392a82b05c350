#pragma once
// What every decider shares: its state's snapshot is the state's field list
// (core/json_fields.h), encoded and decoded. A decider derives from
// FieldSnapshots<Decider, State> and declares its kName, Decide and Evolve. (Extracted at the
// seventeenth decider: each wrote the same ToJson and FromJson.)

#include <string_view>

#include "commands/event_codec.h"
#include "core/json.h"
#include "core/json_fields.h"
#include "core/status.h"

namespace svc::commands {

template <class Decider, class S>
struct FieldSnapshots {
  using State = S;
  static core::Json ToJson(const S& s) { return core::EncodeFields(s); }
  // DataLoss when the snapshot is not an object (the message names the aggregate).
  static core::Result<S> FromJson(std::string_view text) { return DecodeSnapshot<S>(text, Decider::kName); }
};

}  // namespace svc::commands
