// Window conditioning in ~210-digit arithmetic: the Jacobi solver on a matrix with known spectrum, the
// summed Gram against closed-form trigonometric sums, det = product of eigenvalues, and agreement with
// a 1000-bit computation.
// GCC 12 at -O3 reports a false -Warray-bounds inside Boost.Multiprecision's fixed-width integer code
// when it inlines the 700-bit type into this file's helpers; silence it before any Boost header.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Warray-bounds"
#endif
#include <doctest/doctest.h>

#include <Eigen/Dense>

#include "core/frequencies.h"
#include "theory/sinusoidal_geometry.h"
#include "theory/window_conditioning.h"

using namespace pe::theory;

namespace {

template <class T>
T sum_cos(const T& x, int N) {  // sum_{m<N} cos(m x)
  return x == 0 ? T(N) : T(sin(N * x / 2) * cos((N - 1) * x / 2) / sin(x / 2));
}
template <class T>
T sum_sin(const T& x, int N) {
  return x == 0 ? T(0) : T(sin(N * x / 2) * sin((N - 1) * x / 2) / sin(x / 2));
}

// The window Gram from product-to-sum identities: no summation over m at all.
template <class T>
std::vector<T> closed_form_gram(int d, int N, double base) {
  std::vector<T> G(d * d), th(d / 2);
  for (int j = 0; j < d / 2; ++j) th[j] = pow(T(base), T(-2 * j) / T(d));
  for (int a = 0; a < d; ++a)
    for (int c = 0; c < d; ++c) {
      const T x = th[a / 2], y = th[c / 2];
      const bool sa = a % 2 == 0, sc = c % 2 == 0;
      T v;
      if (sa && sc)
        v = (sum_cos(T(x - y), N) - sum_cos(T(x + y), N)) / 2;
      else if (!sa && !sc)
        v = (sum_cos(T(x - y), N) + sum_cos(T(x + y), N)) / 2;
      else if (sa)
        v = (sum_sin(T(x + y), N) + sum_sin(T(x - y), N)) / 2;
      else
        v = (sum_sin(T(x + y), N) + sum_sin(T(y - x), N)) / 2;
      G[a * d + c] = v;
    }
  return G;
}

// Determinant by Gaussian elimination with partial pivoting.
template <class T>
T determinant(std::vector<T> a, int n) {
  T det = 1;
  for (int k = 0; k < n; ++k) {
    int p = k;
    for (int i = k + 1; i < n; ++i)
      if (abs(a[i * n + k]) > abs(a[p * n + k])) p = i;
    if (p != k) {
      for (int c = 0; c < n; ++c) std::swap(a[k * n + c], a[p * n + c]);
      det = -det;
    }
    det *= a[k * n + k];
    for (int i = k + 1; i < n; ++i) {
      const T f = a[i * n + k] / a[k * n + k];
      for (int c = k; c < n; ++c) a[i * n + c] -= f * a[k * n + c];
    }
  }
  return det;
}

}  // namespace

TEST_CASE("theory: multiprecision Jacobi recovers a spectrum spanning 60 decades") {
  const int n = 8;
  std::vector<HighFloat> lam(n), v(n);
  for (int i = 0; i < n; ++i) lam[i] = pow(HighFloat(10), -9 * i), v[i] = HighFloat(i + 1) / 7 - 1;
  // A = H diag(lam) H, H = I - 2 v v^T / v^T v (a Householder reflection)
  HighFloat vv = 0;
  for (auto& x : v) vv += x * x;
  std::vector<HighFloat> H(n * n), A(n * n, HighFloat(0));
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) H[i * n + j] = (i == j ? 1 : 0) - 2 * v[i] * v[j] / vv;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      for (int k = 0; k < n; ++k) A[i * n + j] += H[i * n + k] * lam[k] * H[k * n + j];
  const auto ev = jacobi_eigenvalues(A, n);  // ascending
  for (int i = 0; i < n; ++i) CHECK(abs(ev[i] / lam[n - 1 - i] - 1) < HighFloat(1e-120));
}

TEST_CASE("theory: window Gram, eigenvalues and condition numbers are exact to many digits") {
  const int d = 16;
  const double b = 10000;
  for (int W : {16, 64, 256}) {
    const auto G = window_gram<HighFloat>(d, W, b);
    const auto Gc = closed_form_gram<HighFloat>(d, W, b);
    HighFloat worst = 0;
    for (int i = 0; i < d * d; ++i) worst = std::max(worst, HighFloat(abs(G[i] - Gc[i])));
    CHECK(worst < HighFloat(1e-190));
    const auto ev = jacobi_eigenvalues(G, d);
    HighFloat tr = 0, prod = 1;
    for (const auto& x : ev) tr += x, prod *= x;
    CHECK(abs(tr - HighFloat(W * d / 2)) < HighFloat(1e-190));     // trace = sum ||p(m)||^2
    CHECK(abs(prod / determinant(G, d) - 1) < HighFloat(1e-100));  // det = product: pins lambda_min
    CHECK(ev.front() > 0);
  }
  // the same condition numbers at 1000 bits agree with the 700-bit ones to > 100 digits
  for (int W : {16, 64}) {
    const auto s7 = window_singular_values<HighFloat>(d, W, b);
    const auto s10 = window_singular_values<BinFloat<1000>>(d, W, b);
    const BinFloat<1000> c7(s7.front() / s7.back()), c10 = s10.front() / s10.back();
    CHECK(abs(c7 / c10 - 1) < BinFloat<1000>(1e-100));
  }
}

TEST_CASE("theory: window conditioning report") {
  const auto j = window_conditioning_report();
  CHECK(j["decimal_digits"].get<int>() >= 200);
  const auto& rows = j["rows"];
  REQUIRE(rows.size() == 4);
  // well-conditioned window: double SVD is reliable there and must agree
  CHECK(rows[3]["cond"].get<double>() == doctest::Approx(rows[3]["double_svd_cond"].get<double>()).epsilon(1e-9));
  // smaller windows are worse conditioned; at W = 16 double precision is off by orders of magnitude
  for (int i = 0; i < 3; ++i) CHECK(rows[i]["cond"].get<double>() > rows[i + 1]["cond"].get<double>());
  CHECK(rows[0]["cond"].get<double>() > 1e6 * rows[0]["double_svd_cond"].get<double>());
  // numerical rank: recount from the reported singular values and tolerance
  const auto& nr = j["numerical_rank_double"];
  int rank = 0;
  for (const auto& s : nr["singular_values_double"]) rank += s.get<double>() > nr["tolerance"].get<double>();
  CHECK(nr["rank"] == rank);
  CHECK(rank < 16);
  // the exact singular values reproduce sigma_max / sigma_min of the W = 64 row
  const auto& ex = nr["singular_values_exact"];
  CHECK(ex[0].get<double>() / ex[15].get<double>() == doctest::Approx(rows[1]["cond"].get<double>()).epsilon(1e-12));
}
