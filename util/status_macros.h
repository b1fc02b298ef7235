// RETURN_IF_ERROR and ASSIGN_OR_RETURN: the installed Abseil (20220623) has
// neither, so they live here.
//
//   RETURN_IF_ERROR(file->Append(data));
//   ASSIGN_OR_RETURN(std::unique_ptr<WritableFile> f, env->NewWritableFile(p));

#ifndef SIFT_UTIL_STATUS_MACROS_H_
#define SIFT_UTIL_STATUS_MACROS_H_

#include <utility>

#include "absl/base/optimization.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define RETURN_IF_ERROR(expr)                           \
  do {                                                  \
    ::absl::Status sift_status_macro_ = (expr);         \
    if (ABSL_PREDICT_FALSE(!sift_status_macro_.ok())) { \
      return sift_status_macro_;                        \
    }                                                   \
  } while (0)

#define SIFT_STATUS_MACROS_CONCAT_INNER_(a, b) a##b
#define SIFT_STATUS_MACROS_CONCAT_(a, b) SIFT_STATUS_MACROS_CONCAT_INNER_(a, b)

// `lhs` may declare a variable ("auto x") or name an existing one ("x").
#define ASSIGN_OR_RETURN(lhs, rexpr) \
  SIFT_ASSIGN_OR_RETURN_IMPL_(       \
      SIFT_STATUS_MACROS_CONCAT_(sift_statusor_, __LINE__), lhs, rexpr)

#define SIFT_ASSIGN_OR_RETURN_IMPL_(statusor, lhs, rexpr) \
  auto statusor = (rexpr);                                \
  if (ABSL_PREDICT_FALSE(!statusor.ok())) {               \
    return std::move(statusor).status();                  \
  }                                                       \
  lhs = std::move(statusor).value()

#endif  // SIFT_UTIL_STATUS_MACROS_H_
