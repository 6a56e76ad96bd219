#include "theory/exact_reader.h"

#include <cmath>
#include <vector>

#include "core/errors.h"
#include "core/math.h"

namespace pe {

namespace {

// P(every symbol count <= m) for K uniform draws over A symbols, for all K = 0..Kmax at once.
// g_s(k) = sum_{c=0}^{min(m,k)} C(k,c) (1/A)^c g_{s-1}(k-c), g_0 = [k == 0]; answer g_A(k).
// Each term is a probability mass, so everything stays in [0, 1]: no overflow at K = 255.
// w[k][c] = C(k,c) (1/A)^c.
std::vector<double> prob_all_at_most(int m, int Kmax, int A, const std::vector<std::vector<double>>& w) {
  std::vector<double> g(Kmax + 1, 0.0), next(Kmax + 1);
  g[0] = 1.0;
  for (int s = 0; s < A; ++s) {
    for (int k = 0; k <= Kmax; ++k) {
      double acc = 0.0;
      for (int c = 0; c <= std::min(m, k); ++c) {
        if (g[k - c] == 0.0) continue;
        acc += w[k][c] * g[k - c];
      }
      next[k] = acc;
    }
    std::swap(g, next);
  }
  return g;
}

std::vector<std::vector<double>> draw_weights(int N, int A) {
  std::vector<std::vector<double>> W(N + 1);
  const double logp = -math::log(double(A));
  const std::vector<double> lf = math::log_factorials(N);
  for (int k = 0; k <= N; ++k) {
    W[k].resize(k + 1);
    for (int c = 0; c <= k; ++c) W[k][c] = math::exp(lf[k] - lf[c] - lf[k - c] + c * logp);
  }
  return W;
}

// E[max count | K] for K = 0..Kmax: sum_{m>=0} (1 - P(max <= m)).
std::vector<double> expected_max(int Kmax, int A) {
  const auto w = draw_weights(Kmax, A);
  std::vector<double> e(Kmax + 1, 0.0);
  for (int m = 0; m < Kmax; ++m) {
    const auto p = prob_all_at_most(m, Kmax, A, w);
    for (int K = m + 1; K <= Kmax; ++K) e[K] += 1.0 - p[K];
  }
  return e;
}

}  // namespace

double cue_accuracy_given_marks(int K, int alphabet) {
  if (K < 1 || alphabet < 1) throw UsageError("cue_accuracy_given_marks: need K >= 1 and alphabet >= 1");
  return expected_max(K, alphabet)[K] / K;
}

double cue_best_reader_without_positions(int n, int alphabet, double mark_prob) {
  if (n < 2) throw UsageError("cue task: a sequence needs at least 2 tokens (one content token and the query)");
  const int N = n - 1;  // content tokens
  const auto emax = expected_max(N, alphabet);
  const std::vector<double> lf = math::log_factorials(N);
  double acc = 0.0;
  for (int K = 0; K <= N; ++K) {
    const double logpk = lf[N] - lf[K] - lf[N - K] + (K > 0 ? K * math::log(mark_prob) : 0.0) +
                         (N - K > 0 ? (N - K) * math::log1p(-mark_prob) : 0.0);
    const int Keff = std::max(K, 1);  // no mark: one forced mark, always read right
    const double em = (K == 0) ? 1.0 : emax[K];
    acc += math::exp(logpk) * em / Keff;
  }
  return acc;
}

}  // namespace pe
