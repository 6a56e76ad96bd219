// Window conditioning (docs/analyses.md): the condition number of the d x W matrix whose columns are p(m),
// m = 0..W-1, computed in ~210-digit arithmetic as sqrt(lambda_max / lambda_min) of its d x d Gram.
#pragma once
#include <nlohmann/json.hpp>
#include <vector>

#include "theory/jacobi_eigen.h"
#include "theory/multiprecision.h"

namespace pe::theory {

// G = sum_{m<W} p(m) p(m)^T in scalar type T (d x d row-major). theta_j = base^(-2j/d) and one sin/cos
// per plane are evaluated in T; p(m) follows by exact-in-T complex multiplication (error ~ m ulps of T).
template <class T>
std::vector<T> window_gram(int d, int window, double base) {
  using std::cos;
  using std::pow;
  using std::sin;
  const int h = d / 2;
  std::vector<T> c1(h), s1(h), c(h, T(1)), s(h, T(0));
  for (int j = 0; j < h; ++j) {
    const T theta = pow(T(base), T(-2 * j) / T(d));
    c1[j] = cos(theta);
    s1[j] = sin(theta);
  }
  std::vector<T> G(size_t(d) * d, T(0)), p(d);
  for (int m = 0; m < window; ++m) {
    for (int j = 0; j < h; ++j) p[2 * j] = s[j], p[2 * j + 1] = c[j];
    for (int a = 0; a < d; ++a)
      for (int b = a; b < d; ++b) G[a * d + b] += p[a] * p[b];
    for (int j = 0; j < h; ++j) {  // (c, s) <- (c, s) * (c1, s1): angle m theta -> (m+1) theta
      const T cn = c[j] * c1[j] - s[j] * s1[j];
      s[j] = s[j] * c1[j] + c[j] * s1[j];
      c[j] = cn;
    }
  }
  for (int a = 0; a < d; ++a)
    for (int b = 0; b < a; ++b) G[a * d + b] = G[b * d + a];
  return G;
}

// Singular values (descending) of the d x W window matrix, in T.
template <class T>
std::vector<T> window_singular_values(int d, int window, double base) {
  auto ev = jacobi_eigenvalues(window_gram<T>(d, window, base), d);
  std::vector<T> sv;
  for (auto it = ev.rbegin(); it != ev.rend(); ++it) sv.push_back(sqrt(*it));
  return sv;
}

// {"d":16, "precision_bits", "rows":[{"window", "cond", "log10_cond", "cond_digits", ...}],
//  "numerical_rank_double": {...}} for W in {16, 64, 256, 4096}.
nlohmann::json window_conditioning_report();

}  // namespace pe::theory
