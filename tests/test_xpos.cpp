// xPos (schemes/xpos.h): a query at m and a key at n, turned and scaled, score on plane j what RoPE scores there
// times zeta_j^((m-n)/B), zeta_j = (2j/d + g)/(1 + g), written out here from the paper's formula; so the score
// reads offsets alone and decays with the age. Also: B's default (half the training length), the refusal of a
// key scale past float32's safe range, and the backward as the forward's transpose.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "core/errors.h"
#include "core/rng.h"
#include "schemes/scheme.h"

using namespace pe;

namespace xpos_test {

SchemeConfig config(double scale_base, int train_length = 32) {
  SchemeConfig c;
  c.name = "xpos";
  c.n_heads = 2, c.d_head = 8, c.d_model = 16, c.n_layers = 1, c.train_length = train_length;
  c.settings = {{"xpos_scale_base", scale_base}};
  return c;
}

std::vector<double> random_rows(int n, int width, uint64_t seed) {
  Rng rng(seed);
  std::vector<double> x(size_t(n) * width);
  for (auto& v : x) v = rng.normal();
  return x;
}

}  // namespace xpos_test

using namespace xpos_test;

TEST_CASE("xpos: plane j of the score is RoPE's times zeta_j^((m-n)/B), for every head and offset") {
  const double B = 6.0, g = 0.4;
  const auto s = make_scheme<double>(config(B));
  const int H = 2, d = 8, P = d / 2, W = H * d;
  s->prepare(80);
  const std::vector<double> q0 = random_rows(1, W, 3), k0 = random_rows(1, W, 4);
  for (int m : {0, 5, 40, 80})
    for (int n : {0, 3, 40, 79}) {
      std::vector<double> q = q0, k = k0;
      s->qk_forward(Qk::Query, &m, 1, q.data());
      s->qk_forward(Qk::Key, &n, 1, k.data());
      for (int h = 0; h < H; ++h)
        for (int j = 0; j < P; ++j) {
          const double* a = &q0[size_t(h) * d + 2 * j];
          const double* b = &k0[size_t(h) * d + 2 * j];
          // RoPE's plane score: (R(m theta) a) . (R(n theta) b) = a . R((n - m) theta) b
          const double theta = std::pow(10000.0, -2.0 * j / d), t = (n - m) * theta;
          const double rope =
              a[0] * (b[0] * std::cos(t) - b[1] * std::sin(t)) + a[1] * (b[0] * std::sin(t) + b[1] * std::cos(t));
          const double zeta = (2.0 * j / d + g) / (1.0 + g);
          const double want = rope * std::pow(zeta, (m - n) / B);
          const double got = q[size_t(h) * d + 2 * j] * k[size_t(h) * d + 2 * j] +
                             q[size_t(h) * d + 2 * j + 1] * k[size_t(h) * d + 2 * j + 1];
          INFO("m ", m, " n ", n, " head ", h, " plane ", j);
          CHECK(got == doctest::Approx(want).epsilon(1e-12).scale(1e-12));
        }
    }
}

TEST_CASE("xpos: the backward is the forward's transpose, for queries and keys") {
  const auto s = make_scheme<double>(config(5.0));
  const int n = 3, W = 16;
  const std::vector<int> pos = {0, 7, 30};
  s->prepare(30);
  for (const Qk side : {Qk::Query, Qk::Key}) {
    const std::vector<double> x0 = random_rows(n, W, 11), y0 = random_rows(n, W, 12);
    std::vector<double> x = x0, y = y0;
    s->qk_forward(side, pos.data(), n, x.data());   // M x
    s->qk_backward(side, pos.data(), n, y.data());  // M^T y
    double a = 0, b = 0;
    for (size_t i = 0; i < x.size(); ++i) a += x[i] * y0[i], b += x0[i] * y[i];
    CHECK(a == doctest::Approx(b).epsilon(1e-13));
  }
}

TEST_CASE("xpos: B defaults to half the training length; a key scale past float32's safe range is refused") {
  SchemeConfig c = config(0.0, 64);
  fill_scheme_settings(c);
  CHECK(c.settings.at("xpos_scale_base").get<double>() == 32.0);
  SchemeConfig none = config(0.0, 0);
  CHECK_THROWS_AS(fill_scheme_settings(none), ConfigError);
  // zeta_0 = 0.4 / 1.4: a key at n is scaled by 3.5^(n/B), past 1e30 at n > 55 B
  const auto s = make_scheme<float>(config(1.0));
  CHECK_NOTHROW(s->prepare(50));
  CHECK_THROWS_AS(s->prepare(60), UsageError);
}
