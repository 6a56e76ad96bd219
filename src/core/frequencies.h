// Plane frequencies shared by the sinusoidal code, RoPE and the analyses (schemes.md conventions).
#pragma once
#include <cmath>
#include <vector>
#include "core/math.h"

namespace pe {

inline constexpr double kDefaultBase = 10000.0;

// theta_j = base^(-2j/d) for plane j = 0 .. d/2-1 (planes are adjacent coordinate pairs 2j, 2j+1).
inline double plane_frequency(int j, int d, double base = kDefaultBase) { return math::pow(base, -2.0 * j / d); }

// lambda_j = 2 pi / theta_j.
inline double plane_wavelength(int j, int d, double base = kDefaultBase) {
  return 2.0 * M_PI / plane_frequency(j, d, base);
}

// The sinusoidal code p(m): p[2j] = sin(m theta_j), p[2j+1] = cos(m theta_j) (sine first), in double.
inline void sinusoidal_code(double m, int d, double base, double* out) {
  for (int j = 0; j < d / 2; ++j) {
    const double a = m * plane_frequency(j, d, base);
    out[2 * j] = math::sin(a);
    out[2 * j + 1] = math::cos(a);
  }
}

}  // namespace pe
