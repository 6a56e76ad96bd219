// Finite precision (docs/analyses.md): where stored position scalars alias, and how close two rows of a
// sinusoidal table come once it is stored in bfloat16 / float16 / float32. Rounding is emulated in
// software (round to nearest, ties to even) straight from a double's bits: no special hardware.
#pragma once
#include <Eigen/Dense>
#include <nlohmann/json.hpp>
#include <string>

namespace pe::theory {

// A binary IEEE-style format: `precision` significand bits (implicit bit included), normal exponents
// emin..emax; subnormals below 2^emin, overflow to infinity.
struct FloatFormat {
  std::string name;
  int precision;
  int emin, emax;
};
inline const FloatFormat kBfloat16{"bfloat16", 8, -126, 127};
inline const FloatFormat kFloat16{"float16", 11, -14, 15};
inline const FloatFormat kFloat32{"float32", 24, -126, 127};

// x rounded to the nearest value of `f` (ties to even), returned as a double (exactly representable).
double round_to_format(double x, const FloatFormat& f);

// The first integer n >= 1 whose stored value equals that of n-1 (rounding is monotone, so this is the
// first integer position that aliases an earlier one); -1 if none up to `limit`.
long long first_aliasing_integer(const FloatFormat& f, long long limit = (1LL << 40));

// Smallest Euclidean distance between two distinct rows of X (N x d): Gram trick
// ||a-b||^2 = |a|^2 + |b|^2 - 2ab over row blocks, then every pair within `margin` of the smallest
// approximate value is recomputed directly. certified: margin exceeds twice a bound on the Gram
// route's rounding error, so the true minimum is among the rechecked pairs.
struct RowDistance {
  double min_distance = 0.0;
  int m = -1, n = -1;
  long long candidates = 0;
  double margin = 0.0;
  bool certified = false;
};
RowDistance min_row_distance(const Eigen::MatrixXd& X);

// Exactly identical rows: the number of rows equal to an earlier row, and the first such pair
// (smallest n, then its earliest m; -1, -1 if none).
struct RowCollisions {
  long long repeated_rows = 0;
  int m = -1, n = -1;
};
RowCollisions identical_rows(const Eigen::MatrixXd& X);

// [positions x d] sinusoidal table computed in double, each entry rounded to `f` (nullptr: unrounded).
Eigen::MatrixXd stored_sinusoidal_table(int positions, int d, double base, const FloatFormat* f);

// Scalar aliasing for the three formats, and the table over positions 0..positions-1 at width d.
nlohmann::json finite_precision_report(int positions = 8192, int d = 512);

}  // namespace pe::theory
