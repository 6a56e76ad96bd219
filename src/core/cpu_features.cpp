#include "core/cpu_features.h"

#include <atomic>
#include <cstdlib>
#include <string>

// The AVX2 level needs the build's own target to have AVX2 and FMA (the default x86-64-v3 build);
// AVX-512 code is compiled beside it with GCC's target attribute and run only where the CPU has it.
#if defined(__AVX2__) && defined(__FMA__)
#define PEBENCH_VECTOR_AVX2 1
#endif

namespace pe {

namespace {

VectorLevel detect_level() {
#ifdef PEBENCH_VECTOR_AVX2
  const char* off = std::getenv("PEBENCH_NO_AVX512");
  if (__builtin_cpu_supports("avx512f") && !(off && *off && std::string(off) != "0")) return VectorLevel::Avx512;
  return VectorLevel::Avx2;
#else
  return VectorLevel::Scalar;
#endif
}

std::atomic<int> g_level{-1};

}  // namespace

VectorLevel vector_level() {
  int k = g_level.load(std::memory_order_relaxed);
  if (k < 0) g_level.store(k = int(detect_level()), std::memory_order_relaxed);
  return VectorLevel(k);
}

void set_vector_level(VectorLevel level) {
  if (!vector_level_available(level)) return;
  g_level.store(int(level), std::memory_order_relaxed);
}

bool vector_level_available(VectorLevel level) {
#ifdef PEBENCH_VECTOR_AVX2
  if (level == VectorLevel::Avx512) return __builtin_cpu_supports("avx512f");
  return level == VectorLevel::Avx2;
#else
  return level == VectorLevel::Scalar;
#endif
}

const char* vector_level_name(VectorLevel level) {
  switch (level) {
    case VectorLevel::Avx512:
      return "avx512";
    case VectorLevel::Avx2:
      return "avx2";
    case VectorLevel::Scalar:
      return "scalar";
  }
  return "?";
}

bool avx512dq_enabled() {
#ifdef PEBENCH_VECTOR_AVX2
  static const bool dq = __builtin_cpu_supports("avx512dq");
  return dq && vector_level() == VectorLevel::Avx512;
#else
  return false;
#endif
}

}  // namespace pe
