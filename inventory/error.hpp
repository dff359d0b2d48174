#pragma once
// Ironhold's own error types. Every layer throws these (or returns them as values); the HTTP layer
// maps each kind to one problem+json status, the CLI prints the message. Messages are written for
// the person who has to act on them.
#include <stdexcept>
#include <string>

namespace ironhold {

enum class ErrorKind {
  invalid,            // malformed input: a wrong type, a missing field (HTTP 400)
  unauthenticated,    // missing or invalid credential (401)
  forbidden,          // role too low (403)
  not_found,          // unknown id or name (404)
  conflict,           // duplicate name, wrong state (409)
  unprocessable,      // well-formed but unacceptable: unknown driver, bad endpoint (422)
  unsupported_media,  // a body that is not JSON where JSON is expected (415)
  too_large,          // a body past what the server accepts (413)
  unavailable,        // a dependency (the database) cannot be reached (503)
  internal,           // a bug (500)
};

class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, std::string message, std::string field = {})
      : std::runtime_error(std::move(message)), kind_(kind), field_(std::move(field)) {}

  ErrorKind kind() const noexcept { return kind_; }
  // The request field the error is about ("endpoint", "location.unit"), or empty.
  const std::string& field() const noexcept { return field_; }

 private:
  ErrorKind kind_;
  std::string field_;
};

inline Error invalid(std::string message, std::string field = {}) {
  return Error(ErrorKind::invalid, std::move(message), std::move(field));
}
inline Error unprocessable(std::string message, std::string field = {}) {
  return Error(ErrorKind::unprocessable, std::move(message), std::move(field));
}
inline Error not_found(std::string message) {
  return Error(ErrorKind::not_found, std::move(message));
}
inline Error conflict(std::string message, std::string field = {}) {
  return Error(ErrorKind::conflict, std::move(message), std::move(field));
}

}  // namespace ironhold
