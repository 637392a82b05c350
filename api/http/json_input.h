#pragma once
// Reading request bodies: simdjson parses, and a Validator collects every field error (not just
// the first) with its JSON Pointer, for 422 VALIDATION_ERROR.

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.h"
#include "core/status.h"

namespace svc::api {

struct FieldError {
  std::string field;    // as in the caller's payload: "policy.faceMatchThreshold"
  std::string pointer;  // RFC 6901: "/policy/faceMatchThreshold"
  std::string code;     // required, invalid_type, invalid_enum, invalid_format, too_long,
                        // out_of_range, unknown_field; invalid_id (answered as 400 INVALID_ID)
  std::string detail;
};

// Parses a body that must be one JSON object (simdjson), converting it to a Json value for the
// validator. Malformed JSON, a non-object, nesting deeper than 32 or a member given twice in one
// object (the detail names its JSON Pointer): BAD_REQUEST.
core::Result<core::Json> ParseJsonObject(std::string_view body);

class Validator {
 public:
  explicit Validator(const core::Json& body) : body_(body) {}

  // Each accessor records an error and returns nullopt when the member is wrong; absent and
  // null give nullopt without an error unless `required`, when they are a `required` error with
  // the member's pointer (422). A route reads a required member through its accessor, never by
  // looking for it itself: then `ok()` true means every required value is there.
  std::optional<std::string> String(const char* name, bool required, size_t max_len = 1024);
  std::optional<std::string> Enum(const char* name, bool required,
                                  const std::vector<std::string>& values);
  std::optional<bool> Bool(const char* name, bool required);
  // An integer (a JSON number without a fraction); outside [min, max] an out_of_range error.
  std::optional<int64_t> Integer(const char* name, bool required, int64_t min, int64_t max);
  std::optional<std::string> Url(const char* name, bool required = false);
  std::optional<std::string> DateTime(const char* name, bool required = false);
  std::optional<std::string> OpaqueId(const char* name, std::string_view prefix, bool required = false);
  const core::Json* Object(const char* name, size_t max_bytes = 16 * 1024);
  bool IsNull(const char* name) const;

  // Records errors for members not named by any accessor.
  void RejectUnknown();
  void Add(FieldError e) { errors_.push_back(std::move(e)); }
  // Marks a member as handled by the caller (so RejectUnknown leaves it alone).
  void Skip(const char* name) { seen_.insert(name); }
  const std::vector<FieldError>& errors() const { return errors_; }
  bool ok() const { return errors_.empty(); }

 private:
  const core::Json* Member(const char* name, bool required, const char* type);
  void TypeError(const char* name, const char* type);
  const core::Json& body_;
  std::set<std::string> seen_;
  std::vector<FieldError> errors_;
};

std::string JsonPointerEscape(std::string_view token);
// `<prefix>_<32 lowercase hex>`.
bool IsOpaqueId(std::string_view s, std::string_view prefix);
core::Json ErrorsJson(const std::vector<FieldError>& errors);

}  // namespace svc::api
