// The translation unit that compiles the tests' precompiled header (see
// tests/CMakeLists.txt, SIFT_TEST_PCH): it has no code of its own.
