// CoPE (schemes/cope.h): the scores against the paper's formula written out here pair by pair (gates, the
// count from each key to the query, clamping, the interpolation between two rows); the dense path's block
// hooks against the row hooks where every row's keys are one run, and its fall-back to the row hooks
// where they are not (interleaved documents); no position read at all; looked-up scores refused.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/errors.h"
#include "core/params.h"
#include "core/rng.h"
#include "models/attention.h"
#include "schemes/forwarding.h"
#include "schemes/scheme.h"

using namespace pe;

namespace cope_test {

constexpr int kT = 12, kH = 2, kD = 8, kW = kH * kD;

SchemeConfig config(int positions) {
  SchemeConfig c;
  c.name = "cope";
  c.n_heads = kH, c.d_head = kD, c.d_model = kW, c.n_layers = 1, c.train_length = 8;
  c.settings = {{"cope_positions", positions}};
  return c;
}

std::vector<double> random_rows(size_t n, uint64_t seed, double scale = 1.0) {
  Rng rng(seed);
  std::vector<double> x(n);
  for (auto& v : x) v = scale * rng.normal();
  return x;
}

struct Layer {
  std::unique_ptr<Scheme<double>> scheme;
  ParamLayout layout;
  std::vector<double> params;
  explicit Layer(int positions) : scheme(make_scheme<double>(config(positions))) {
    scheme->declare(layout);
    params = random_rows(layout.total(), 9);
  }
  CParamView<double> P() const { return {params.data(), &layout}; }
};

// The scores of query i of head h as the paper writes them: z_j = q.k_j / sqrt(d), g_j = sigmoid(z_j),
// p_j = min(sum_{u=j..i} g_u, P - 1), score_j = z_j + (q.E[floor p_j] (1 - a) + q.E[ceil p_j] a) / sqrt(d).
std::vector<double> by_hand(const std::vector<double>& Q, const std::vector<double>& K, const double* E, int P, int i,
                            int h) {
  const double* q = &Q[size_t(i) * kW + size_t(h) * kD];
  auto dot = [&](const double* a, const double* b) {
    double s = 0;
    for (int c = 0; c < kD; ++c) s += a[c] * b[c];
    return s;
  };
  std::vector<double> z(i + 1), out(i + 1);
  for (int j = 0; j <= i; ++j) z[j] = dot(q, &K[size_t(j) * kW + size_t(h) * kD]) / std::sqrt(double(kD));
  for (int j = 0; j <= i; ++j) {
    double p = 0;
    for (int u = j; u <= i; ++u) p += 1.0 / (1.0 + std::exp(-z[u]));
    p = std::min(p, double(P - 1));
    const int f = int(std::floor(p)), c = int(std::ceil(p));
    const double a = p - f;
    out[j] = z[j] + ((1 - a) * dot(q, E + size_t(f) * kD) + a * dot(q, E + size_t(c) * kD)) / std::sqrt(double(kD));
  }
  return out;
}

}  // namespace cope_test

using namespace cope_test;

TEST_CASE("cope: every causal score is the paper's, with counts clamped at P - 1 and without") {
  for (int P : {4, 13}) {  // 4: the far keys' counts clamp; 13: none of the 12 does
    const Layer l(P);
    const std::vector<double> Q = random_rows(size_t(kT) * kW, 1), K = random_rows(size_t(kT) * kW, 2);
    std::vector<int> pos(kT);
    for (int t = 0; t < kT; ++t) pos[t] = t;
    std::vector<double> scores(size_t(kH) * kT * kT);
    attention_scores(AttnShape{1, kT, kT, kH, kD}, Q.data(), K.data(), Coordinates{pos.data(), pos.data()}, *l.scheme,
                     l.P(), scores.data());
    double worst = 0;
    int clamped = 0;
    for (int h = 0; h < kH; ++h)
      for (int i = 0; i < kT; ++i) {
        const auto want = by_hand(Q, K, l.params.data(), P, i, h);
        for (int j = 0; j <= i; ++j) worst = std::max(worst, std::abs(scores[(size_t(h) * kT + i) * kT + j] - want[j]));
        clamped += i + 1 >= P;
      }
    INFO("P ", P);
    CHECK(worst < 1e-12);
    CHECK((clamped > 0) == (P == 4));
  }
}

TEST_CASE("cope: no position is read (shifting them all leaves every score), and a score table is refused") {
  const Layer l(6);
  const std::vector<double> Q = random_rows(size_t(kT) * kW, 3), K = random_rows(size_t(kT) * kW, 4);
  std::vector<int> pos(kT), shifted(kT);
  for (int t = 0; t < kT; ++t) pos[t] = t, shifted[t] = t + 1000;
  std::vector<double> a(size_t(kH) * kT * kT), b(a.size());
  const AttnShape sh{1, kT, kT, kH, kD};
  attention_scores(sh, Q.data(), K.data(), Coordinates{pos.data(), pos.data()}, *l.scheme, l.P(), a.data());
  attention_scores(sh, Q.data(), K.data(), Coordinates{shifted.data(), shifted.data()}, *l.scheme, l.P(), b.data());
  CHECK(a == b);
  CHECK(l.scheme->contextual_scores());
  // looked-up scores: one per key, which a count of the keys between cannot be
  const AttnShape one{1, 1, kT, 1, kD};
  std::vector<int> index(kT), q1{kT - 1};
  for (int t = 0; t < kT; ++t) index[t] = t;
  std::vector<double> table(kT, 0.0), V = random_rows(size_t(kT) * kD, 5), out(kD), probs(kT);
  CHECK_THROWS_AS(attention_forward(one, Q.data(), K.data(), V.data(), Coordinates{q1.data(), pos.data()}, *l.scheme,
                                    l.P(), probs.data(), out.data(), index.data(), AttnTables<double>{},
                                    ScoreLookup<double>{table.data(), nullptr}),
                  Error);
}

TEST_CASE("cope: the dense path where rows see one run of keys (block hooks) and where they do not (row hooks)") {
  const Layer l(7);
  const int B = 2, T = 40;
  const size_t n = size_t(B) * T * kW;
  const std::vector<double> Q = random_rows(n, 6), K = random_rows(n, 7), V = random_rows(n, 8), dO = random_rows(n, 9);
  std::vector<int> pos(size_t(B) * T), docs(size_t(B) * T);
  for (int b = 0; b < B; ++b)
    for (int t = 0; t < T; ++t) pos[size_t(b) * T + t] = t, docs[size_t(b) * T + t] = b == 0 ? 0 : t % 2;
  // sequence 0: one document (each row's keys a run); sequence 1: two interleaved (no row's keys a run)
  const Coordinates at{pos.data(), pos.data(), Visibility{}, true, docs.data(), docs.data()};
  // the same scheme behind a wrapper (the failure lab's faults) undoes its blocks without the in-place hook
  ForwardingScheme<double> wrapped(make_scheme<double>(config(7)));
  ParamLayout same;
  wrapped.declare(same);  // the same tensors as l's
  REQUIRE(same.total() == l.layout.total());
  auto run = [&](AttnPath path, const Scheme<double>& scheme) {
    std::vector<double> out(n), probs(size_t(B) * kH * T * T), dQ(n, 0.0), dK(n, 0.0), dV(n, 0.0);
    std::vector<double> grad(l.layout.total(), 0.0);
    const AttnShape sh{B, T, T, kH, kD};
    attention_forward(sh, Q.data(), K.data(), V.data(), at, scheme, l.P(), probs.data(), out.data(), nullptr,
                      AttnTables<double>{}, ScoreLookup<double>{}, path);
    attention_backward(sh, Q.data(), K.data(), V.data(), at, *l.scheme, l.P(),
                       ParamView<double>{grad.data(), &l.layout}, probs.data(), dO.data(), dQ.data(), dK.data(),
                       dV.data(), nullptr, AttnTables<double>{}, ScoreLookup<double>{}, path);
    out.insert(out.end(), dQ.begin(), dQ.end());
    out.insert(out.end(), dK.begin(), dK.end());
    out.insert(out.end(), grad.begin(), grad.end());
    return out;
  };
  const auto rows = run(AttnPath::rows, *l.scheme);
  for (const Scheme<double>* scheme :
       {static_cast<const Scheme<double>*>(l.scheme.get()), static_cast<const Scheme<double>*>(&wrapped)}) {
    const auto dense = run(AttnPath::dense, *scheme);
    double worst = 0, scale = 0;
    for (size_t i = 0; i < dense.size(); ++i)
      worst = std::max(worst, std::abs(dense[i] - rows[i])), scale = std::max(scale, std::abs(rows[i]));
    CHECK(scale > 0);
    CHECK(worst <= 1e-12 * scale);
  }
}
