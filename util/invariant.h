// SIFT_INVARIANT(cond, what): a check of an invariant the engine relies on
// (docs/DESIGN.md, "Invariants"), compiled only in the invariant-check mode.
//
// The mode is the CMake option SIFT_INVARIANTS (CMakeLists.txt): on by
// default in a build with the tests, so every test run and every CI build
// checks, and off otherwise (a library-only or release install), where a
// check costs nothing: its condition is not evaluated (it must still
// compile). Benchmark scripts configure with it off. A violated invariant
// prints the file, line, condition and `what` to stderr and aborts: the
// state is already wrong, and going on could write the wrong state to disk.
//
// Checks are for what is true by construction; what bad input or a failed
// disk can make false is an error (absl::Status), never an invariant.

#ifndef SIFT_UTIL_INVARIANT_H_
#define SIFT_UTIL_INVARIANT_H_

#ifndef SIFT_INVARIANTS
#define SIFT_INVARIANTS 0
#endif

namespace sift {

// True in the invariant-check mode: for checks too large for one
// condition, written `if constexpr (kInvariantChecks) { ... }`.
inline constexpr bool kInvariantChecks = SIFT_INVARIANTS != 0;

namespace invariant_internal {
[[noreturn]] void Fail(const char* file, int line, const char* condition,
                       const char* what);
}  // namespace invariant_internal

}  // namespace sift

#if SIFT_INVARIANTS
#define SIFT_INVARIANT(cond, what) \
  ((cond) ? static_cast<void>(0)   \
          : ::sift::invariant_internal::Fail(__FILE__, __LINE__, #cond, what))
#else
#define SIFT_INVARIANT(cond, what) static_cast<void>(sizeof((cond) ? 1 : 0))
#endif

#endif  // SIFT_UTIL_INVARIANT_H_
