// /v1/audit-logs: the entries of the tenant's chain for the key's environment, oldest first, and
// /v1/audit-logs/verify: the chain recomputed from its first entry.
#include "api/audit/routes.h"

#include "api/http/cursor_list.h"
#include "api/http/pagination.h"
#include "api/http/problem.h"
#include "api/http/write_path.h"
#include "core/clock.h"
#include "core/crypto.h"
#include "core/ids.h"
#include "projections/audit/audit_projector.h"

namespace svc::api::audit {

namespace {

using AV = projections::AuditView;

std::string TeOf(const AuthContext& a) { return projections::TenantEnv(a.tenant_id, a.environment); }

// Reads of the log see every reveal answered before the request arrived: `serve` runs once the
// audit projection has applied the tenant's partition of the log as it stood then (or after
// kReadYourWrites, with what there is), on the projections' waiter thread.
void WhenCaughtUp(Runtime& rt, ApiCall& call, Respond respond, std::function<void(ApiCall&, Respond)> serve) {
  auto ends = rt.log().EndOffsets();
  if (!ends.ok()) return respond(StatusToProblem(*call.request, ends.status()));
  const uint32_t partition = rt.log().PartitionFor(call.auth.tenant_id);
  std::vector<eventstore::LogPosition> last;
  if (partition < ends->size() && (*ends)[partition] > 0) last.push_back({partition, (*ends)[partition] - 1});
  struct Held {
    HttpRequest request;
    ApiCall call;
  };
  auto held = std::make_shared<Held>(Held{*call.request, call});
  held->call.request = &held->request;
  rt.projections().WhenApplied(std::move(last), {AV::kName}, kReadYourWrites,
                               [held, respond = std::move(respond), serve = std::move(serve)](bool) mutable {
                                 serve(held->call, std::move(respond));
                               });
}

void List(Runtime& rt, const PublicApiOptions& o, ApiCall& call, Respond respond) {
  HttpRequest& req = *call.request;
  const AuthContext& a = call.auth;
  auto query = ParseQuery(req.query);
  CursorList list;
  list.filters = {"actorId", "actorType", "channel", "createdGte", "createdLte", "personId", "format"};
  std::string person, actor, actor_type, channel;
  auto text = [&](const char* name, std::string& slot, size_t max) {
    auto it = query.find(name);
    if (it == query.end()) return;
    slot = it->second;
    if (slot.empty() || slot.size() > max) {
      list.errors.push_back({name, "", "invalid_format", std::string(name) + " must be 1-" + std::to_string(max) + " characters"});
    }
  };
  text("actorId", actor, 64);
  text("actorType", actor_type, 32);
  text("channel", channel, 32);
  if (auto it = query.find("personId"); it != query.end()) {
    person = it->second;
    if (!core::ValidateId(core::IdKind::kPerson, person).ok()) {
      list.errors.push_back({"personId", "", "invalid_id", "personId must be per_<32 lowercase hex>"});
    }
  }
  const CreatedWindow created = CreatedWindow::Parse(query, "createdGte", "createdLte", list.errors);
  if (auto it = query.find("format"); it != query.end() && it->second != "json") {
    list.errors.push_back({"format", "", "invalid_enum", "format must be json"});
  }
  const std::string te = TeOf(a);
  list.scope = "audit|" + te + "|" + person + "|" + actor + "|" + actor_type + "|" + channel + "|" + created.Text();
  // The narrowest index: a person's entries, an actor's, or the whole chain (in id order).
  if (!person.empty()) {
    list.index = AV::Abs(AV::ByPerson(te, person));
  } else if (!actor.empty()) {
    list.index = AV::Abs(AV::ByActor(te, actor));
  } else {
    list.index = AV::Abs(AV::Entries(te));
  }
  list.row_key = [te](std::string_view entry) {
    auto id = AV::IdOfKey(entry);
    return AV::Abs(AV::Entry(te, id.value_or(0)));
  };
  const bool actor_on_row = !person.empty() && !actor.empty();
  if (actor_on_row || !actor_type.empty() || !channel.empty() || created.Any()) {
    list.accept = [actor_on_row, actor, actor_type, channel, created](const core::Json& row) {
      if (actor_on_row && core::StringOr(row, "actorId") != actor) return false;
      if (!actor_type.empty() && core::StringOr(row, "actorType") != actor_type) return false;
      if (!channel.empty() && core::StringOr(row, "channel") != channel) return false;
      return created.Contains(row);
    };
  }
  ServeCursorList(rt, o, call, list, std::move(respond));
}

// Walks the chain from entry 1: each entry's id follows the previous one, its prevHash is the
// previous hash, and its hash is recomputed. brokenAt: the first id where any of that fails
// (for a missing entry, the id that should have been there).
void Verify(Runtime& rt, ApiCall& call, Respond respond) {
  HttpRequest& req = *call.request;
  const std::string te = TeOf(call.auth);
  const std::string prefix = AV::Abs(AV::Entries(te));
  auto it = rt.store().NewIterator(rt.store().Cf(projections::kViewsCf), prefix, eventstore::PrefixEnd(prefix));
  int64_t count = 0;
  int64_t expected = 1;
  std::optional<int64_t> broken;
  std::string prev(32, '\0');
  for (it->Seek(prefix); it->Valid(); it->Next()) {
    ++count;
    if (broken.has_value()) continue;
    auto id = AV::IdOfKey(it->key().substr(prefix.size()));
    core::Json row = core::ParseJsonOrDiscarded(it->value());
    if (!id.has_value() || *id != expected || !row.is_object() || row.value("id", core::Json()) != *id) {
      broken = expected;
      continue;
    }
    std::string hash = core::StringOr(row, "hash");
    std::string prev_hex = core::StringOr(row, "prevHash");
    row.erase("hash");
    row.erase("prevHash");
    auto recomputed = projections::ChainHash(prev, row);
    if (prev_hex != core::HexEncode(prev) || !recomputed.ok() || *recomputed != hash) {
      broken = *id;
      continue;
    }
    auto raw = core::HexDecode(hash);
    if (!raw.ok()) {
      broken = *id;
      continue;
    }
    prev = std::move(*raw);
    ++expected;
  }
  if (auto st = it->status(); !st.ok()) return respond(StatusToProblem(req, st));
  respond(JsonResponse(200, {{"object", "audit_chain_verification"},
                             {"valid", !broken.has_value()},
                             {"count", count},
                             {"brokenAt", broken.has_value() ? core::Json(*broken) : core::Json(nullptr)}}));
}

}  // namespace

std::vector<ApiRoute> AuditRoutes(Runtime* rt, const PublicApiOptions& options) {
  auto* r = rt;
  const auto* o = &options;
  const std::string tag = "Compliance";
  std::vector<QueryParam> list_query = {
      {"actorId", {{"type", "string"}}, "only the entries of this actor (an API key id or a client token id)"},
      {"actorType", {{"type", "string"}}, "only the entries of this kind of actor: `api_key` or `client_token`"},
      {"channel", {{"type", "string"}}, "only the entries of this channel: `decrypt`, `batch_decrypt`, `expand`, "
                                        "`client_token`, `integrity`, `export` or `reauth`"},
      {"createdGte", {{"type", "string"}, {"format", "date-time"}}, "entries at or after this time"},
      {"createdLte", {{"type", "string"}, {"format", "date-time"}}, "entries at or before this time"},
      {"personId", {{"type", "string"}, {"pattern", "^per_[0-9a-f]{32}$"}}, "only the entries about this person"},
      {"format", {{"type", "string"}, {"enum", {"json"}}}, "`json` (the default)"}};
  for (auto& q : PageParams()) list_query.push_back(q);
  std::vector<ApiRoute> routes;
  routes.push_back(ApiRoute{
      .method = "GET", .path = "/v1/audit-logs", .operation_id = "listAuditLogs", .tag = tag,
      .summary = "List the access log's entries, oldest first",
      .description = "Every reveal of personal data (decrypt, batch decrypt — one entry per person —, an "
                     "expanded read, a client token's use, integrity, export, reauth) is an entry of the "
                     "tenant's hash-chained log for the key's environment: who, through which channel, "
                     "which fields, the purpose and reason, never a value. Entries are in id order, so "
                     "pages do not shift as the log grows. Each entry carries `prevHash` and `hash` "
                     "(SHA-256 of the previous hash and the RFC 8785 form of the entry without those two "
                     "members) and `eventId`, the access event it records.",
      .scope = "compliance:read", .query = list_query, .response_schema = "AuditLogEntryList",
      .error_codes = {"INVALID_ID", "VALIDATION_ERROR", "BAD_REQUEST", "INVALID_CURSOR", "LIMIT_OUT_OF_RANGE"},
      .handler = [r, o](ApiCall& c, Respond respond) {
        WhenCaughtUp(*r, c, std::move(respond), [r, o](ApiCall& held, Respond then) { List(*r, *o, held, std::move(then)); });
      }});
  routes.push_back(ApiRoute{
      .method = "GET", .path = "/v1/audit-logs/verify", .operation_id = "verifyAuditLogs", .tag = tag,
      .summary = "Recompute the access log's hash chain",
      .description = "Walks the chain of the key's environment from its first entry and recomputes every "
                     "hash. `brokenAt` is the first entry whose id, previous hash or hash does not follow "
                     "(an edited, inserted or removed entry).",
      .scope = "compliance:read", .response_schema = "AuditChainVerification",
      .handler = [r](ApiCall& c, Respond respond) {
        WhenCaughtUp(*r, c, std::move(respond), [r](ApiCall& held, Respond then) { Verify(*r, held, std::move(then)); });
      }});
  return routes;
}

}  // namespace svc::api::audit
