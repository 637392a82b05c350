// /v1/audit-logs: the entries of the tenant's chain for the key's environment, oldest first, and
// /v1/audit-logs/verify: the chain recomputed from its first entry.
#include "api/audit/routes.h"

#include <algorithm>
#include <atomic>

#include "api/http/cursor_list.h"
#include "api/http/pagination.h"
#include "api/http/problem.h"
#include "api/http/write_path.h"
#include "core/clock.h"
#include "core/crypto.h"
#include "core/ids.h"
#include "core/merkle.h"
#include "commands/audit/timestamps.h"
#include "api/http/reveal.h"
#include "pipeline/persons/vault_keys.h"
#include "pipeline/audit/checkpoints.h"
#include "pipeline/audit/history.h"
#include "projections/audit/as_of.h"
#include "pipeline/audit/timestamper.h"
#include "projections/audit/audit_reads.h"
#include "projections/audit/audit_projector.h"

namespace svc::api::audit {

namespace {

using AV = projections::AuditView;

std::string TeOf(const AuthContext& a) { return projections::TenantEnv(a.tenant_id, a.environment); }

// One CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break. A value a
// spreadsheet would run as a formula (=, +, -, @, tab, CR first) is prefixed with ' (the caller's
// reason is free text).
void CsvField(std::string& out, const std::string& v) {
  std::string value = v;
  if (!value.empty() && std::string_view("=+-@\t\r").find(value[0]) != std::string_view::npos) value.insert(0, "'");
  if (value.find_first_of(",\"\r\n") == std::string::npos) {
    out += value;
    return;
  }
  out += '"';
  for (char c : value) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
}

constexpr const char* kCsvColumns[] = {"id",      "createdAt", "personId",  "applicationId", "actorType",
                                       "actorId", "channel",   "fields",    "redaction",     "purpose",
                                       "reason",  "requestId", "eventId",   "caseId",        "prevHash",
                                       "hash"};

std::string CsvLine(const core::Json& row) {
  std::string line;
  bool first = true;
  for (const char* column : kCsvColumns) {
    if (!first) line += ',';
    first = false;
    auto it = row.find(column);
    if (it == row.end() || it->is_null()) continue;
    if (it->is_string()) {
      CsvField(line, it->get<std::string>());
    } else if (it->is_array()) {
      std::string joined;
      for (const auto& f : *it) joined += (joined.empty() ? "" : ";") + (f.is_string() ? f.get<std::string>() : f.dump());
      CsvField(line, joined);
    } else {
      line += it->dump();
    }
  }
  return line + "\r\n";
}

// format=csv: every entry the filters keep, oldest first, written in chunks as the client reads
// (no paging: a spreadsheet wants the whole log). Each chunk reads the next few hundred index
// entries with a fresh iterator, so nothing is held between chunks.
class CsvStream final : public ResponseStream {
 public:
  CsvStream(const eventstore::KvStore& store, CursorList list) : store_(store), list_(std::move(list)) {}

  void Next(std::function<void(std::optional<std::string>)> deliver) override {
    if (done_) return deliver(std::nullopt);
    std::string chunk;
    if (!header_sent_) {
      header_sent_ = true;
      bool first = true;
      for (const char* column : kCsvColumns) {
        chunk += (first ? "" : ",") + std::string(column);
        first = false;
      }
      chunk += "\r\n";
    }
    const int cf = store_.Cf(projections::kViewsCf);
    // Batches of index entries until there is something to write (an empty chunk would end the
    // chunked body) or the index ends.
    while (chunk.empty() && !done_) {
      auto it = store_.NewIterator(cf, list_.index, eventstore::PrefixEnd(list_.index));
      it->Seek(last_.empty() ? list_.index : last_ + std::string(1, '\0'));
      int taken = 0;
      for (; it->Valid() && taken < 500; it->Next(), ++taken) {
        std::string key(it->key());
        last_ = key;
        auto row = store_.Get(cf, list_.row_key(std::string_view(key).substr(list_.index.size())));
        if (!row.ok() || !row->has_value()) continue;
        core::Json entry = core::ParseJsonOrDiscarded(**row);
        if (list_.accept && !list_.accept(entry)) continue;
        chunk += CsvLine(list_.render ? core::ParseJsonOrDiscarded(list_.render(**row)) : entry);
      }
      if (!it->Valid()) done_ = true;
    }
    if (chunk.empty()) return deliver(std::nullopt);
    deliver(std::move(chunk));
  }
  void Finish() override { done_ = true; }

 private:
  const eventstore::KvStore& store_;
  CursorList list_;
  std::string last_;  // the last index key read
  bool header_sent_ = false;
  std::atomic<bool> done_{false};
};

void ServeCsv(Runtime& rt, const HttpRequest& req, const std::map<std::string, std::string>& query,
              const CursorList& list, Respond respond) {
  for (const auto& [name, value] : query) {
    if (std::find(list.filters.begin(), list.filters.end(), name) == list.filters.end()) {
      return respond(Problem(req, "BAD_REQUEST",
                             name == "limit" || name == "startingAfter" || name == "endingBefore" || name == "includeTotal"
                                 ? "format=csv streams every entry the filters keep: no paging parameters"
                                 : "unknown query parameter " + name));
    }
  }
  if (!list.errors.empty()) return respond(ValidationProblem(req, list.errors));
  HttpResponse r;
  r.content_type = "text/csv; charset=utf-8";
  r.headers.emplace_back("Content-Disposition", "attachment; filename=\"audit-log.csv\"");
  r.stream = std::make_shared<CsvStream>(rt.store(), list);
  respond(std::move(r));
}

// The filters of the access log's list (each a field error when malformed).
struct AuditFilter {
  std::string person, actor, actor_type, channel, case_id;
  CreatedWindow created;
  bool csv = false;
};
AuditFilter ParseAuditFilter(const std::map<std::string, std::string>& query, std::vector<FieldError>& errors) {
  AuditFilter f;
  auto text = [&](const char* name, std::string& slot, size_t max) {
    auto it = query.find(name);
    if (it == query.end()) return;
    slot = it->second;
    if (slot.empty() || slot.size() > max) {
      errors.push_back({name, "", "invalid_format", std::string(name) + " must be 1-" + std::to_string(max) + " characters"});
    }
  };
  text("actorId", f.actor, 64);
  text("actorType", f.actor_type, 32);
  text("channel", f.channel, 32);
  if (auto it = query.find("personId"); it != query.end()) {
    f.person = it->second;
    if (!core::ValidateId(core::IdKind::kPerson, f.person).ok()) {
      errors.push_back({"personId", "", "invalid_id", "personId must be per_<32 lowercase hex>"});
    }
  }
  if (auto it = query.find("caseId"); it != query.end()) {
    f.case_id = it->second;
    if (!core::ValidateId(core::IdKind::kCase, f.case_id).ok()) {
      errors.push_back({"caseId", "", "invalid_id", "caseId must be cas_<32 lowercase hex>"});
    }
  }
  f.created = CreatedWindow::Parse(query, "createdGte", "createdLte", errors);
  if (auto it = query.find("format"); it != query.end()) {
    f.csv = it->second == "csv";
    if (!f.csv && it->second != "json") errors.push_back({"format", "", "invalid_enum", "format must be json or csv"});
  }
  return f;
}

// The list the filter keeps: on the narrowest index (a person's entries, an actor's, or the whole
// chain, in id order), the other filters checked on each row.
void NarrowAuditList(const std::string& te, const AuditFilter& f, CursorList& list) {
  list.scope = "audit|" + te + "|" + f.person + "|" + f.actor + "|" + f.actor_type + "|" + f.channel + "|" + f.case_id +
               "|" + f.created.Text();
  list.index = !f.case_id.empty() ? AV::Abs(AV::ByCase(te, f.case_id))
               : !f.person.empty() ? AV::Abs(AV::ByPerson(te, f.person))
               : !f.actor.empty()  ? AV::Abs(AV::ByActor(te, f.actor))
                                   : AV::Abs(AV::Entries(te));
  list.row_key = [te](std::string_view entry) { return AV::Abs(AV::Entry(te, AV::IdOfKey(entry).value_or(0))); };
  const bool person_on_row = !f.case_id.empty() && !f.person.empty();
  const bool actor_on_row = (!f.person.empty() || !f.case_id.empty()) && !f.actor.empty();
  if (person_on_row || actor_on_row || !f.actor_type.empty() || !f.channel.empty() || f.created.Any()) {
    list.accept = [person_on_row, actor_on_row, f](const core::Json& row) {
      if (person_on_row && core::StringOr(row, "personId") != f.person) return false;
      if (actor_on_row && core::StringOr(row, "actorId") != f.actor) return false;
      if (!f.actor_type.empty() && core::StringOr(row, "actorType") != f.actor_type) return false;
      if (!f.channel.empty() && core::StringOr(row, "channel") != f.channel) return false;
      return f.created.Contains(row);
    };
  }
}

void ListEntries(Runtime& rt, const ApiContext& o, ApiCall& call, Respond respond) {
  auto query = ParseQuery(call.request->query);
  CursorList list;
  list.filters = {"actorId", "actorType", "caseId", "channel", "createdGte", "createdLte", "personId", "format"};
  const AuditFilter filter = ParseAuditFilter(query, list.errors);
  NarrowAuditList(TeOf(call.auth), filter, list);
  list.render = [&rt, tenant = call.auth.tenant_id, env = call.auth.environment](const std::string& stored) {
    if (stored.find("\"reasonSealed\"") == std::string::npos) return std::string(stored);
    return core::DumpJson(pipeline::persons::OpenAccessReason(rt.key_store(), tenant, env, core::ParseJsonOrDiscarded(stored)));
  };
  if (filter.csv) return ServeCsv(rt, *call.request, query, list, std::move(respond));
  ServeCursorList(rt, o, call, list, std::move(respond));
}

// The chain from entry 1 (projections/audit/audit_chain.h), walked from where the last call stopped:
// brokenAt is the first id whose id, prevHash or hash does not follow (for a missing entry, the id
// that should have been there).
void Verify(Runtime& rt, ApiCall& call, Respond respond) {
  HttpRequest& req = *call.request;
  auto chain = rt.audit_chain_verifier().Verify(rt.store(), TeOf(call.auth));
  if (!chain.ok()) return respond(StatusToProblem(req, chain.status()));
  respond(JsonResponse(200, {{"object", "audit_chain_verification"},
                             {"valid", !chain->broken_at.has_value()},
                             {"count", chain->count},
                             {"brokenAt", chain->broken_at.has_value() ? core::Json(*chain->broken_at) : core::Json(nullptr)}}));
}

core::Result<projections::StoredTree> TreeOf(Runtime& rt, const std::string& te) {
  return projections::ReadStoredTree(rt.store(), te);
}

// A positive integer query parameter, or nullopt when absent; a field error when malformed.
std::optional<int64_t> CountParam(const std::map<std::string, std::string>& query, const std::string& name,
                                  std::vector<FieldError>& errors, int64_t minimum = 1) {
  auto it = query.find(name);
  if (it == query.end()) return std::nullopt;
  int64_t v = 0;
  bool ok = !it->second.empty() && it->second.size() <= 18;
  for (char c : it->second) {
    ok &= c >= '0' && c <= '9';
    if (ok) v = v * 10 + (c - '0');
  }
  if (!ok || v < minimum) {
    errors.push_back({name, "", "invalid_type",
                      name + (minimum == 0 ? " must be a non-negative integer" : " must be a positive integer")});
    return std::nullopt;
  }
  return v;
}

// The query of a proof route: only `known` parameters (else the name of the first other one).
std::optional<std::string> UnknownParam(const std::map<std::string, std::string>& query,
                                        std::initializer_list<std::string_view> known) {
  for (const auto& [name, value] : query) {
    if (std::find(known.begin(), known.end(), name) == known.end()) return name;
  }
  return std::nullopt;
}

// A required positive integer parameter.
std::optional<int64_t> RequiredCount(const std::map<std::string, std::string>& query, const std::string& name,
                                     std::vector<FieldError>& errors) {
  if (query.count(name) == 0) {
    errors.push_back({name, "", "required", name + " is required"});
    return std::nullopt;
  }
  return CountParam(query, name, errors);
}

core::Json HexList(const std::vector<std::string>& hashes) {
  core::Json out = core::Json::array();
  for (const auto& h : hashes) out.push_back(core::HexEncode(h));
  return out;
}

// GET …/verify/tree-head[?treeSize=N]: the root of the tree of the first N entries (default all).
void TreeHead(Runtime& rt, ApiCall& call, Respond respond) {
  HttpRequest& req = *call.request;
  auto query = ParseQuery(req.query);
  std::vector<FieldError> errors;
  if (auto unknown = UnknownParam(query, {"treeSize"})) {
    return respond(Problem(req, "BAD_REQUEST", "unknown query parameter " + *unknown));
  }
  // 0 is a size like any other: the empty tree's head (RFC 9162 §2.1.1), as an empty log serves.
  auto size = CountParam(query, "treeSize", errors, /*minimum=*/0);
  auto tree = TreeOf(rt, TeOf(call.auth));
  if (!tree.ok()) return respond(StatusToProblem(req, tree.status()));
  if (size.has_value() && *size > tree->size) {
    errors.push_back({"treeSize", "", "out_of_range", "treeSize must be at most " + std::to_string(tree->size)});
  }
  if (!errors.empty()) return respond(ValidationProblem(req, errors));
  const int64_t n = size.value_or(tree->size);
  auto root = core::merkle::Root(static_cast<uint64_t>(n), tree->nodes);
  if (!root.ok()) return respond(StatusToProblem(req, root.status()));
  respond(JsonResponse(200, {{"object", "audit_tree_head"}, {"treeSize", n}, {"rootHash", core::HexEncode(*root)}}));
}

// GET …/verify/inclusion?id=N[&treeSize=M]: the audit path of entry N in the tree of M entries.
void Inclusion(Runtime& rt, ApiCall& call, Respond respond) {
  HttpRequest& req = *call.request;
  auto query = ParseQuery(req.query);
  std::vector<FieldError> errors;
  if (auto unknown = UnknownParam(query, {"id", "treeSize"})) {
    return respond(Problem(req, "BAD_REQUEST", "unknown query parameter " + *unknown));
  }
  auto id = RequiredCount(query, "id", errors);
  auto size = CountParam(query, "treeSize", errors);
  auto tree = TreeOf(rt, TeOf(call.auth));
  if (!tree.ok()) return respond(StatusToProblem(req, tree.status()));
  const int64_t n = size.value_or(tree->size);
  if (size.has_value() && *size > tree->size) {
    errors.push_back({"treeSize", "", "out_of_range", "treeSize must be at most " + std::to_string(tree->size)});
  } else if (id.has_value() && *id > n) {
    errors.push_back({"id", "", "out_of_range", "id must be at most the tree size, " + std::to_string(n)});
  }
  if (!errors.empty()) return respond(ValidationProblem(req, errors));
  const uint64_t index = static_cast<uint64_t>(*id - 1);
  auto leaf = tree->nodes(0, index);
  auto root = core::merkle::Root(static_cast<uint64_t>(n), tree->nodes);
  auto proof = core::merkle::InclusionProof(index, static_cast<uint64_t>(n), tree->nodes);
  for (const core::Status& st : {leaf.status(), root.status(), proof.status()}) {
    if (!st.ok()) return respond(StatusToProblem(req, st));
  }
  respond(JsonResponse(200, {{"object", "audit_inclusion_proof"},
                             {"id", *id},
                             {"leafIndex", index},
                             {"treeSize", n},
                             {"leafHash", core::HexEncode(*leaf)},
                             {"rootHash", core::HexEncode(*root)},
                             {"hashes", HexList(*proof)}}));
}

// GET …/verify/consistency?fromSize=M[&toSize=N]: that the tree of N entries extends the tree of M.
void Consistency(Runtime& rt, ApiCall& call, Respond respond) {
  HttpRequest& req = *call.request;
  auto query = ParseQuery(req.query);
  std::vector<FieldError> errors;
  if (auto unknown = UnknownParam(query, {"fromSize", "toSize"})) {
    return respond(Problem(req, "BAD_REQUEST", "unknown query parameter " + *unknown));
  }
  auto from = RequiredCount(query, "fromSize", errors);
  auto to = CountParam(query, "toSize", errors);
  auto tree = TreeOf(rt, TeOf(call.auth));
  if (!tree.ok()) return respond(StatusToProblem(req, tree.status()));
  const int64_t n = to.value_or(tree->size);
  if (to.has_value() && *to > tree->size) {
    errors.push_back({"toSize", "", "out_of_range", "toSize must be at most " + std::to_string(tree->size)});
  } else if (from.has_value() && *from > n) {
    errors.push_back({"fromSize", "", "out_of_range", "fromSize must be at most toSize, " + std::to_string(n)});
  }
  if (!errors.empty()) return respond(ValidationProblem(req, errors));
  auto from_root = core::merkle::Root(static_cast<uint64_t>(*from), tree->nodes);
  auto to_root = core::merkle::Root(static_cast<uint64_t>(n), tree->nodes);
  auto proof = core::merkle::ConsistencyProof(static_cast<uint64_t>(*from), static_cast<uint64_t>(n), tree->nodes);
  for (const core::Status& st : {from_root.status(), to_root.status(), proof.status()}) {
    if (!st.ok()) return respond(StatusToProblem(req, st));
  }
  respond(JsonResponse(200, {{"object", "audit_consistency_proof"},
                             {"fromSize", *from},
                             {"toSize", n},
                             {"fromRootHash", core::HexEncode(*from_root)},
                             {"toRootHash", core::HexEncode(*to_root)},
                             {"hashes", HexList(*proof)}}));
}

// GET …/verify/checkpoint: the signed checkpoint (C2SP tlog-checkpoint in a signed note) of the
// whole tree, as text.
void Checkpoint(Runtime& rt, ApiCall& call, Respond respond) {
  HttpRequest& req = *call.request;
  const AuthContext& a = call.auth;
  if (!req.query.empty()) return respond(Problem(req, "BAD_REQUEST", "this route takes no query parameters"));
  auto tree = TreeOf(rt, TeOf(a));
  if (!tree.ok()) return respond(StatusToProblem(req, tree.status()));
  auto root = core::merkle::Root(static_cast<uint64_t>(tree->size), tree->nodes);
  if (!root.ok()) return respond(StatusToProblem(req, root.status()));
  auto signed_note = pipeline::audit::SignedCheckpoint(rt.audit_checkpoint_root_key(), a.tenant_id, a.environment,
                                                       static_cast<uint64_t>(tree->size), *root);
  if (!signed_note.ok()) return respond(StatusToProblem(req, signed_note.status()));
  HttpResponse r;
  r.status = 200;
  r.content_type = "text/plain; charset=utf-8";
  r.body = std::move(*signed_note);
  respond(std::move(r));
}

// GET …/verify/checkpoints: the checkpoints published in the log (the publisher's, every interval
// the log grew), oldest first.
void Checkpoints(Runtime& rt, const ApiContext& o, ApiCall& call, Respond respond) {
  const std::string te = TeOf(call.auth);
  CursorList list;
  list.scope = "audit-checkpoints|" + te;
  list.index = AV::Abs(AV::Checkpoints(te));
  list.row_key = [te](std::string_view entry) {
    return AV::Abs(AV::Checkpoint(te, AV::IdOfKey(entry).value_or(0)));
  };
  // Each with its trusted timestamps (over the SHA-256 of the signed note).
  list.render = [&rt, te, enabled = o.evidence_timestamps](const std::string& stored) {
    core::Json row = core::ParseJsonOrDiscarded(stored);
    const std::string note = core::StringOr(row, "checkpoint");
    auto timestamps = pipeline::audit::EvidenceTimestamps(rt.store(), te, commands::audit::kAuditCheckpoint,
                                                          std::to_string(core::IntOr(row, "treeSize")),
                                                          core::Sha256Hex(note), enabled);
    row["timestamps"] = timestamps.ok() ? *timestamps : core::Json::array();
    return core::DumpJson(row);
  };
  ServeCursorList(rt, o, call, list, std::move(respond));
}

// GET …/verify/checkpoint-key: the verifier key checkpoints are signed with.
void CheckpointKey(Runtime& rt, ApiCall& call, Respond respond) {
  const AuthContext& a = call.auth;
  const std::string vkey = pipeline::audit::VerifierKeyOf(rt.audit_checkpoint_root_key(), a.tenant_id, a.environment);
  respond(JsonResponse(200, {{"object", "audit_checkpoint_key"},
                             {"origin", pipeline::audit::Origin(a.tenant_id, a.environment)},
                             {"algorithm", "Ed25519"},
                             {"verifierKey", vkey}}));
}

// The subject and the moment a history query names (the moment defaulting to `now`), or the
// query's field errors.
std::optional<projections::AsOfQuery> ParseHistoryQuery(const std::map<std::string, std::string>& query,
                                                         const AuthContext& a, core::Timestamp now,
                                                         std::vector<FieldError>& errors) {
  static const std::map<std::string, core::IdKind> kKinds = {{"verification_session", core::IdKind::kVerification},
                                                             {"person", core::IdKind::kPerson},
                                                             {"review_case", core::IdKind::kCase},
                                                             {"company", core::IdKind::kCompany}};
  auto get = [&](const char* name) { return query.contains(name) ? query.at(name) : std::string(); };
  const std::string type = get("subjectType"), id = get("subjectId");
  if (!kKinds.contains(type) || projections::FindStateTopic(type) == nullptr) {
    errors.push_back({"subjectType", "", type.empty() ? "required" : "invalid_enum",
                      "subjectType must be one of verification_session, person, review_case, company"});
  } else if (!core::ValidateId(kKinds.at(type), id).ok()) {
    errors.push_back({"subjectId", "", id.empty() ? "required" : "invalid_format", "subjectId must be the id of a " + type});
  }
  core::Timestamp as_of = now;
  if (query.contains("asOf")) {
    auto t = core::ParseRfc3339(query.at("asOf"));
    if (t.ok()) as_of = *t;
    else errors.push_back({"asOf", "", "invalid_format", "asOf must be an RFC 3339 date-time"});
  }
  if (!errors.empty()) return std::nullopt;
  return projections::AsOfQuery{a.tenant_id, a.environment, id, as_of};
}

// The access-log entry of a replay: about the person, or the person the subject named at T.
commands::persons::PiiAccessed HistoryAccess(const AuthContext& a, const std::string& type, const std::string& id,
                                             const core::Json& state, const std::string& reason) {
  std::string person = type == "person" ? id : "";
  if (person.empty() && state.is_object()) person = core::StringOr(state, "personId");
  commands::persons::PiiAccessed access = AccessBy(a, person, "history", {}, "compliance", reason);
  access.redaction = "sealed";  // no value is opened
  if (type == "review_case") access.case_id = id;
  return access;
}

// GET /v1/audit-logs/history: what the service knew about a subject at a moment, signed
// (pipeline/audit/history.h). On the work pool: the replay reads the tenant's history up to the
// moment. The replay is itself an access-log entry (channel "history").
void History(Runtime& rt, const ApiContext& o, ApiCall& call, Respond respond) {
  HttpRequest& req = *call.request;
  auto query = ParseQuery(req.query);
  if (auto unknown = UnknownParam(query, {"subjectType", "subjectId", "asOf"})) {
    return respond(Problem(req, "BAD_REQUEST", "unknown query parameter " + *unknown));
  }
  std::vector<FieldError> errors;
  auto q = ParseHistoryQuery(query, call.auth, rt.clock().Now(), errors);
  if (!q.has_value()) return respond(ValidationProblem(req, errors));
  const std::string type = query.at("subjectType");
  auto history = pipeline::audit::ReplayHistory(rt.log(), rt.projectors(), rt.data_dir(), type, *q,
                                                {rt.audit_checkpoint_root_key(), rt.certificate_root_key()});
  if (!history.ok()) return respond(StatusToProblem(req, history.status()));
  if (history->bundle.is_null()) {
    return respond(Problem(req, "RESOURCE_NOT_FOUND", "no such " + type + " at " + core::FormatRfc3339(q->as_of)));
  }
  auto access = HistoryAccess(call.auth, type, q->subject_id, history->replay.state, req.Header("service-reason"));
  if (auto refused = RecordNow(rt, o, call, {access})) return respond(std::move(*refused));
  respond(JsonResponse(200, history->bundle));
}

}  // namespace

std::vector<ApiRoute> AuditRoutes(Runtime* r, const ApiContext& options) {
  const auto* o = &options;
  const std::string tag = "Compliance";
  std::vector<QueryParam> list_query = {
      {"actorId", {{"type", "string"}}, "only the entries of this actor (an API key id or a client token id)"},
      {"actorType", {{"type", "string"}}, "only the entries of this kind of actor: `api_key`, `client_token`, `media_link` or `user` (a reviewer)"},
      {"caseId", {{"type", "string"}, {"pattern", "^cas_[0-9a-f]{32}$"}},
       "only the entries of this review case (its openings and its captures' views)"},
      {"channel", {{"type", "string"}}, "only the entries of this channel: `decrypt`, `batch_decrypt`, `expand`, "
                                        "`client_token`, `integrity`, `export`, `reauth`, `review_case` or `review_media`"},
      {"createdGte", {{"type", "string"}, {"format", "date-time"}}, "entries at or after this time"},
      {"createdLte", {{"type", "string"}, {"format", "date-time"}}, "entries at or before this time"},
      {"personId", {{"type", "string"}, {"pattern", "^per_[0-9a-f]{32}$"}}, "only the entries about this person"},
      {"format", {{"type", "string"}, {"enum", {"json", "csv"}}},
       "`json` (the default, paged) or `csv` (every entry the filters keep, streamed, oldest first; no paging parameters)"}};
  for (auto& q : PageParams()) list_query.push_back(q);
  std::vector<ApiRoute> routes;
  routes.push_back(ApiRoute{
      .method = "GET", .path = "/v1/audit-logs", .operation_id = "listAuditLogs", .tag = tag,
      .scope = "compliance:read", .query = list_query, .response_schema = "AuditLogEntryList",
      .error_codes = {"INVALID_ID", "VALIDATION_ERROR", "BAD_REQUEST", "INVALID_CURSOR", "LIMIT_OUT_OF_RANGE"},
      .handler = [r, o](ApiCall& c, Respond respond) {
        WhenCaughtUp(*r, c, {AV::kName}, std::move(respond), [r, o](ApiCall& held, Respond then) { ListEntries(*r, *o, held, std::move(then)); });
      }});
  routes.push_back(ApiRoute{
      .method = "GET", .path = "/v1/audit-logs/verify", .operation_id = "verifyAuditLogs", .tag = tag,
      .scope = "compliance:read", .response_schema = "AuditChainVerification",
      .handler = [r, o](ApiCall& c, Respond respond) {
        WhenCaughtUp(*r, c, {AV::kName}, std::move(respond), [r, o](ApiCall& held, Respond then) {
          // A walk of the whole chain: on the work pool, not the projections' waiter thread.
          OnWorkPool(o->work_pool, held, std::move(then), [r](ApiCall& call, Respond out) { Verify(*r, call, std::move(out)); });
        });
      }});
  const std::string tree_note =
      " The entries are the leaves of an RFC 9162 Merkle tree (entry n is leaf n-1; its leaf hash is "
      "SHA-256(0x00 || the entry's `hash` as 32 bytes), so the tree commits to the chain); hashes are hex.";
  routes.push_back(ApiRoute{
      .method = "GET", .path = "/v1/audit-logs/verify/tree-head", .operation_id = "getAuditTreeHead", .tag = tag,
      .scope = "compliance:read",
      .query = {{"treeSize", {{"type", "integer"}, {"minimum", 0}}, "the number of entries (default: all; 0: the empty tree)"}},
      .response_schema = "AuditTreeHead", .error_codes = {"VALIDATION_ERROR", "BAD_REQUEST"},
      .handler = [r](ApiCall& c, Respond respond) {
        WhenCaughtUp(*r, c, {AV::kName}, std::move(respond), [r](ApiCall& held, Respond then) { TreeHead(*r, held, std::move(then)); });
      }});
  routes.push_back(ApiRoute{
      .method = "GET", .path = "/v1/audit-logs/verify/inclusion", .operation_id = "getAuditInclusionProof", .tag = tag,
      .scope = "compliance:read",
      .query = {{"id", {{"type", "integer"}, {"minimum", 1}}, "the entry (required)"},
                {"treeSize", {{"type", "integer"}, {"minimum", 1}}, "the tree's size (default: all entries)"}},
      .response_schema = "AuditInclusionProof", .error_codes = {"VALIDATION_ERROR", "BAD_REQUEST"},
      .handler = [r](ApiCall& c, Respond respond) {
        WhenCaughtUp(*r, c, {AV::kName}, std::move(respond), [r](ApiCall& held, Respond then) { Inclusion(*r, held, std::move(then)); });
      }});
  routes.push_back(ApiRoute{
      .method = "GET", .path = "/v1/audit-logs/verify/consistency", .operation_id = "getAuditConsistencyProof",
      .tag = tag, .scope = "compliance:read",
      .query = {{"fromSize", {{"type", "integer"}, {"minimum", 1}}, "the older tree's size (required)"},
                {"toSize", {{"type", "integer"}, {"minimum", 1}}, "the newer tree's size (default: all entries)"}},
      .response_schema = "AuditConsistencyProof", .error_codes = {"VALIDATION_ERROR", "BAD_REQUEST"},
      .handler = [r](ApiCall& c, Respond respond) {
        WhenCaughtUp(*r, c, {AV::kName}, std::move(respond), [r](ApiCall& held, Respond then) { Consistency(*r, held, std::move(then)); });
      }});
  routes.push_back(ApiRoute{
      .method = "GET", .path = "/v1/audit-logs/verify/checkpoint", .operation_id = "getAuditCheckpoint", .tag = tag,
      .scope = "compliance:read", .response_schema = "AuditCheckpoint", .response_content_type = "text/plain",
      .error_codes = {"BAD_REQUEST"},
      .handler = [r](ApiCall& c, Respond respond) {
        WhenCaughtUp(*r, c, {AV::kName}, std::move(respond), [r](ApiCall& held, Respond then) { Checkpoint(*r, held, std::move(then)); });
      }});
  routes.push_back(ApiRoute{
      .method = "GET", .path = "/v1/audit-logs/verify/checkpoints", .operation_id = "listAuditCheckpoints",
      .tag = tag, .scope = "compliance:read", .query = PageParams(), .response_schema = "AuditCheckpointList",
      .error_codes = {"BAD_REQUEST", "INVALID_CURSOR", "LIMIT_OUT_OF_RANGE"},
      .handler = [r, o](ApiCall& c, Respond respond) {
        WhenCaughtUp(*r, c, {AV::kName}, std::move(respond), [r, o](ApiCall& held, Respond then) { Checkpoints(*r, *o, held, std::move(then)); });
      }});
  routes.push_back(ApiRoute{
      .method = "GET", .path = "/v1/audit-logs/history", .operation_id = "getSubjectHistory", .tag = tag,
      .scope = "compliance:read",
      .query = {{"subjectType", {{"type", "string"}, {"enum", {"verification_session", "person", "review_case", "company"}}},
                 "the kind of subject (required)"},
                {"subjectId", {{"type", "string"}}, "its id (required): vrf_…, per_…, cas_… or cmp_…"},
                {"asOf", {{"type", "string"}, {"format", "date-time"}}, "the moment (default: now)"}},
      .response_schema = "HistoryBundle",
      .error_codes = {"VALIDATION_ERROR", "BAD_REQUEST", "RESOURCE_NOT_FOUND", "PII_DECRYPT_CAP_REACHED"},
      .handler = [r, o](ApiCall& c, Respond respond) {
        WhenCaughtUp(*r, c, {AV::kName}, std::move(respond), [r, o](ApiCall& held, Respond then) {
          OnWorkPool(o->work_pool, held, std::move(then),
                     [r, o](ApiCall& call, Respond out) { History(*r, *o, call, std::move(out)); });
        });
      }});
  routes.push_back(ApiRoute{
      .method = "GET", .path = "/v1/audit-logs/verify/checkpoint-key", .operation_id = "getAuditCheckpointKey",
      .tag = tag, .scope = "compliance:read", .response_schema = "AuditCheckpointKey",
      .handler = [r](ApiCall& c, Respond respond) { CheckpointKey(*r, c, std::move(respond)); }});
  return routes;
}

}  // namespace svc::api::audit
