#pragma once
// The verification read model's keys (prefix "verification/"): what happened inside sessions,
// for VerificationProjector and its readers (evidence, report, certificate, the pipeline, the
// progress stream, the upload route).
//
//   settings/<ten>/<env>/<vrf>                    checks and policy given at create
//   media/<ten>/<env>/<vrf>/<capture seq 4B BE>   one capture (MediaCaptured, + capturedAt)
//   mediaof/<ten>/<env>/<med>                     the session of a capture (its id)
//   chal/<ten>/<env>/<vrf>/<challenge>            an issued liveness challenge
//   chalused/<ten>/<env>/<vrf>/<challenge>        the capture that answered it
//   sub/<ten>/<env>/<vrf>                         the latest submission
//   stage/<ten>/<env>/<vrf>/<trk>/<stage>         one stage result of a submission
//   verdict/<ten>/<env>/<vrf>                     the latest verdict (report included)
//   pending/<ten>/<env>/<vrf>                     submissions the pipeline has not decided yet
//   sse/<ten>/<env>/<vrf>/<partition 4B BE><offset 8B BE>  progress-stream entries, log order
//
// `te` is "<ten>/<env>" (TenantEnv). None of these rows holds plaintext personal data.

#include <cstdint>
#include <string>
#include <string_view>

#include "eventstore/envelope.h"
#include "eventstore/kv_store.h"
#include "projections/view_key.h"

namespace svc::projections {

struct VerificationView {
  static constexpr std::string_view kName = "verification";

  static std::string Settings(std::string_view te, std::string_view id) { return Key("settings/", te, id); }
  static std::string Media(std::string_view te, std::string_view id) { return Key("media/", te, id) + "/"; }
  static std::string MediaAt(std::string_view te, std::string_view id, uint32_t seq) {
    std::string k = Media(te, id);
    eventstore::PutFixed32BE(k, seq);
    return k;
  }
  // The session a capture belongs to (its id), by the capture's id.
  static std::string MediaOwner(std::string_view te, std::string_view media_id) { return Key("mediaof/", te, media_id); }
  static std::string Challenge(std::string_view te, std::string_view id, std::string_view challenge) {
    return Key("chal/", te, id) + "/" + std::string(challenge);
  }
  static std::string ChallengeUsed(std::string_view te, std::string_view id, std::string_view challenge) {
    return Key("chalused/", te, id) + "/" + std::string(challenge);
  }
  static std::string Submission(std::string_view te, std::string_view id) { return Key("sub/", te, id); }
  static std::string Stages(std::string_view te, std::string_view id, std::string_view tracking) {
    return Key("stage/", te, id) + "/" + std::string(tracking) + "/";
  }
  static std::string Stage(std::string_view te, std::string_view id, std::string_view tracking,
                           std::string_view stage) {
    return Stages(te, id, tracking) + std::string(stage);
  }
  static std::string Verdict(std::string_view te, std::string_view id) { return Key("verdict/", te, id); }
  static std::string PendingAll() { return "pending/"; }
  static std::string Pending(std::string_view te, std::string_view id) { return Key("pending/", te, id); }
  static std::string Stream(std::string_view te, std::string_view id) { return Key("sse/", te, id) + "/"; }
  static std::string StreamAt(std::string_view te, std::string_view id, const eventstore::LogPosition& p) {
    std::string k = Stream(te, id);
    eventstore::PutFixed32BE(k, p.partition);
    eventstore::PutFixed64BE(k, p.offset);
    return k;
  }

  static std::string Abs(std::string_view relative) { return AbsoluteKey(kName, relative); }

 private:
  static std::string Key(std::string_view kind, std::string_view te, std::string_view rest) {
    return ScopedKey(kind, te, rest);
  }
};

}  // namespace svc::projections
