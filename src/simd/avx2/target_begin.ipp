// Opens the AVX2 target region (closed by target_end.ipp): every function
// defined between the two, templates and lambdas included, is compiled for
// AVX2, BMI1 and POPCNT, whatever the build's flags. Every header must be
// included before it (the region would apply to theirs too). No FMA: the
// kernels round as the scalar loops do. No include guard: one region a file.
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,bmi,popcnt"))), apply_to = function)
#elif defined(__GNUC__)
#pragma GCC push_options
#pragma GCC target("avx2,bmi,popcnt")
#endif
