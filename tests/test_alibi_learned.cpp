// ALiBi with learned slopes (schemes/alibi_learned.h): at its init every layer's slopes are ALiBi's fixed ones,
// so its score hook adds what alibi's adds on a causal row; a trained slope moves the bias as -exp(a) |m - n|.
// Its gradients are in every scheme-wide check (pe-bench gradcheck, tests/test_gradcheck.cpp).
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "core/rng.h"
#include "schemes/scheme.h"

using namespace pe;

namespace alibi_learned_test {

SchemeConfig config(const char* name, int heads, int layers) {
  SchemeConfig c;
  c.name = name;
  c.n_heads = heads, c.d_head = 4, c.d_model = 4 * heads, c.n_layers = layers, c.train_length = 32;
  return c;
}

// The bias a causal row's score hook adds (query at qpos, keys 0..qpos) in layer l, head h.
std::vector<double> row_bias(Scheme<double>& s, const std::vector<double>& params, const ParamLayout& layout, int l,
                             int h, int qpos) {
  std::vector<int> kpos;
  for (int k = 0; k <= qpos; ++k) kpos.push_back(k);
  AttnRow<double> r;
  r.layer = l, r.head = h, r.qpos = qpos, r.nk = int(kpos.size()), r.kpos = kpos.data(), r.dh = 4;
  std::vector<double> scores(kpos.size(), 0.0);
  s.score_forward({params.data(), &layout}, r, scores.data());
  return scores;
}

}  // namespace alibi_learned_test

TEST_CASE("alibi-learned: at init every layer reads ALiBi's geometric slopes; a slope is exp(a)") {
  using namespace alibi_learned_test;
  for (int heads : {1, 4, 6}) {
    INFO(heads);
    auto learned = make_scheme<double>(config("alibi-learned", heads, 3));
    auto fixed = make_scheme<double>(config("alibi", heads, 3));
    ParamLayout layout, none;
    learned->declare(layout);
    fixed->declare(none);
    CHECK(none.total() == 0);
    CHECK(layout.total() == size_t(3 * heads));
    std::vector<double> params(layout.total(), 0.0);
    Rng rng(3);
    learned->init({params.data(), &layout}, rng);
    const std::vector<double> slopes = alibi_reference_slopes(heads);
    for (int l = 0; l < 3; ++l)
      for (int h = 0; h < heads; ++h) {
        CHECK(std::exp(params[size_t(l * heads + h)]) == doctest::Approx(slopes[size_t(h)]).epsilon(1e-14));
        const auto a = row_bias(*learned, params, layout, l, h, 20), b = row_bias(*fixed, {}, none, l, h, 20);
        for (size_t t = 0; t < a.size(); ++t) CHECK(a[t] == doctest::Approx(b[t]).epsilon(1e-13));
      }
    // a trained slope: layer 1, head 0 at a = 0.25 reads -e^0.25 |m - n|, the other heads as they were
    params[size_t(heads)] = 0.25;
    const auto moved = row_bias(*learned, params, layout, 1, 0, 20);
    for (size_t t = 0; t < moved.size(); ++t)
      CHECK(moved[t] == doctest::Approx(-std::exp(0.25) * double(20 - int(t))).epsilon(1e-13));
  }
}
