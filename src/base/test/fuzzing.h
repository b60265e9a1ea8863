// Helpers shared by the libFuzzer harnesses (built with clang only).

#ifndef ZT_SRC_BASE_TEST_FUZZING_H_
#define ZT_SRC_BASE_TEST_FUZZING_H_

// Marks a harness function that only checks what a run produced (walks every
// byte, row or packet). Coverage callbacks there guide libFuzzer nowhere (the
// code under test is not in it) and, taken per byte, were most of a run's
// cost: trace_buffer_fuzzer spent 38% of its time in the comparison hooks of
// its own checking loops. The code under test keeps its instrumentation.
#define ZT_FUZZ_CHECKER __attribute__((no_sanitize("coverage")))

#endif  // ZT_SRC_BASE_TEST_FUZZING_H_
