#pragma once
// Status and Result<T>: the error vocabulary of the whole service. No exceptions cross a module
// boundary; a function that can fail returns one of these and the caller must look at it.
//
// A Status has a canonical code (what kind of failure it is, in the sense of absl::StatusCode:
// what the caller should do about it) and, where one applies, a code of the spec's error
// catalogue (core/error_catalogue.h) which is what an API caller finally sees.

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace svc::core {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,     // the input is wrong; retrying the same input never helps
  kNotFound,            // the thing does not exist (or is not visible to the caller)
  kAlreadyExists,       // a create collided with an existing thing
  kFailedPrecondition,  // a business rule refused the operation in the current state
  kAborted,             // a concurrency conflict; retry at a higher level
  kUnauthenticated,     // no or bad credential
  kPermissionDenied,    // credential valid, not allowed
  kResourceExhausted,   // a quota or a bounded queue is full
  kUnavailable,         // transient: a dependency is down; retry later
  kDeadlineExceeded,    // the operation took too long; it may or may not have happened
  kDataLoss,            // stored data is corrupt
  kInternal,            // a bug or an invariant broken
  kCancelled,           // the caller or shutdown cancelled it
};

std::string_view StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;  // OK
  Status(StatusCode code, std::string message, std::string_view api_code = {})
      : code_(code), message_(std::move(message)), api_code_(api_code) {}

  static Status Ok() { return Status(); }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // The spec catalogue code (e.g. "IDEMPOTENCY_KEY_REUSED"), empty when none applies.
  std::string_view api_code() const { return api_code_; }
  // Extra fields for the problem+json body (e.g. requiredScope), as name/value pairs.
  const std::vector<std::pair<std::string, std::string>>& extensions() const {
    return extensions_;
  }
  Status& WithExtension(std::string name, std::string value) {
    extensions_.emplace_back(std::move(name), std::move(value));
    return *this;
  }
  // An extension whose value is JSON (a list, an object), given as its text: the problem body
  // carries it parsed (FLOW_VALIDATION_FAILED's `issues`).
  Status& WithJsonExtension(std::string name, std::string json_text) {
    json_extensions_.emplace_back(std::move(name), std::move(json_text));
    return *this;
  }
  const std::vector<std::pair<std::string, std::string>>& json_extensions() const { return json_extensions_; }

  std::string ToString() const;
  // Marks a Status as looked at when dropping it is deliberate.
  void IgnoreError() const {}

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
  std::string_view api_code_;  // points into the static catalogue
  std::vector<std::pair<std::string, std::string>> extensions_;
  std::vector<std::pair<std::string, std::string>> json_extensions_;
};

// Builders, named after what they mean. `api_code` must be a catalogue code or empty.
Status InvalidArgument(std::string message, std::string_view api_code = {});
Status NotFound(std::string message, std::string_view api_code = {});
Status AlreadyExists(std::string message, std::string_view api_code = {});
Status FailedPrecondition(std::string message, std::string_view api_code = {});
Status Aborted(std::string message, std::string_view api_code = {});
Status Unauthenticated(std::string message, std::string_view api_code = {});
Status PermissionDenied(std::string message, std::string_view api_code = {});
Status ResourceExhausted(std::string message, std::string_view api_code = {});
Status Unavailable(std::string message, std::string_view api_code = {});
Status DeadlineExceeded(std::string message, std::string_view api_code = {});
Status DataLoss(std::string message);
Status Internal(std::string message);
Status Cancelled(std::string message);

// Result<T> holds a T or a non-OK Status.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Status status) : v_(std::move(status)) {  // NOLINT
    if (std::get<Status>(v_).ok()) v_ = Status(StatusCode::kInternal, "Result from OK status");
  }

  bool ok() const { return std::holds_alternative<T>(v_); }
  const Status& status() const {
    static const Status kOk;
    return ok() ? kOk : std::get<Status>(v_);
  }
  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T value_or(T other) const& { return ok() ? value() : std::move(other); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace svc::core

#define SVC_CONCAT_INNER_(a, b) a##b
#define SVC_CONCAT_(a, b) SVC_CONCAT_INNER_(a, b)

#define SVC_RETURN_IF_ERROR(expr)                        \
  do {                                                   \
    ::svc::core::Status svc_status_ = (expr);            \
    if (!svc_status_.ok()) return svc_status_;           \
  } while (0)

#define SVC_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                               \
  if (!tmp.ok()) return tmp.status();              \
  lhs = std::move(tmp).value()

#define SVC_ASSIGN_OR_RETURN(lhs, expr) \
  SVC_ASSIGN_OR_RETURN_IMPL_(SVC_CONCAT_(svc_result_, __LINE__), lhs, expr)
