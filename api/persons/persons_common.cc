#include "api/persons/persons_common.h"

#include "api/http/catch_up.h"
#include "api/http/write_path.h"
#include "pipeline/persons/pii.h"
#include "projections/persons/persons_queries.h"
#include "projections/persons/persons_view.h"
#include "projections/projector.h"
#include "projections/sessions_view.h"
#include "projections/verification_view.h"

namespace svc::api::persons {

using PV = projections::PersonsView;
using SV = projections::SessionsView;
using VV = projections::VerificationView;

std::string TeOf(const AuthContext& a) { return projections::TenantEnv(a.tenant_id, a.environment); }

pipeline::persons::PersonRef RefOf(const AuthContext& a, const std::string& person) {
  return {a.tenant_id, a.environment, person};
}

core::Result<core::Json> PersonRow(Runtime& rt, const AuthContext& a, const std::string& id) {
  SVC_RETURN_IF_ERROR(core::ValidateId(core::IdKind::kPerson, id));
  SVC_ASSIGN_OR_RETURN(auto row, ReadViewCaughtUp(rt, a.tenant_id, PV::Abs(PV::Record(TeOf(a), id))));
  if (!row.has_value()) return core::NotFound("no such person", "PERSON_NOT_FOUND");
  return std::move(*row);
}

core::Result<core::Json> UnpurgedPersonRow(Runtime& rt, const AuthContext& a, const std::string& id) {
  SVC_ASSIGN_OR_RETURN(core::Json row, PersonRow(rt, a, id));
  if (core::StringOr(row, "status") == "redacted") return core::FailedPrecondition("the person was erased", "PERSON_PURGED");
  return row;
}

core::Result<core::Json> ActivePersonRow(Runtime& rt, const AuthContext& a, const std::string& id) {
  SVC_ASSIGN_OR_RETURN(core::Json row, PersonRow(rt, a, id));
  SVC_RETURN_IF_ERROR(pipeline::persons::CheckActive(row));
  return row;
}

std::vector<std::string> StringList(Validator& v, const core::Json& body, const char* name, size_t max) {
  std::vector<std::string> out;
  v.Skip(name);
  auto it = body.find(name);
  if (it == body.end() || it->is_null()) {
    v.Add({name, std::string("/") + name, "required", std::string(name) + " is required"});
    return out;
  }
  bool ok = it->is_array() && !it->empty() && it->size() <= max;
  if (ok) {
    for (const auto& item : *it) {
      ok &= item.is_string() && !item.get<std::string>().empty();
      if (ok && std::find(out.begin(), out.end(), item.get<std::string>()) == out.end()) out.push_back(item.get<std::string>());
    }
  }
  if (!ok) {
    v.Add({name, std::string("/") + name, "invalid_type",
           std::string(name) + " must be an array of 1-" + std::to_string(max) + " non-empty strings"});
  }
  return out;
}

void ParsePiiInput(const core::Json& pii, bool allow_null, core::mx::CivilDate today,
                   pipeline::persons::PiiWrite& out, std::vector<FieldError>& errors, bool* unknown) {
  for (auto it = pii.begin(); it != pii.end(); ++it) {
    const std::string& name = it.key();
    const std::string field = "pii." + name;
    const std::string ptr = "/pii/" + JsonPointerEscape(name);
    if (pipeline::persons::FindPiiField(name) == nullptr) {
      *unknown = true;
      continue;
    }
    if (it->is_null()) {
      if (allow_null) {
        out.cleared.push_back(name);
      }  // on create, null is the same as absent
      continue;
    }
    if (!it->is_string()) {
      errors.push_back({field, ptr, "invalid_type", field + " must be a string" +
                                                         std::string(allow_null ? " or null" : "")});
      continue;
    }
    auto normalised = pipeline::persons::NormalisePii(name, it->get<std::string>(), today);
    if (!normalised.ok()) {
      errors.push_back({field, ptr, "invalid_format", normalised.status().message()});
      continue;
    }
    out.values[name] = std::move(normalised).value();
  }
}

core::Result<std::vector<std::string>> CurpHolders(Runtime& rt, const AuthContext& a, const std::string& blind_key) {
  SVC_ASSIGN_OR_RETURN(auto list, rt.store().Get(rt.store().Cf(projections::kViewsCf),
                                                 PV::Abs(PV::CurpHolder(TeOf(a), blind_key))));
  return PV::SplitIds(list.value_or(""));
}

core::Result<std::vector<std::string>> IdsWithBlindKey(Runtime& rt, const AuthContext& a, const std::string& blind_key) {
  return projections::PersonsWithBlindKey(rt.store(), TeOf(a), blind_key);
}

core::Result<core::Json> PersonSessions(Runtime& rt, const AuthContext& a, const std::string& id) {
  const std::string te = TeOf(a);
  const int cf = rt.store().Cf(projections::kViewsCf);
  const std::string prefix = PV::Abs(PV::Sessions(te, id));
  core::Json out = core::Json::array();
  auto it = rt.store().NewIterator(cf, prefix, eventstore::PrefixEnd(prefix));
  for (it->Seek(prefix); it->Valid(); it->Next()) {
    SVC_ASSIGN_OR_RETURN(auto rec, ReadView(rt, SV::Abs(SV::Record(te, it->value()))));
    if (rec.has_value()) out.push_back(std::move(*rec));
  }
  SVC_RETURN_IF_ERROR(it->status());
  return out;
}

core::Result<core::Json> PersonMedia(Runtime& rt, const AuthContext& a, const std::string& id) {
  SVC_ASSIGN_OR_RETURN(core::Json sessions, PersonSessions(rt, a, id));
  const std::string te = TeOf(a);
  const int cf = rt.store().Cf(projections::kViewsCf);
  const int64_t now = rt.clock().Now().micros;
  // A hold in force (whole person, or one capture): until released, or until its time.
  auto held = [&](const std::string& asset) -> core::Result<bool> {
    SVC_ASSIGN_OR_RETURN(auto until, rt.store().Get(cf, PV::Abs(PV::Hold(te, id, asset))));
    if (!until.has_value()) return false;
    const int64_t t = std::stoll(*until);
    return t == 0 || t > now;
  };
  SVC_ASSIGN_OR_RETURN(bool person_held, held(""));
  std::vector<core::Json> items;
  for (const auto& session : sessions) {
    const std::string sid = core::StringOr(session, "id");
    const std::string prefix = VV::Abs(VV::Media(te, sid));
    auto it = rt.store().NewIterator(cf, prefix, eventstore::PrefixEnd(prefix));
    for (it->Seek(prefix); it->Valid(); it->Next()) {
      core::Json m = core::ParseJsonOrDiscarded(it->value());
      SVC_ASSIGN_OR_RETURN(bool asset_held, held(core::StringOr(m, "mediaId")));
      items.push_back({{"id", core::StringOr(m, "mediaId")},
                       {"object", "person.document"},
                       {"sessionId", sid},
                       {"kind", core::StringOr(m, "kind")},
                       {"mime", core::StringOr(m, "mime")},
                       {"sizeBytes", m.value("sizeBytes", 0)},
                       {"sha256", core::StringOr(m, "sha256")},
                       {"capturedAt", core::StringOr(m, "capturedAt")},
                       {"legalHold", person_held || asset_held},
                       {"purgedAt", m.value("purgedAt", core::Json(nullptr))}});
    }
    SVC_RETURN_IF_ERROR(it->status());
  }
  std::stable_sort(items.begin(), items.end(), [](const core::Json& x, const core::Json& y) {
    return core::StringOr(x, "capturedAt") > core::StringOr(y, "capturedAt");
  });
  core::Json out = core::Json::array();
  for (auto& i : items) out.push_back(std::move(i));
  return out;
}

}  // namespace svc::api::persons
