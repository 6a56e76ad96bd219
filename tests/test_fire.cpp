// FIRE (schemes/fire.h): the hooks evaluate the MLP as the piecewise-linear function it is, walking each row's
// distances in order; here that is held to the MLP evaluated as written, f(x) = W2^T relu(w1 x + b1) + b2, at
// x = psi(|m - n|) / psi(max(L, m)) (or psi(L): the ablation fire_interpolate false), for queries inside and past
// the threshold and keys on either side. Also: progressive interpolation (a query past L reads its farthest key
// at x = 1 whatever its length), the threshold's default, and both forms' gradients against central differences
// under every batch mode (the default is also in every scheme-wide check: pe-bench gradcheck).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/errors.h"
#include "core/rng.h"
#include "models/block_stack.h"
#include "models/gradcheck.h"
#include "schemes/scheme.h"

#include "variant_gradcheck.h"

using namespace pe;

namespace fire_test {

constexpr int kW = 12, kH = 3;

SchemeConfig config(double threshold, bool interpolate = true) {
  SchemeConfig c;
  c.name = "fire";
  c.n_heads = kH, c.d_head = 4, c.d_model = 4 * kH, c.n_layers = 1, c.train_length = 32;
  c.settings = {{"fire_width", kW}, {"fire_threshold", threshold}, {"fire_interpolate", interpolate}};
  return c;
}

// The MLP as written, at one pair: params are [fire_in 2 x W | fire_out (W + 1) x H | fire_scale 1 x 2].
// interpolate false: the ablation, psi(L) for every query.
double direct(const std::vector<double>& p, double threshold0, int h, int qpos, int kpos, bool interpolate = true) {
  const double* in = p.data();
  const double* out = in + 2 * kW;
  const double* scale = out + (kW + 1) * kH;
  const double c = std::exp(scale[0]), L = threshold0 * std::exp(scale[1]);
  const double x =
      std::log1p(c * std::abs(qpos - kpos)) / std::log1p(c * (interpolate ? std::max(L, double(qpos)) : L));
  double f = out[kW * kH + h];
  for (int k = 0; k < kW; ++k) f += out[k * kH + h] * std::max(0.0, in[k] * x + in[kW + k]);
  return f;
}

std::vector<double> row_bias(const Scheme<double>& s, const std::vector<double>& p, const ParamLayout& layout, int h,
                             int qpos, const std::vector<int>& kpos) {
  AttnRow<double> r;
  r.head = h, r.qpos = qpos, r.nk = int(kpos.size()), r.kpos = kpos.data(), r.dh = 4;
  std::vector<double> scores(kpos.size(), 0.0);
  s.score_forward({p.data(), &layout}, r, scores.data());
  return scores;
}

}  // namespace fire_test

TEST_CASE("fire: the piecewise-linear evaluation is the MLP as written, inside and past the threshold") {
  using namespace fire_test;
  for (const bool interpolate : {true, false})
    for (const double threshold : {4.5, 8.5, 40.0}) {
      auto s = make_scheme<double>(config(threshold, interpolate));
      ParamLayout layout;
      s->declare(layout);
      REQUIRE(layout.total() == size_t(2 * kW + (kW + 1) * kH + 2));
      std::vector<double> p(layout.total(), 0.0);
      Rng rng(11);
      s->init({p.data(), &layout}, rng);
      // a unit with w1 = 0 (on everywhere or nowhere by its b1), and a trained c and L
      p[3] = 0, p[kW + 3] = 0.4, p[5] = 0, p[kW + 5] = -0.2;
      p[p.size() - 2] += 0.7, p[p.size() - 1] -= 0.3;
      for (int qpos : {0, 3, 9, 30, 200})
        for (int h = 0; h < kH; ++h) {
          std::vector<int> kpos;  // keys before and after the query
          for (int k = 0; k <= qpos + 20; k += 1 + qpos / 40) kpos.push_back(k);
          const auto got = row_bias(*s, p, layout, h, qpos, kpos);
          for (size_t t = 0; t < kpos.size(); ++t) {
            INFO("threshold ", threshold, " interpolate ", interpolate, " qpos ", qpos, " key ", kpos[t], " head ", h);
            CHECK(got[t] == doctest::Approx(direct(p, threshold, h, qpos, kpos[t], interpolate)).epsilon(1e-12));
          }
        }
    }
}

TEST_CASE("fire: progressive interpolation: a query past L reads its first key at x = 1 at every length") {
  using namespace fire_test;
  auto s = make_scheme<double>(config(8.5));
  ParamLayout layout;
  s->declare(layout);
  std::vector<double> p(layout.total(), 0.0);
  Rng rng(5);
  s->init({p.data(), &layout}, rng);
  for (int h = 0; h < kH; ++h) {
    const double at_one = direct(p, 8.5, h, 9, 0);  // x = psi(9) / psi(9) = 1
    for (int qpos : {9, 64, 1000, 100000}) CHECK(row_bias(*s, p, layout, h, qpos, {0})[0] == doctest::Approx(at_one));
    // inside the threshold the first key is read at x = psi(m) / psi(L) < 1: another value
    CHECK(row_bias(*s, p, layout, h, 4, {0})[0] == doctest::Approx(direct(p, 8.5, h, 4, 0)));
  }
}

TEST_CASE("fire: it reads offsets only without the interpolation (the doctor's shift invariant expects that)") {
  using namespace fire_test;
  CHECK_FALSE(make_scheme<double>(config(8.5, true))->offsets_only());
  CHECK(make_scheme<double>(config(8.5, false))->offsets_only());
}

TEST_CASE("fire: fire_threshold 0 is a quarter of the training length plus a half; it needs one") {
  using namespace fire_test;
  SchemeConfig c = config(0.0);
  fill_scheme_settings(c);
  CHECK(c.settings.at("fire_threshold").get<double>() == 8.5);
  c = config(0.0);
  c.train_length = 128;
  fill_scheme_settings(c);
  CHECK(c.settings.at("fire_threshold").get<double>() == 32.5);
  c = config(0.0);
  c.train_length = 0;
  CHECK_THROWS_AS(fill_scheme_settings(c), ConfigError);
}

TEST_CASE("fire: with and without progressive interpolation, the gradients match central differences, every mode") {
  // the default (interpolation) is also in every scheme-wide check; the ablation reads psi(L) for every query,
  // so L's gradient comes from every row. Trained at 12: L = 3.5, rows on either side of it
  for (const bool interpolate : {true, false}) {
    const int own = check_variant_gradients(interpolate ? "fire" : "fire no interpolation", "fire",
                                            {{"fire_width", 6}, {"fire_interpolate", interpolate}}, "fire");
    CHECK(own >= 2 * 3 * 2);  // each layer's three tensors, in the plain batch and the modes
  }
}
