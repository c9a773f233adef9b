// Opens the AVX-512 target region (closed by target_end.ipp): every function
// defined between the two, templates and lambdas included, is compiled for
// AVX2, BMI1, POPCNT and AVX-512 F, VL, BW and DQ, whatever the build's
// flags. Every header must be included before it (the region would apply to
// theirs too). No FMA: the
// kernels round as the scalar loops do. No include guard: one region a file.
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,bmi,popcnt,avx512f,avx512vl,avx512bw,avx512dq"))), apply_to = function)
#elif defined(__GNUC__)
#pragma GCC push_options
#pragma GCC target("avx2,bmi,popcnt,avx512f,avx512vl,avx512bw,avx512dq")
#endif
