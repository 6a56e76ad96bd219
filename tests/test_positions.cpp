// Positions: shift invariance of relative schemes on whole models, RoPE's algebra, equivariance.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "core/frequencies.h"
#include "core/rng.h"
#include "models/attention.h"
#include "models/cue_head.h"
#include "schemes/rope.h"
#include "tasks/cue/data.h"

using namespace pe;

namespace {
// Logits of a freshly initialised cue head with `scheme` on a fixed batch placed at positions p0...
std::vector<double> model_logits(const std::string& scheme, int p0) {
  CueModelConfig cfg;
  cfg.scheme.name = scheme;
  cfg.scheme.train_length = 512;  // learned rows (learned_rows 0: the training length)
  CueHead<double> m(cfg);
  m.init(3);
  const int T = 24, B = 8;
  const CueBatch batch = cue_train_batch(cfg.task, 5, 1, B, T);
  m.prepare(p0 + T);
  CueWorkspace<double> ws;
  m.forward(batch.tokens.data(), batch.targets.data(), B, T, ws, nullptr, p0);
  return ws.logits;
}
double max_diff(const std::vector<double>& a, const std::vector<double>& b) {
  double m = 0;
  for (size_t i = 0; i < a.size(); ++i) m = std::max(m, std::abs(a[i] - b[i]));
  return m;
}
}  // namespace

TEST_CASE("a joint shift of all positions leaves RoPE and ALiBi models unchanged and changes sinusoidal") {
  for (int shift : {1, 37, 300}) {
    CHECK(max_diff(model_logits("rope", 0), model_logits("rope", shift)) < 1e-9);
    CHECK(max_diff(model_logits("alibi", 0), model_logits("alibi", shift)) < 1e-12);
    CHECK(max_diff(model_logits("none", 0), model_logits("none", shift)) < 1e-12);
    CHECK(max_diff(model_logits("sinusoidal", 0), model_logits("sinusoidal", shift)) > 1e-3);
    CHECK(max_diff(model_logits("learned", 0), model_logits("learned", shift)) > 1e-3);
  }
}

TEST_CASE("RoPE: <R(m)q, R(n)k> = <q, R(n-m)k> and rotations keep norms") {
  SchemeConfig c;
  c.name = "rope";
  c.d_head = c.d_model = 16;
  RopeScheme<double> rope(c);
  rope.prepare(2000);
  Rng rng(42);
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<double> q(16), k(16);
    for (auto& x : q) x = rng.normal();
    for (auto& x : k) x = rng.normal();
    const int m = rng.below(1000), n = rng.below(1000);
    auto rq = q, rk = k;
    rope.qk_forward(Qk::Query, &m, 1, rq.data());
    rope.qk_forward(Qk::Key, &n, 1, rk.data());
    double lhs = 0, nq = 0, nrq = 0;
    for (int i = 0; i < 16; ++i) lhs += rq[i] * rk[i], nq += q[i] * q[i], nrq += rq[i] * rq[i];
    // <q, R(n-m) k> computed directly from angles
    double rhs = 0;
    for (int j = 0; j < 8; ++j) {
      const double a = (n - m) * plane_frequency(j, 16);
      const double kx = k[2 * j] * std::cos(a) - k[2 * j + 1] * std::sin(a);
      const double ky = k[2 * j] * std::sin(a) + k[2 * j + 1] * std::cos(a);
      rhs += q[2 * j] * kx + q[2 * j + 1] * ky;
    }
    CHECK(lhs == doctest::Approx(rhs).epsilon(1e-10));
    CHECK(nrq == doctest::Approx(nq).epsilon(1e-12));
  }
}

TEST_CASE("RoPE backward is the inverse rotation and partial RoPE leaves the last planes alone") {
  SchemeConfig c;
  c.name = "rope";
  c.d_head = c.d_model = 8;
  c.settings["rotary_fraction"] = 0.5;
  RopeScheme<double> rope(c);
  CHECK(rope.rotating_planes() == 2);
  rope.prepare(100);
  std::vector<double> x = {1, 2, 3, 4, 5, 6, 7, 8}, y = x;
  const int pos = 77;
  rope.qk_forward(Qk::Query, &pos, 1, y.data());
  for (int i = 4; i < 8; ++i) CHECK(y[i] == x[i]);
  rope.qk_backward(Qk::Query, &pos, 1, y.data());
  for (int i = 0; i < 8; ++i) CHECK(y[i] == doctest::Approx(x[i]).epsilon(1e-12));
}

TEST_CASE("unmasked attention without positions is permutation-equivariant; the causal one is not") {
  SchemeConfig c;
  c.name = "none";
  c.n_heads = 2;
  c.d_head = 4;
  auto none = make_scheme<double>(c);
  const int T = 7, W = 8;
  const AttnShape sh{1, T, T, 2, 4};
  Rng rng(9);
  std::vector<double> X(T * W), V(T * W);
  for (auto& x : X) x = rng.normal();
  for (auto& x : V) x = rng.normal();
  std::vector<int> pos(T);
  for (int i = 0; i < T; ++i) pos[i] = i;
  const std::vector<int> perm = {3, 0, 6, 2, 5, 1, 4};
  auto permute = [&](const std::vector<double>& A) {
    std::vector<double> B(A.size());
    for (int i = 0; i < T; ++i) std::copy_n(&A[perm[i] * W], W, &B[i * W]);
    return B;
  };
  for (bool causal : {false, true}) {
    const Visibility vis{causal, 0};
    std::vector<double> probs(2 * T * T), out(T * W), out_p(T * W);
    attention_forward(sh, X.data(), X.data(), V.data(), Coordinates{pos.data(), pos.data(), vis}, *none, {},
                      probs.data(), out.data());
    const auto Xp = permute(X), Vp = permute(V);
    attention_forward(sh, Xp.data(), Xp.data(), Vp.data(), Coordinates{pos.data(), pos.data(), vis}, *none, {},
                      probs.data(), out_p.data());
    const auto expect = permute(out);
    double diff = 0;
    for (int i = 0; i < T * W; ++i) diff = std::max(diff, std::abs(expect[i] - out_p[i]));
    if (causal)
      CHECK(diff > 1e-3);
    else
      CHECK(diff < 1e-12);
  }
}

TEST_CASE("masked keys get probability exactly 0; a band limits the age") {
  SchemeConfig c;
  c.name = "alibi";
  c.n_heads = 1;
  c.d_head = 4;
  c.settings["alibi_slopes"] = {0.5};
  auto alibi = make_scheme<double>(c);
  const int T = 6;
  std::vector<double> X(T * 4, 0.1), probs(T * T, -1.0), out(T * 4);  // -1: every entry must be written
  std::vector<int> pos = {10, 11, 12, 13, 14, 15};
  attention_forward(AttnShape{1, T, T, 1, 4}, X.data(), X.data(), X.data(),
                    Coordinates{pos.data(), pos.data(), Visibility{true, 3}}, *alibi, {}, probs.data(), out.data());
  for (int i = 0; i < T; ++i)
    for (int j = 0; j < T; ++j) {
      if (j > i || i - j >= 3)
        CHECK(probs[i * T + j] == 0.0);
      else
        CHECK(probs[i * T + j] > 0.0);
    }
}

TEST_CASE("ALiBi slopes follow the reference rule") {
  auto s8 = alibi_reference_slopes(8);
  CHECK(s8.front() == 0.5);
  CHECK(s8.back() == doctest::Approx(1.0 / 256));
  auto s4 = alibi_reference_slopes(4);
  CHECK(s4 == std::vector<double>{0.25, 1.0 / 16, 1.0 / 64, 1.0 / 256});
  // H = 6: the 4 slopes of P = 4, then slopes 1 and 3 (every other) of the 8-sequence
  auto s6 = alibi_reference_slopes(6);
  REQUIRE(s6.size() == 6);
  CHECK(s6[4] == doctest::Approx(std::pow(2.0, -1.0)));
  CHECK(s6[5] == doctest::Approx(std::pow(2.0, -3.0)));
}

TEST_CASE("the sinusoidal code is sine-first at full amplitude") {
  SchemeConfig c;
  c.name = "sinusoidal";
  c.d_model = 4;
  auto s = make_scheme<double>(c);
  std::vector<double> out(4, 0.0);
  const int pos = 3;
  s->embed_forward({}, &pos, 1, out.data());
  CHECK(out[0] == doctest::Approx(std::sin(3.0)));
  CHECK(out[1] == doctest::Approx(std::cos(3.0)));
  CHECK(out[2] == doctest::Approx(std::sin(3.0 / 100.0)));
  CHECK(out[3] == doctest::Approx(std::cos(3.0 / 100.0)));
  // the cache prepare() fills holds the same code; positions outside it (negative) are computed
  s->prepare(10);
  std::vector<double> cached(4, 0.0), neg(4, 0.0);
  s->embed_forward({}, &pos, 1, cached.data());
  CHECK(cached == out);
  const int m = -3;
  s->embed_forward({}, &m, 1, neg.data());
  CHECK(neg[0] == doctest::Approx(-std::sin(3.0)));
  CHECK(neg[1] == doctest::Approx(std::cos(3.0)));
}
