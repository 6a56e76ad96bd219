// A hybrid layer's own settings (hybrid_layers "scheme[:window][:key=value]..."): the spelling, its
// errors, the settings reaching the layer, and per-layer frequency plans when RoPE layers differ.
#include <doctest/doctest.h>

#include <cmath>

#include "models/block_stack.h"
#include "schemes/hybrid.h"
#include "schemes/rope.h"

using namespace pe;

namespace {
BlockStackConfig hybrid_config(std::vector<std::string> layers) {
  BlockStackConfig cfg;
  cfg.vocab = 7, cfg.d_model = 16, cfg.n_heads = 2, cfg.n_layers = int(layers.size());
  cfg.scheme.name = "hybrid";
  cfg.scheme.settings = {{"hybrid_layers", layers}};
  return cfg;
}
const RopeScheme<double>& rope_layer(const BlockStack<double>& m, int l) {
  const auto& h = dynamic_cast<const HybridScheme<double>&>(m.scheme());
  return dynamic_cast<const RopeScheme<double>&>(h.layer(l));
}
}  // namespace

TEST_CASE("hybrid_layers: a layer's settings reach its scheme; the rest take their defaults") {
  BlockStack<double> m(hybrid_config({"rope:64:base=500", "none", "rope:rotary_fraction=0.25:base=1000000", "rope"}));
  const auto& h = dynamic_cast<const HybridScheme<double>&>(m.scheme());
  CHECK(h.window(0) == 64);
  CHECK(h.window(1) == 0);
  CHECK(h.window(2) == 0);
  const auto& l0 = rope_layer(m, 0);
  const auto& l2 = rope_layer(m, 2);
  const auto& l3 = rope_layer(m, 3);
  // head width 8: planes j = 0..3, theta_j = base^(-2j/8)
  CHECK(l0.plan().theta[1] == doctest::Approx(std::pow(500.0, -0.25)));
  CHECK(l0.rotating_planes() == 4);
  CHECK(l2.rotating_planes() == 1);
  CHECK(l2.plan().theta[1] == 0.0);
  CHECK(l3.plan().theta[1] == doctest::Approx(std::pow(10000.0, -0.25)));
  // the settings are the layer's own: its config carries them, filled with the declared defaults
  CHECK(h.layer(2).config().settings.at("base") == 1000000.0);
  CHECK(h.layer(2).config().settings.at("rotary_fraction") == 0.25);
  CHECK(h.layer(3).config().settings.at("base") == 10000.0);
  // the window may stand anywhere after the name
  BlockStack<double> w(hybrid_config({"rope:base=500:32", "none"}));
  CHECK(w.scheme().window(0) == 32);
}

TEST_CASE("hybrid_layers: a bad layer is one ConfigError naming the layer and what to fix") {
  const std::vector<std::pair<std::vector<std::string>, std::string>> bad = {
      {{"rope:64:base=abc", "none"}, "layer 1 'rope:64:base=abc': 'abc' is not a number"},
      {{"none", "rope:basee=10"},
       "layer 2 'rope:basee=10': rope has no setting 'basee' (its settings: base, "
       "rotary_fraction)"},
      {{"none", "none:base=10"}, "none has no setting 'base' (it has no settings)"},
      {{"rope:rotary_fraction=2", "none"}, "rotary_fraction"},
      {{"rope:base=0", "none"}, "base"},
      {{"rope:base=10:base=20", "none"}, "'base' given twice"},
      {{"rope:8:16", "none"}, "two windows"},
      {{"rope:-3", "none"}, "bad window '-3'"},
      {{"alibi:alibi_slopes=1", "none"}, "'alibi_slopes' is a list"},
      {{"ropee:8", "none"}, "layer 1 'ropee:8': unknown scheme 'ropee'"},
      {{":8", "none"}, "no scheme named"},
      {{"hybrid", "none"}, "a layer cannot itself be a hybrid"},
      {{"none", "sinusoidal"}, "layer 2 'sinusoidal' acts on the embedding state"},
      {{"t5:t5_buckets=4:t5_max_distance=2", "none"}, "layer 1"},  // an impossible combination of settings
  };
  for (auto& [layers, message] : bad) {
    CAPTURE(message);
    CHECK_THROWS_WITH_AS(BlockStack<double>{hybrid_config(layers)}, doctest::Contains(message.c_str()), ConfigError);
  }
}

TEST_CASE("hybrid: RoPE layers that turn alike share one plan; layers that differ get each their own") {
  BlockStack<double> alike(hybrid_config({"rope:8", "none", "rope"}));
  const FrequencyPlan a = alike.scheme().plan_for(parse_map("yarn"), 32, 128);
  CHECK(a.layers.empty());

  BlockStack<double> m(hybrid_config({"rope:8:base=500", "none", "rope:base=1000000"}));
  for (const char* map : {"pi", "yarn", "ntk"}) {
    CAPTURE(map);
    FrequencyPlan p = m.scheme().plan_for(parse_map(map), 32, 128);
    REQUIRE(p.layers.size() == 3);
    CHECK(p.layers[1].theta.empty());
    // each layer's plan is the map's plan for that layer's own frequencies
    SchemeConfig own = m.scheme().config();
    own.name = "rope", own.n_layers = 1, own.settings = {{"base", 500.0}};
    const FrequencyPlan l0 = make_scheme<double>(own)->plan_for(parse_map(map), 32, 128);
    own.settings = {{"base", 1000000.0}};
    const FrequencyPlan l2 = make_scheme<double>(own)->plan_for(parse_map(map), 32, 128);
    CHECK(same_rotation(p.layers[0], l0));
    CHECK(same_rotation(p.layers[2], l2));
    CHECK(same_rotation(p, l0));  // the plan's own fields: the first RoPE layer's
    m.scheme().set_frequency_plan(p);
    CHECK(rope_layer(m, 0).plan().theta == l0.theta);
    CHECK(rope_layer(m, 2).plan().theta == l2.theta);
  }
  // a base change gives every RoPE layer the same base: one plan again
  const FrequencyPlan rebased = m.scheme().plan_for(parse_map("base=50000"), 32, 128);
  CHECK(rebased.layers.empty());
  m.scheme().set_frequency_plan(rebased);
  CHECK(rope_layer(m, 0).plan().theta == rope_layer(m, 2).plan().theta);
  CHECK(rope_layer(m, 2).plan().theta[1] == doctest::Approx(std::pow(50000.0, -0.25)));
  // back to the trained frequencies: every layer its own identity plan
  m.scheme().read_with(parse_map("none"), 32, 128);
  CHECK(rope_layer(m, 0).plan().theta[1] == doctest::Approx(std::pow(500.0, -0.25)));
  CHECK(rope_layer(m, 2).plan().theta[1] == doctest::Approx(std::pow(1e6, -0.25)));
}
