#pragma once
// Whether the tests run in the sanitizer build (scripts/test-sanitizers, KSIM_SANITIZE): the
// longest tests then check fewer seeds or a smaller cluster, so the build fits in CI's time;
// the Release build runs them whole.
namespace ksim::testing {

#ifdef KSIM_SANITIZED_TESTS
inline constexpr bool kSanitizedBuild = true;
#else
inline constexpr bool kSanitizedBuild = false;
#endif

}  // namespace ksim::testing
