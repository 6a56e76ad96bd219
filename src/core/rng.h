// Counter-based random numbers: every stream is named by integers (seed, purpose, step, index), so
// the numbers a sequence gets never depend on thread count or on the order work is scheduled.
#pragma once
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include "core/math.h"

namespace pe {

// splitmix64's constants (core/rng_lanes.h computes the same hash eight lanes at a time from them).
namespace splitmix {
inline constexpr uint64_t kGamma = 0x9E3779B97F4A7C15ULL, kMul1 = 0xBF58476D1CE4E5B9ULL, kMul2 = 0x94D049BB133111EBULL;
inline constexpr int kShift1 = 30, kShift2 = 27, kShift3 = 31;
}  // namespace splitmix

inline uint64_t splitmix64(uint64_t x) {
  x += splitmix::kGamma;
  x = (x ^ (x >> splitmix::kShift1)) * splitmix::kMul1;
  x = (x ^ (x >> splitmix::kShift2)) * splitmix::kMul2;
  return x ^ (x >> splitmix::kShift3);
}

// Hash a list of integers into one 64-bit key.
inline uint64_t stream_key(std::initializer_list<uint64_t> parts) {
  uint64_t h = 0x243F6A8885A308D3ULL;
  for (uint64_t p : parts) h = splitmix64(h ^ splitmix64(p));
  return h;
}

// Stream purposes (part of every key, so streams never overlap).
enum StreamTag : uint64_t { kTagInit = 1, kTagTrain = 2, kTagTest = 3, kTagCheck = 4 };

// Draw j of the stream named key is splitmix64((key + j) * kCounterMul): any draw can be made
// without the ones before it (core/rng_lanes.h makes eight at once).
class Rng {
 public:
  static constexpr uint64_t kCounterMul = 0xD1B54A32D192ED03ULL;
  static constexpr int kUniformShift = 11;  // uniform(): the top 53 bits of a draw, times 2^-53
  static constexpr double kUniformScale = 0x1.0p-53;
  static constexpr int kBelowShift = 33;  // below(n): the top 31 bits of a draw, mod n

  explicit Rng(uint64_t key) : state_(key) {}
  uint64_t next() { return splitmix64(state_++ * kCounterMul); }
  // Uniform in [0, 1) with 53 random bits.
  double uniform() { return double(next() >> kUniformShift) * kUniformScale; }
  // Uniform integer in [0, n). (For n a power of two the remainder is a mask: the same numbers,
  // without a 64-bit division.)
  int below(int n) {
    const uint64_t x = next() >> kBelowShift;
    return (n & (n - 1)) == 0 ? int(x & uint64_t(n - 1)) : int(x % uint64_t(n));
  }
  // Standard normal by Box-Muller (one value per call, deterministic).
  double normal() {
    const double u1 = 1.0 - uniform(), u2 = uniform();
    return std::sqrt(-2.0 * math::log(u1)) * math::cos(2.0 * M_PI * u2);
  }

 private:
  uint64_t state_;
};

}  // namespace pe
