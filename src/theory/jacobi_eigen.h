// Cyclic Jacobi eigenvalues of a small symmetric matrix, for any real scalar type (double or a
// Boost.Multiprecision float): the eigen-solver that works in the high-precision type.
#pragma once
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace pe::theory {

// a: n x n symmetric, row-major. Returns the eigenvalues in ascending order.
// A rotation is skipped when |a_pq| <= eps sqrt(|a_pp a_qq|) (the relative-accuracy rule for positive
// definite matrices); the sweep loop ends when a whole sweep skips every pair.
template <class T>
std::vector<T> jacobi_eigenvalues(std::vector<T> a, int n) {
  using std::abs;
  using std::sqrt;
  const T eps = std::numeric_limits<T>::epsilon();
  for (int sweep = 0; sweep < 200; ++sweep) {
    bool rotated = false;
    for (int p = 0; p < n; ++p)
      for (int q = p + 1; q < n; ++q) {
        const T apq = a[p * n + q];
        if (apq == 0 || abs(apq) <= eps * sqrt(abs(a[p * n + p] * a[q * n + q]))) continue;
        rotated = true;
        const T theta = (a[q * n + q] - a[p * n + p]) / (2 * apq);
        const T t = (theta >= 0 ? T(1) : T(-1)) / (abs(theta) + sqrt(theta * theta + 1));
        const T c = 1 / sqrt(t * t + 1), s = t * c;
        for (int r = 0; r < n; ++r) {  // columns p, q
          const T arp = a[r * n + p], arq = a[r * n + q];
          a[r * n + p] = c * arp - s * arq;
          a[r * n + q] = s * arp + c * arq;
        }
        for (int r = 0; r < n; ++r) {  // rows p, q
          const T apr = a[p * n + r], aqr = a[q * n + r];
          a[p * n + r] = c * apr - s * aqr;
          a[q * n + r] = s * apr + c * aqr;
        }
      }
    if (!rotated) break;
  }
  std::vector<T> ev(n);
  for (int i = 0; i < n; ++i) ev[i] = a[i * n + i];
  std::sort(ev.begin(), ev.end());
  return ev;
}

}  // namespace pe::theory
