#pragma once
// The ARCO requests' read model (prefix "arco/"), for ArcoProjector and its readers (the ARCO
// routes, the deadline timer, the compliance reports).
//
//   req/<ten>/<env>/<arc>                            the request (ArcoRequest, as served, without
//                                                    `overdue`, which is computed when read)
//   idx/<ten>/<env>/all/<inverted 8B><arc>           requests, newest received first
//   idx/<ten>/<env>/st/<status>/<inverted 8B><arc>   by status
//   idx/<ten>/<env>/sub/<per|cmm|ubo>/<inverted 8B><arc>  by subject
//   dl/<due micros 8B BE>/<ten>/<env>/<arc>          = <deadline>[:warned]: the request's open
//                                                    deadline (response, effect or information),
//                                                    the timer's queue; ":warned" once its approach
//                                                    was warned; gone once met, moved or missed
//   ful/<ten>/<env>/<arc>/<evt>                      {operation, reference, subjectId}: an operation
//                                                    that named the request (its event <evt>), to be
//                                                    recorded on it (the ARCO manager's queue); gone
//                                                    once recorded or refused
//
// `te` is "<ten>/<env>" (TenantEnv).

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "eventstore/kv_store.h"
#include "projections/view_key.h"

namespace svc::projections {

struct ArcoView {
  static constexpr std::string_view kName = "arco";
  static constexpr size_t kOrderBytes = 8;

  static std::string Request(std::string_view te, std::string_view arc) { return ScopedKey("req/", te, arc); }
  static std::string Requests(std::string_view te) { return ScopedKey("req/", te, ""); }
  static std::string All(std::string_view te) { return ScopedKey("idx/", te, "all/"); }
  static std::string ByStatus(std::string_view te, std::string_view status) {
    return ScopedKey("idx/", te, "st/") + std::string(status) + "/";
  }
  static std::string BySubject(std::string_view te, std::string_view subject) {
    return ScopedKey("idx/", te, "sub/") + std::string(subject) + "/";
  }
  static std::string Order(int64_t micros, std::string_view arc) {
    std::string k;
    eventstore::PutFixed64BE(k, static_cast<uint64_t>(INT64_MAX - micros));
    return k + std::string(arc);
  }
  static std::string_view IdOfEntry(std::string_view entry) { return entry.substr(kOrderBytes); }
  static std::string FulfilmentPrefix() { return "ful/"; }
  static std::string Fulfilment(std::string_view te, std::string_view arc, std::string_view evt) {
    return ScopedKey("ful/", te, arc) + "/" + std::string(evt);
  }
  static std::string DeadlinePrefix() { return "dl/"; }
  static std::string Deadline(int64_t micros, std::string_view te, std::string_view arc) {
    return TimedKey(DeadlinePrefix(), std::max<int64_t>(0, micros), te, arc);
  }
  static std::optional<TimedEntry> ParseDeadline(std::string_view rest) { return ParseTimedKey(rest); }

  static std::string Abs(std::string_view relative) { return AbsoluteKey(kName, relative); }
};

}  // namespace svc::projections
