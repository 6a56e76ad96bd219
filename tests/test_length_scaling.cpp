// Log-length scaling (the map logn, Scheme::length_scale): a reading that multiplies every logit of a
// query seeing n keys by max(1, ln n / ln L), L the training length, for every scheme. Held here: each
// scheme's scores are its unscaled scores times that factor, bit for bit, and untouched for a query
// that sees at most L keys; the dense path gives what the reference rows give under it; the maps that
// rescale frequencies stay refused by a scheme without frequencies, and logn by no scheme. (Its
// gradients: pe-bench gradcheck reads every scheme with logn; cached decoding: tests/test_decoder.cpp
// runs every map, logn among them.)
#include <doctest/doctest.h>

#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "core/errors.h"
#include "core/math.h"
#include "core/params.h"
#include "core/rng.h"
#include "models/attention.h"
#include "schemes/scheme.h"

#include "attention_pass.h"

using namespace pe;

namespace {

constexpr int kTrain = 20;

template <class S>
std::unique_ptr<Scheme<S>> scheme_for(const std::string& name, int H, int dh) {
  SchemeConfig c;
  c.name = name;
  c.n_heads = H, c.d_head = dh, c.d_model = H * dh;
  c.n_layers = scheme_info(name).min_layers;
  c.train_length = 128;  // a table (learned, tupe) with a row for every position read here; the reading's L is kTrain
  return make_scheme<S>(c);
}

// The scores of one layer-0 head over T causal rows at positions 0..T-1, read with `map`.
template <class S>
std::vector<S> scores_of(Scheme<S>& scheme, const std::vector<S>& params, const ParamLayout& layout, const MapSpec& map,
                         int T, int dh) {
  scheme.read_with(map, kTrain, T);
  scheme.prepare(T);
  Rng rng(3);
  std::vector<S> Q(size_t(T) * dh), K(Q.size());
  for (auto& x : Q) x = S(rng.normal());
  for (auto& x : K) x = S(rng.normal());
  std::vector<int> pos(T);
  std::iota(pos.begin(), pos.end(), 0);
  const CParamView<S> P{params.data(), &layout};
  std::vector<S> tables(scheme.tables_size(0, T));
  if (!tables.empty()) scheme.tables_forward(P, 0, T, tables.data());
  std::vector<S> out(size_t(T) * T);
  attention_scores(AttnShape{1, T, T, 1, dh}, Q.data(), K.data(), Coordinates{pos.data(), pos.data(), Visibility{}},
                   scheme, P, out.data(), nullptr, AttnTables<S>{tables.data(), nullptr, T});
  return out;
}

template <class S>
void every_scheme_scales_its_scores() {
  const int T = 48, dh = 8;
  int schemes = 0, scaled_rows = 0;
  for (const SchemeInfo& info : scheme_list()) {
    INFO(info.name, std::string(sizeof(S) == 4 ? " (float)" : " (double)"));
    auto scheme = scheme_for<S>(info.name, 1, dh);
    ParamLayout layout;
    scheme->declare(layout);
    std::vector<S> params(layout.total() + 1);
    Rng rng(11);
    for (auto& x : params) x = S(0.5 * rng.normal());
    const std::vector<S> plain = scores_of(*scheme, params, layout, identity_spec(), T, dh);
    const std::vector<S> scaled = scores_of(*scheme, params, layout, parse_map("logn"), T, dh);
    CHECK(scheme->length_scaling() == kTrain);
    bool rows_ok = true;
    for (int i = 0; i < T; ++i) {
      const int n = i + 1;  // causal from 0: row i sees keys 0..i
      const S g = n <= kTrain ? S(1) : S(math::log(double(n)) / math::log(double(kTrain)));
      for (int j = 0; j < T; ++j) {
        const S a = plain[size_t(i) * T + j], b = scaled[size_t(i) * T + j];
        if (j > i)
          rows_ok &= std::isinf(b) && b < 0;
        else
          rows_ok &= n <= kTrain ? b == a : b == a * g;
      }
      scaled_rows += n > kTrain;
    }
    CHECK(rows_ok);
    // the identity map resets it: no reading inherits another's
    scheme->read_with(identity_spec(), kTrain, T);
    CHECK(scheme->length_scaling() == 0);
    CHECK(scheme->length_scale(1000) == S(1));
    ++schemes;
  }
  CHECK(schemes == int(scheme_list().size()));
  CHECK(scaled_rows == schemes * (T - kTrain));
}

// One layer through `path` read with logn after training at kTrain: T = 75 rows at positions 5.., 2
// heads of width 16 (tests/attention_pass.h).
test::AttentionPass run(const std::string& name, AttnPath path) {
  auto scheme = scheme_for<double>(name, 2, 16);
  scheme->read_with(parse_map("logn"), kTrain, 75);
  return test::attention_pass(*scheme, 75, 5, Visibility{}, 5, path);
}

}  // namespace

TEST_CASE("logn: every scheme's scores are its unscaled scores times max(1, ln n / ln L) (float)") {
  every_scheme_scales_its_scores<float>();
}

TEST_CASE("logn: every scheme's scores are its unscaled scores times max(1, ln n / ln L) (double)") {
  every_scheme_scales_its_scores<double>();
}

TEST_CASE("logn: the dense path gives what the reference rows give, forward and backward") {
  // row hooks (none, rope, alibi), block hooks (t5, kerple), a contextual scheme (cope), value terms (shaw)
  for (const char* s : {"none", "rope", "alibi", "t5", "kerple", "cope", "shaw"}) {
    INFO(s);
    const test::AttentionPass dense = run(s, AttnPath::dense), rows = run(s, AttnPath::rows);
    CHECK(test::rel_diff(dense.out, rows.out) <= 1e-13);
    CHECK(test::rel_diff(dense.dQ, rows.dQ) <= 1e-13);
    CHECK(test::rel_diff(dense.dK, rows.dK) <= 1e-13);
    CHECK(test::rel_diff(dense.dV, rows.dV) <= 1e-13);
    CHECK(test::rel_diff(dense.grad, rows.grad) <= 1e-13);
  }
}

TEST_CASE("logn: read by every scheme; the frequency maps still only by RoPE; a length of 1 refused") {
  auto alibi = scheme_for<float>("alibi", 2, 8);
  CHECK(alibi->reads_map(parse_map("logn")));
  CHECK_FALSE(alibi->reads_map(parse_map("yarn")));
  CHECK_THROWS_WITH_AS(alibi->read_with(parse_map("yarn"), kTrain, 80), doctest::Contains("no frequencies"),
                       UsageError);
  CHECK_THROWS_WITH_AS(alibi->read_with(parse_map("logn"), 1, 80), doctest::Contains("at least 2"), UsageError);
  auto rope = scheme_for<float>("rope", 2, 8);
  rope->read_with(parse_map("logn"), kTrain, 80);
  // the trained frequencies: the plan is the identity's
  const std::vector<FrequencyPlan> with = rope->frequency_plans();
  rope->read_with(identity_spec(), kTrain, 80);
  const std::vector<FrequencyPlan> without = rope->frequency_plans();
  REQUIRE(with.size() == without.size());
  for (size_t l = 0; l < with.size(); ++l) CHECK(same_rotation(with[l], without[l]));
}
