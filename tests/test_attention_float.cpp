// The float attention path the character LM runs (AttnPath::dense: query blocks, GEMMs, 8 x 8 register
// transposes, softmax written straight into the probabilities) against the same layer in double
// precision; and the looked-up scores path (AttnPath::lookup) eight sequences at a time against one.
// (Each path against the reference row path: tests/test_attention_paths.cpp.)
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "core/params.h"
#include "core/rng.h"
#include "models/attention.h"

using namespace pe;

namespace {
template <class S>
struct Run {
  std::vector<S> out, probs, dQ, dK, dV;
};

template <class S>
Run<S> run_attention(const std::string& scheme_name, const Visibility& vis, int B, int T, int H, int dh) {
  SchemeConfig c;
  c.name = scheme_name;
  c.d_model = H * dh;
  c.n_heads = H;
  c.d_head = dh;
  auto scheme = make_scheme<S>(c);
  ParamLayout layout;
  scheme->declare(layout);
  std::vector<S> params(layout.total() + 1, S(0)), grad(layout.total() + 1, S(0));
  Run<S> r;
  const size_t n = size_t(B) * T * H * dh;
  Rng rng(11);
  auto fill = [&](std::vector<S>& v) {
    v.resize(n);
    for (auto& x : v) x = S(float(rng.normal()));  // the same values in both precisions
  };
  std::vector<S> Q, K, V, dO;
  fill(Q), fill(K), fill(V), fill(dO);
  std::vector<int> pos(T);
  for (int t = 0; t < T; ++t) pos[t] = 3 + t;
  scheme->prepare(3 + T);
  const AttnShape sh{B, T, T, H, dh};
  r.out.assign(n, S(0)), r.probs.assign(size_t(B) * H * T * T, S(-1));  // -1: not written
  r.dQ.assign(n, S(0)), r.dK.assign(n, S(0)), r.dV.assign(n, S(0));
  const CParamView<S> P{params.data(), &layout};
  attention_forward(sh, Q.data(), K.data(), V.data(), Coordinates{pos.data(), pos.data(), vis}, *scheme, P,
                    r.probs.data(), r.out.data(), nullptr, {}, {}, AttnPath::dense);
  attention_backward(sh, Q.data(), K.data(), V.data(), Coordinates{pos.data(), pos.data(), vis}, *scheme, P,
                     ParamView<S>{grad.data(), &layout}, r.probs.data(), dO.data(), r.dQ.data(), r.dK.data(),
                     r.dV.data(), nullptr, {}, {}, AttnPath::dense);
  return r;
}

double worst(const std::vector<float>& a, const std::vector<double>& b) {
  double m = 0, scale = 0;
  for (size_t i = 0; i < b.size(); ++i) scale = std::max(scale, std::abs(b[i]));
  for (size_t i = 0; i < b.size(); ++i) m = std::max(m, std::abs(double(a[i]) - b[i]));
  return m / std::max(scale, 1e-30);
}
}  // namespace

TEST_CASE("float attention (blocked GEMM path) agrees with double for every scheme, causal and banded") {
  // T = 75: a last query block of 11 rows and a last 8-row transpose tile of 3; dh = 8 and 32.
  for (const char* s : {"none", "rope", "alibi"})
    for (const Visibility vis : {Visibility{}, Visibility{true, 20}})
      for (int dh : {8, 32}) {
        const auto f = run_attention<float>(s, vis, 2, 75, 2, dh);
        const auto d = run_attention<double>(s, vis, 2, 75, 2, dh);
        INFO(s, " window ", vis.window, " dh ", dh);
        CHECK(worst(f.out, d.out) < 1e-5);
        CHECK(worst(f.dQ, d.dQ) < 1e-5);
        CHECK(worst(f.dK, d.dK) < 1e-5);
        CHECK(worst(f.dV, d.dV) < 1e-5);
        // every probability a query block writes is exactly 0 for a masked key and > 0 for a visible one;
        // every visible one is written
        int wrong = 0;
        for (int bh = 0; bh < 2 * 2; ++bh)
          for (int i = 0; i < 75; ++i)
            for (int j = 0; j < 75; ++j) {
              const float p = f.probs[(size_t(bh) * 75 + i) * 75 + j];
              wrong += vis.visible(3 + i, 3 + j) ? !(p > 0.0f) : !(p == 0.0f || p == -1.0f);
            }
        CHECK(wrong == 0);
      }
}

TEST_CASE("looked-up scores: eight sequences at a time give the bits of one at a time (forward and backward)") {
  // The lookup path runs groups of eight sequences across vector lanes (models/softmax_lanes.h) where
  // the build allows, and the rest one or two at a time; a batch must come out as its sequences read
  // alone, bit for bit: the probabilities, the outputs, and the gradients added in the same order.
  SchemeConfig c;
  c.name = "none";
  c.d_model = 8, c.n_heads = 1, c.d_head = 8;
  auto scheme = make_scheme<float>(c);
  ParamLayout layout;
  scheme->declare(layout);
  std::vector<float> params(layout.total() + 1, 0.0f), grad(layout.total() + 1, 0.0f);
  const CParamView<float> P{params.data(), &layout};
  const ParamView<float> G{grad.data(), &layout};
  Rng rng(5);
  for (int dh : {8, 16, 5})
    for (int T : {1, 3, 8, 9, 16, 24, 31, 40, 64, 77})
      for (int window : {0, 6})
        for (int B : {8, 19}) {
          const int rows = 3 * T;  // a table of 3 rows per position
          std::vector<float> scores(rows), V(size_t(rows) * dh), dout(size_t(B) * dh);
          for (auto& x : scores) x = float(3.0 * rng.normal());
          for (auto& x : V) x = float(rng.normal());
          for (auto& x : dout) x = float(rng.normal());
          std::vector<int> kv_index(size_t(B) * T), pos(T);
          for (int t = 0; t < T; ++t) pos[t] = t;
          for (int b = 0; b < B; ++b)
            for (int t = 0; t < T; ++t) kv_index[size_t(b) * T + t] = 3 * t + int(rng.below(3));
          const Visibility vis = Visibility{}.with_window(window);
          const int qpos = T - 1;
          std::vector<float> probs(size_t(B) * T, -1.0f), out(size_t(B) * dh), g0(rows, 0.5f),
              dV0(size_t(rows) * dh, 0.25f);
          std::vector<float> probs1 = probs, out1 = out, g1 = g0, dV1 = dV0;
          attention_forward(AttnShape{B, 1, T, 1, dh}, (const float*)nullptr, (const float*)nullptr, V.data(),
                            Coordinates{&qpos, pos.data(), vis}, *scheme, P, probs.data(), out.data(), kv_index.data(),
                            {}, ScoreLookup<float>{scores.data()});
          attention_backward(AttnShape{B, 1, T, 1, dh}, (const float*)nullptr, (const float*)nullptr, V.data(),
                             Coordinates{&qpos, pos.data(), vis}, *scheme, P, G, probs.data(), dout.data(),
                             (float*)nullptr, (float*)nullptr, dV0.data(), kv_index.data(), {},
                             ScoreLookup<float>{scores.data(), g0.data()});
          for (int b = 0; b < B; ++b) {
            const AttnShape one{1, 1, T, 1, dh};
            attention_forward(one, (const float*)nullptr, (const float*)nullptr, V.data(),
                              Coordinates{&qpos, pos.data(), vis}, *scheme, P, probs1.data() + size_t(b) * T,
                              out1.data() + size_t(b) * dh, kv_index.data() + size_t(b) * T, {},
                              ScoreLookup<float>{scores.data()});
            attention_backward(one, (const float*)nullptr, (const float*)nullptr, V.data(),
                               Coordinates{&qpos, pos.data(), vis}, *scheme, P, G, probs1.data() + size_t(b) * T,
                               dout.data() + size_t(b) * dh, (float*)nullptr, (float*)nullptr, dV1.data(),
                               kv_index.data() + size_t(b) * T, {}, ScoreLookup<float>{scores.data(), g1.data()});
          }
          INFO("dh " << dh << ", T " << T << ", window " << window << ", B " << B);
          CHECK(probs == probs1);
          CHECK(out == out1);
          CHECK(g0 == g1);
          CHECK(dV0 == dV1);
          float sum = 0;
          for (int t = 0; t < T; ++t) sum += probs[t];
          CHECK(sum == doctest::Approx(1.0).epsilon(1e-5));
        }
}
