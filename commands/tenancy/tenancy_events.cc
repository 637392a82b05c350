#include "commands/tenancy/tenancy_events.h"

#include <simdjson.h>

#include <map>

namespace svc::commands::tenancy {

std::string_view TypeOf(const TenancyEvent& e) {
  return std::visit([](const auto& v) { return std::decay_t<decltype(v)>::kType; }, e);
}
int SchemaOf(const TenancyEvent& e) {
  return std::visit([](const auto& v) { return std::decay_t<decltype(v)>::kSchema; }, e);
}

std::string EncodeData(const TenancyEvent& event) {
  core::Json j = core::Json::object();
  std::visit(
      [&](const auto& e) {
        using T = std::decay_t<decltype(e)>;
        if constexpr (std::is_same_v<T, TenantCreated>) {
          j["name"] = e.name;
        } else if constexpr (std::is_same_v<T, ApplicationCreated>) {
          j["applicationId"] = e.application_id;
          j["name"] = e.name;
          j["isDefault"] = e.is_default;
        } else if constexpr (std::is_same_v<T, ApiKeyCreated>) {
          j["keyId"] = e.key_id;
          j["applicationId"] = e.application_id;
          j["environment"] = e.environment;
          j["keyType"] = e.key_type;
          j["scopes"] = e.scopes;
          j["secretHash"] = e.secret_hash;
          j["last4"] = e.last4;
          j["name"] = e.name;
        } else if constexpr (std::is_same_v<T, ApiKeyRevoked>) {
          j["keyId"] = e.key_id;
          j["reason"] = e.reason;
        }
      },
      event);
  return core::DumpJson(j);
}

namespace {

thread_local simdjson::ondemand::parser t_parser;

class Fields {
 public:
  explicit Fields(std::string_view json) : padded_(json) {}
  core::Status Parse() {
    simdjson::ondemand::document doc;
    if (t_parser.iterate(padded_).get(doc) != simdjson::SUCCESS) return Bad();
    simdjson::ondemand::object obj;
    if (doc.get_object().get(obj) != simdjson::SUCCESS) return Bad();
    for (auto f : obj) {
      std::string_view key;
      if (f.unescaped_key().get(key) != simdjson::SUCCESS) return Bad();
      simdjson::ondemand::value v = f.value();
      simdjson::ondemand::json_type t;
      if (v.type().get(t) != simdjson::SUCCESS) return Bad();
      std::string k(key);
      if (t == simdjson::ondemand::json_type::string) {
        std::string_view s;
        if (v.get_string().get(s) != simdjson::SUCCESS) return Bad();
        strings_[k] = std::string(s);
      } else if (t == simdjson::ondemand::json_type::boolean) {
        bool b;
        if (v.get_bool().get(b) != simdjson::SUCCESS) return Bad();
        bools_[k] = b;
      } else if (t == simdjson::ondemand::json_type::array) {
        simdjson::ondemand::array a;
        if (v.get_array().get(a) != simdjson::SUCCESS) return Bad();
        auto& list = lists_[k];
        for (auto el : a) {
          std::string_view s;
          if (el.get_string().get(s) != simdjson::SUCCESS) return Bad();
          list.emplace_back(s);
        }
      }
    }
    return core::Status::Ok();
  }
  std::string Str(const std::string& k) const {
    auto it = strings_.find(k);
    return it == strings_.end() ? std::string() : it->second;
  }
  bool Bool(const std::string& k) const {
    auto it = bools_.find(k);
    return it != bools_.end() && it->second;
  }
  std::vector<std::string> List(const std::string& k) const {
    auto it = lists_.find(k);
    return it == lists_.end() ? std::vector<std::string>() : it->second;
  }

 private:
  static core::Status Bad() { return core::DataLoss("tenancy event data is not valid"); }
  simdjson::padded_string padded_;
  std::map<std::string, std::string> strings_;
  std::map<std::string, bool> bools_;
  std::map<std::string, std::vector<std::string>> lists_;
};

}  // namespace

core::Result<TenancyEvent> Decode(const eventstore::EventEnvelope& env) {
  Fields f(env.data);
  SVC_RETURN_IF_ERROR(f.Parse());
  if (env.type == TenantCreated::kType) return TenancyEvent(TenantCreated{f.Str("name")});
  if (env.type == ApplicationCreated::kType) {
    return TenancyEvent(
        ApplicationCreated{f.Str("applicationId"), f.Str("name"), f.Bool("isDefault")});
  }
  if (env.type == ApiKeyCreated::kType) {
    ApiKeyCreated e;
    e.key_id = f.Str("keyId");
    e.application_id = f.Str("applicationId");
    e.environment = f.Str("environment");
    e.key_type = f.Str("keyType");
    e.scopes = f.List("scopes");
    e.secret_hash = f.Str("secretHash");
    e.last4 = f.Str("last4");
    e.name = f.Str("name");
    return TenancyEvent(std::move(e));
  }
  if (env.type == ApiKeyRevoked::kType) {
    return TenancyEvent(ApiKeyRevoked{f.Str("keyId"), f.Str("reason")});
  }
  return core::InvalidArgument("not a tenancy event: " + env.type);
}

}  // namespace svc::commands::tenancy
