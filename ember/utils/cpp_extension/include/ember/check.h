// ember/check.h: EMBER_CHECK and friends, the exceptions a kernel throws on bad input.
//
// A failed check throws a C++ exception that the binding layer turns into the Python
// exception named below, with the message built from the macro's arguments:
//
//   EMBER_CHECK(x.dim() == 2, "lltm: expected a 2-D input, got ", x.dim(), "-D")
//       -> RuntimeError: lltm: expected a 2-D input, got 3-D
//   EMBER_CHECK_TYPE(...) -> TypeError      EMBER_CHECK_VALUE(...) -> ValueError
//   EMBER_CHECK_INDEX(...) -> IndexError
//
// The message is only formatted when the check fails, so checks cost one branch.
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>

#include <nanobind/nanobind.h>

namespace ember {

// Surfaces in Python as RuntimeError (nanobind maps std::runtime_error to it).
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

namespace detail {

template <typename... Args>
std::string str(const Args&... args) {
  std::ostringstream out;
  (out << ... << args);
  return out.str();
}

inline std::string check_message(const char* condition, std::string message) {
  if (!message.empty()) return message;
  return std::string("Expected ") + condition + " to be true, but got false.";
}

[[noreturn]] inline void fail_runtime(const char* condition, std::string message) {
  throw Error(check_message(condition, std::move(message)));
}

[[noreturn]] inline void fail_type(const char* condition, std::string message) {
  throw nanobind::type_error(check_message(condition, std::move(message)).c_str());
}

[[noreturn]] inline void fail_value(const char* condition, std::string message) {
  throw nanobind::value_error(check_message(condition, std::move(message)).c_str());
}

[[noreturn]] inline void fail_index(const char* condition, std::string message) {
  throw nanobind::index_error(check_message(condition, std::move(message)).c_str());
}

}  // namespace detail
}  // namespace ember

#define EMBER_DETAIL_CHECK(fail, cond, ...)                                    \
  do {                                                                         \
    if (!(cond)) ::ember::detail::fail(#cond, ::ember::detail::str(__VA_ARGS__)); \
  } while (0)

// RuntimeError unless `cond` holds; the remaining arguments are streamed into the message.
#define EMBER_CHECK(cond, ...) EMBER_DETAIL_CHECK(fail_runtime, cond, __VA_ARGS__)
// TypeError unless `cond` holds (wrong dtype or argument type).
#define EMBER_CHECK_TYPE(cond, ...) EMBER_DETAIL_CHECK(fail_type, cond, __VA_ARGS__)
// ValueError unless `cond` holds.
#define EMBER_CHECK_VALUE(cond, ...) EMBER_DETAIL_CHECK(fail_value, cond, __VA_ARGS__)
// IndexError unless `cond` holds (an index or dimension out of range).
#define EMBER_CHECK_INDEX(cond, ...) EMBER_DETAIL_CHECK(fail_index, cond, __VA_ARGS__)
