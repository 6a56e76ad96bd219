// Counter-based random numbers: every stream is named by integers (seed, purpose, step, index), so
// the numbers a sequence gets never depend on thread count or on the order work is scheduled.
#pragma once
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include "core/math.h"

namespace pe {

inline uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

// Hash a list of integers into one 64-bit key.
inline uint64_t stream_key(std::initializer_list<uint64_t> parts) {
  uint64_t h = 0x243F6A8885A308D3ULL;
  for (uint64_t p : parts) h = splitmix64(h ^ splitmix64(p));
  return h;
}

// Stream purposes (part of every key, so streams never overlap).
enum StreamTag : uint64_t { kTagInit = 1, kTagTrain = 2, kTagTest = 3, kTagCheck = 4 };

class Rng {
 public:
  explicit Rng(uint64_t key) : state_(key) {}
  uint64_t next() { return splitmix64(state_++ * 0xD1B54A32D192ED03ULL); }
  // Uniform in [0, 1) with 53 random bits.
  double uniform() { return double(next() >> 11) * 0x1.0p-53; }
  // Uniform integer in [0, n). (For n a power of two the remainder is a mask: the same numbers,
  // without a 64-bit division.)
  int below(int n) {
    const uint64_t x = next() >> 33;
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
