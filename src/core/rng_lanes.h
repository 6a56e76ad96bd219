// Rng's draws eight at a time, in the 64-bit lanes of an AVX-512 register: lane u holds draw c_u of
// the counters given (Rng(key) draws counter key + j as its j-th number), and below() and uniform() of
// it as Rng's give them: the very same integers, from core/rng.h's constants. The multiplies need
// AVX-512 DQ: these functions carry GCC's target attribute (PEBENCH_RNG_LANES_TARGET, which a caller
// puts on its own vector function too) and may run only where rng_lanes_enabled() (the one CPU-feature
// switch, core/cpu_features.h). Compiled where the compiler targets x86-64 (PEBENCH_RNG_LANES).
#pragma once
#include <cstdint>

#include "core/cpu_features.h"
#include "core/rng.h"

namespace pe {

inline bool rng_lanes_enabled() { return avx512dq_enabled(); }

}  // namespace pe

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

#define PEBENCH_RNG_LANES 1
#define PEBENCH_RNG_LANES_TARGET __attribute__((target("avx512f,avx512dq")))

namespace pe::rng_lanes {

// (The zero-masked forms of the intrinsics: GCC 12 warns that the plain ones' undefined pass-through
// value is used uninitialised.)
constexpr __mmask8 kAll = 0xFF;

PEBENCH_RNG_LANES_TARGET inline __m512i srl(__m512i x, unsigned n) { return _mm512_maskz_srli_epi64(kAll, x, n); }

// Rng::next of each lane's counter: splitmix64(c * kCounterMul), in 64-bit lane multiplies.
PEBENCH_RNG_LANES_TARGET inline __m512i next8(__m512i counter) {
  __m512i x = _mm512_mullo_epi64(counter, _mm512_set1_epi64(int64_t(Rng::kCounterMul)));
  x = _mm512_add_epi64(x, _mm512_set1_epi64(int64_t(splitmix::kGamma)));
  x = _mm512_mullo_epi64(_mm512_xor_si512(x, srl(x, splitmix::kShift1)), _mm512_set1_epi64(int64_t(splitmix::kMul1)));
  x = _mm512_mullo_epi64(_mm512_xor_si512(x, srl(x, splitmix::kShift2)), _mm512_set1_epi64(int64_t(splitmix::kMul2)));
  return _mm512_xor_si512(x, srl(x, splitmix::kShift3));
}

// Rng::below(n) of each lane's draw, as doubles (exact): (x >> 33) & (n - 1) for a power of two, else
// (x >> 33) mod n, the remainder exact in doubles since x >> 33 < 2^31. Made once per n, outside a loop.
struct Below8 {
  bool pow2;
  __m512d n;
  __m512i low;
  PEBENCH_RNG_LANES_TARGET explicit Below8(int count)
      : pow2((count & (count - 1)) == 0), n(_mm512_set1_pd(double(count))), low(_mm512_set1_epi64(count - 1)) {}
  PEBENCH_RNG_LANES_TARGET __m512d operator()(__m512i draw) const {
    const __m512i x = srl(draw, Rng::kBelowShift);
    if (pow2) return _mm512_cvtepu64_pd(_mm512_and_si512(x, low));
    const __m512d xd = _mm512_cvtepu64_pd(x);
    return _mm512_fnmadd_pd(_mm512_maskz_roundscale_pd(kAll, _mm512_div_pd(xd, n), _MM_FROUND_TO_NEG_INF), n, xd);
  }
};

// Rng::uniform() of each lane's draw: (x >> 11) 2^-53, exact.
PEBENCH_RNG_LANES_TARGET inline __m512d uniform8(__m512i draw) {
  return _mm512_mul_pd(_mm512_cvtepu64_pd(srl(draw, Rng::kUniformShift)), _mm512_set1_pd(Rng::kUniformScale));
}

}  // namespace pe::rng_lanes

#endif
