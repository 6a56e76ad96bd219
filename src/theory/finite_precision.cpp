#include "theory/finite_precision.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <vector>

#include "core/frequencies.h"
#include "theory/sinusoidal_geometry.h"

namespace pe::theory {

double round_to_format(double x, const FloatFormat& f) {
  if (x == 0.0 || !std::isfinite(x)) return x;
  std::uint64_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  const bool neg = bits >> 63;
  const int biased = int((bits >> 52) & 0x7ff);
  const double zero = neg ? -0.0 : 0.0;
  if (biased == 0) return zero;  // double subnormals lie far below every target's smallest subnormal
  const std::uint64_t mant = (bits & ((std::uint64_t(1) << 52) - 1)) | (std::uint64_t(1) << 52);
  const int e = biased - 1023;  // |x| = mant * 2^(e - 52)
  // low bits to drop: keep `precision` bits, fewer where the result is subnormal in the target
  int drop = 53 - f.precision + (e < f.emin ? f.emin - e : 0);
  if (drop > 63) return zero;
  std::uint64_t q = mant >> drop;
  const std::uint64_t rem = mant & ((std::uint64_t(1) << drop) - 1), half = std::uint64_t(1) << (drop - 1);
  if (rem > half || (rem == half && (q & 1))) ++q;  // nearest, ties to even
  double y = std::ldexp(double(q), e - 52 + drop);
  if (y >= std::ldexp(1.0, f.emax + 1)) y = std::numeric_limits<double>::infinity();
  return neg ? -y : y;
}

long long first_aliasing_integer(const FloatFormat& f, long long limit) {
  double prev = round_to_format(0.0, f);
  for (long long n = 1; n <= limit; ++n) {
    const double cur = round_to_format(double(n), f);
    if (cur == prev) return n;
    prev = cur;
  }
  return -1;
}

namespace {

struct Candidate {
  double approx;
  int i, j;
};

}  // namespace

RowDistance min_row_distance(const Eigen::MatrixXd& X) {
  const int N = int(X.rows()), d = int(X.cols());
  const Eigen::VectorXd sq = X.rowwise().squaredNorm();
  // |approx - exact| <= (d + 2) eps (|a|^2 + |b|^2) (a generous bound on the dot product's rounding)
  const double err = (d + 2) * std::numeric_limits<double>::epsilon() * 2.0 * sq.maxCoeff();
  const double margin = std::max(1e-9, 4.0 * err);
  const int B = 512, nb = (N + B - 1) / B;
  std::vector<std::pair<int, int>> blocks;
  for (int bi = 0; bi < nb; ++bi)
    for (int bj = bi; bj < nb; ++bj) blocks.push_back({bi, bj});
  std::vector<double> block_min(blocks.size(), INFINITY);
  std::vector<std::vector<Candidate>> block_cands(blocks.size());
  Eigen::initParallel();  // Eigen products run concurrently in the threads below
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic)
#endif
  for (int p = 0; p < int(blocks.size()); ++p) {
    const int i0 = blocks[p].first * B, j0 = blocks[p].second * B;
    const int ni = std::min(B, N - i0), nj = std::min(B, N - j0);
    const Eigen::MatrixXd G = X.middleRows(i0, ni) * X.middleRows(j0, nj).transpose();
    double mn = INFINITY;
    std::vector<Candidate>& cands = block_cands[p];
    for (int b = 0; b < nj; ++b)
      for (int a = 0; a < ni; ++a) {
        const int i = i0 + a, j = j0 + b;
        if (j <= i) continue;
        const double d2 = sq(i) + sq(j) - 2.0 * G(a, b);
        if (d2 > mn + margin) continue;
        if (d2 < mn) {
          mn = d2;
          std::erase_if(cands, [&](const Candidate& c) { return c.approx > mn + margin; });
        }
        cands.push_back({d2, i, j});
      }
    block_min[p] = mn;
  }
  const double global = *std::min_element(block_min.begin(), block_min.end());
  RowDistance out;
  out.margin = margin;
  out.certified = margin > 2.0 * err;
  double best = INFINITY;
  for (const auto& cands : block_cands)
    for (const Candidate& c : cands) {
      if (c.approx > global + margin) continue;
      ++out.candidates;
      const double d2 = (X.row(c.i) - X.row(c.j)).squaredNorm();
      if (d2 < best || (d2 == best && (c.j < out.n || (c.j == out.n && c.i < out.m))))
        best = d2, out.m = c.i, out.n = c.j;
    }
  out.min_distance = std::sqrt(best);
  return out;
}

RowCollisions identical_rows(const Eigen::MatrixXd& X) {
  RowCollisions out;
  std::map<std::vector<double>, int> seen;
  for (int n = 0; n < int(X.rows()); ++n) {
    std::vector<double> row(X.cols());
    for (int c = 0; c < int(X.cols()); ++c) row[c] = X(n, c) == 0.0 ? 0.0 : X(n, c);  // -0 == +0
    const auto [it, inserted] = seen.emplace(std::move(row), n);
    if (!inserted) {
      ++out.repeated_rows;
      if (out.n < 0) out.m = it->second, out.n = n;
    }
  }
  return out;
}

namespace {

Eigen::MatrixXd round_all(const Eigen::MatrixXd& P, const FloatFormat& f) {
  return P.unaryExpr([&f](double v) { return round_to_format(v, f); });
}

}  // namespace

Eigen::MatrixXd stored_sinusoidal_table(int positions, int d, double base, const FloatFormat* f) {
  const Eigen::MatrixXd P = sinusoidal_matrix(positions, d, base);
  return f ? round_all(P, *f) : P;
}

nlohmann::json finite_precision_report(int positions, int d) {
  const std::vector<FloatFormat> formats = {kBfloat16, kFloat16, kFloat32};
  nlohmann::json scalars = nlohmann::json::array();
  for (const auto& f : formats) {
    const long long n = first_aliasing_integer(f);
    scalars.push_back({{"dtype", f.name},
                       {"significand_bits", f.precision},
                       {"first_aliasing_position", n},
                       {"aliases_with", n - 1},
                       {"stored_value", round_to_format(double(n), f)}});
  }
  const double base = pe::kDefaultBase;
  // the unrounded reference: ||p(m) - p(n)||^2 = d - 2 kappa_d(n - m), over offsets 1..positions-1
  double ref2 = INFINITY;
  int ref_offset = -1;
  for (int delta = 1; delta < positions; ++delta) {
    const double v = d - 2.0 * stationary_kernel(delta, d, base);
    if (v < ref2) ref2 = v, ref_offset = delta;
  }
  const Eigen::MatrixXd P = sinusoidal_matrix(positions, d, base);  // computed in double once
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& f : formats) {
    const Eigen::MatrixXd X = round_all(P, f);
    const RowDistance rd = min_row_distance(X);
    const RowCollisions rc = identical_rows(X);
    nlohmann::json first = nullptr;
    if (rc.n >= 0) first = {rc.m, rc.n};
    rows.push_back({{"dtype", f.name},
                    {"min_distance", rd.min_distance},
                    {"min_pair", {rd.m, rd.n}},
                    {"rechecked_candidates", rd.candidates},
                    {"certified", rd.certified},
                    {"repeated_rows", rc.repeated_rows},
                    {"first_colliding_pair", first}});
  }
  return {{"scalar_aliasing", scalars},
          {"table",
           {{"d", d},
            {"base", base},
            {"positions", positions},
            {"unrounded_min_distance", std::sqrt(std::max(0.0, ref2))},
            {"unrounded_min_offset", ref_offset},
            {"rows", rows}}}};
}

}  // namespace pe::theory
