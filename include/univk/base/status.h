// Status and Result<T>: univk's error type across every API. No exceptions cross the API and no
// error path aborts; a failure is a code plus a message naming what went wrong.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace univk {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,  // bad input from the caller or a malformed file
  kNotFound,         // a name, key or file that does not exist
  kAlreadyExists,    // create_only on a taken key, duplicate registration
  kIncompatible,     // a device or file lacks something that is required
  kOutOfMemory,      // host or device allocation failed
  kDeviceLost,       // VK_ERROR_DEVICE_LOST
  kUnsupported,      // valid input that univk does not implement
  kInternal,         // a driver error or broken invariant
  kTimeout,          // a wait ran out of time
};

const char* status_code_name(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;  // ok
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status ok_status() { return Status(); }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // "InvalidArgument: message", or "OK".
  std::string to_string() const;

  // Returns a copy with `context + ": "` prepended to the message, for errors passed upward.
  Status with_context(const std::string& context) const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

inline Status ok_status() { return Status(); }
inline Status invalid_argument(std::string m) { return {StatusCode::kInvalidArgument, std::move(m)}; }
inline Status not_found(std::string m) { return {StatusCode::kNotFound, std::move(m)}; }
inline Status already_exists(std::string m) { return {StatusCode::kAlreadyExists, std::move(m)}; }
inline Status incompatible(std::string m) { return {StatusCode::kIncompatible, std::move(m)}; }
inline Status out_of_memory(std::string m) { return {StatusCode::kOutOfMemory, std::move(m)}; }
inline Status device_lost(std::string m) { return {StatusCode::kDeviceLost, std::move(m)}; }
inline Status unsupported(std::string m) { return {StatusCode::kUnsupported, std::move(m)}; }
inline Status internal_error(std::string m) { return {StatusCode::kInternal, std::move(m)}; }
inline Status timeout_error(std::string m) { return {StatusCode::kTimeout, std::move(m)}; }

// Holds either a value or a non-ok Status.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : storage_(std::move(value)) {}        // NOLINT(google-explicit-constructor)
  Result(Status status) : storage_(std::move(status)) {  // NOLINT(google-explicit-constructor)
    if (std::get<Status>(storage_).ok()) {
      storage_ = Status(StatusCode::kInternal, "Result constructed from an ok Status without a value");
    }
  }

  bool ok() const { return std::holds_alternative<T>(storage_); }
  const Status& status() const {
    static const Status kOk;
    return ok() ? kOk : std::get<Status>(storage_);
  }
  T& value() & { return std::get<T>(storage_); }
  const T& value() const& { return std::get<T>(storage_); }
  T&& value() && { return std::get<T>(std::move(storage_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  std::variant<T, Status> storage_;
};

}  // namespace univk

#define UNIVK_CONCAT_INNER_(a, b) a##b
#define UNIVK_CONCAT_(a, b) UNIVK_CONCAT_INNER_(a, b)

// Returns the Status from the enclosing function when `expr` (a Status) is not ok.
#define UNIVK_RETURN_IF_ERROR(expr)                \
  do {                                             \
    ::univk::Status univk_status_ = (expr);        \
    if (!univk_status_.ok()) return univk_status_; \
  } while (0)

// `UNIVK_ASSIGN_OR_RETURN(auto x, make_x());` declares/assigns x from a Result or returns its error.
#define UNIVK_ASSIGN_OR_RETURN(lhs, expr) \
  UNIVK_ASSIGN_OR_RETURN_IMPL_(UNIVK_CONCAT_(univk_result_, __LINE__), lhs, expr)
#define UNIVK_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                                 \
  if (!tmp.ok()) return tmp.status();                \
  lhs = std::move(tmp).value()
