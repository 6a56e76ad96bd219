// KERPLE (schemes/kerple.h): the bias is the paper's kernel of |m - n| under r1 = exp(a) and r2 = exp(b) or
// 2 sigmoid(b); its init lies in the paper's ranges; both kernels' gradients match central differences on a
// block stack under every batch mode (the default, log, is also in every scheme-wide check).
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "core/errors.h"
#include "core/rng.h"
#include "models/block_stack.h"
#include "models/gradcheck.h"
#include "schemes/scheme.h"

#include "variant_gradcheck.h"

using namespace pe;

namespace kerple_test {

SchemeConfig kerple_config(const std::string& kernel) {
  SchemeConfig c;
  c.name = "kerple";
  c.n_heads = 2, c.d_head = 4, c.d_model = 8, c.n_layers = 1, c.train_length = 16;
  c.settings["kerple_kernel"] = kernel;
  return c;
}

// The bias a row's score hook adds for a query at qpos and keys at kpos, with (a, b) of each head given.
std::vector<double> row_bias(const std::string& kernel, const std::vector<double>& ab, int head, int qpos,
                             const std::vector<int>& kpos) {
  auto s = make_scheme<double>(kerple_config(kernel));
  ParamLayout layout;
  s->declare(layout);
  std::vector<double> params(layout.total(), 0.0);
  std::copy(ab.begin(), ab.end(), params.begin());
  AttnRow<double> r;
  r.head = head, r.qpos = qpos, r.nk = int(kpos.size()), r.kpos = kpos.data(), r.dh = 4;
  std::vector<double> scores(kpos.size(), 0.0);
  s->score_forward({params.data(), &layout}, r, scores.data());
  return scores;
}

}  // namespace kerple_test

TEST_CASE("kerple: the paper's kernels of |m - n|, r1 = exp(a), r2 = exp(b) (log) or 2 sigmoid(b) (power)") {
  using namespace kerple_test;
  // [a_0, a_1, b_0, b_1]: head 1 has r1 = e^0.5, r2 = e^-1 (log) or 2 sigmoid(-1) (power)
  const std::vector<double> ab{0.1, 0.5, 0.3, -1.0};
  const std::vector<int> keys{0, 3, 10, 12, 20};  // the query at 10: ages 10, 7, 0 and later keys 2, 10
  const double r1 = std::exp(0.5), r2_log = std::exp(-1.0), r2_pow = 2.0 / (1.0 + std::exp(1.0));
  const auto log_bias = row_bias("log", ab, 1, 10, keys), pow_bias = row_bias("power", ab, 1, 10, keys);
  for (size_t t = 0; t < keys.size(); ++t) {
    const double d = std::abs(10 - keys[t]);
    CHECK(log_bias[t] == doctest::Approx(-r1 * std::log(1 + r2_log * d)).epsilon(1e-13));
    CHECK(pow_bias[t] == doctest::Approx(d == 0 ? 0.0 : -r1 * std::pow(d, r2_pow)).epsilon(1e-13));
  }
  CHECK(log_bias[2] == 0.0);
  CHECK(log_bias[0] == log_bias[4]);  // a key 10 before and one 10 after: the same bias
  CHECK(pow_bias[0] == pow_bias[4]);
  CHECK_THROWS_AS(make_scheme<double>(kerple_config("linear")), ConfigError);
}

TEST_CASE("kerple: init in the paper's ranges, r1 from 0.01 to 2, r2 from 0.01 to 1 (log) or below 2 (power)") {
  using namespace kerple_test;
  for (const std::string kernel : {"log", "power"}) {
    SchemeConfig c = kerple_config(kernel);
    c.n_heads = 64, c.d_model = 256, c.n_layers = 3;
    auto s = make_scheme<double>(c);
    ParamLayout layout;
    s->declare(layout);
    std::vector<double> params(layout.total(), 0.0);
    Rng rng(5);
    s->init({params.data(), &layout}, rng);
    for (size_t i = 0; i < params.size(); ++i) {
      const bool r2 = (i / 64) % 2 == 1;
      const double x = params[i];
      const double v = !r2 ? std::exp(x) : kernel == "log" ? std::exp(x) : 2.0 / (1.0 + std::exp(-x));
      INFO(kernel, " ", i, " ", v);
      CHECK(v >= 0.01 - 1e-12);
      CHECK(v <= (r2 && kernel == "log" ? 1.0 : 2.0));
    }
  }
}

TEST_CASE("kerple: both kernels' gradients match central differences on a block stack, every batch mode") {
  for (const std::string kernel : {"log", "power"}) {
    const int own = check_variant_gradients("kerple " + kernel, "kerple", {{"kerple_kernel", kernel}}, "kerple");
    CHECK(own >= 2 * 2);  // each layer's (a, b), in the plain batch and the modes
  }
}
