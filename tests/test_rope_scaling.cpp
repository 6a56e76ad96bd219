// rope_scaling configs (schemes/rope_scaling.h) and the practitioners' maps (frequency_maps.cpp)
// against an independent route: each rope_type's inverse frequencies and attention factor computed
// here directly from the published formulas (docs/schemes.md "rope_scaling configs"), the way
// Transformers' initialisers write them (inv_freq = 1 / (base^(2j/dim) ...), blends of interpolated
// and extrapolated frequencies), not through the map table's per-plane factors.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include <fmt/format.h>

#include "core/errors.h"
#include "schemes/frequency_maps.h"
#include "schemes/frequency_plan.h"
#include "schemes/rope_scaling.h"
#include "theory/census.h"

using namespace pe;
using nlohmann::json;

namespace {

std::vector<double> default_inv_freq(int dim, double base) {
  std::vector<double> f;
  for (int i = 0; i < dim; i += 2) f.push_back(1.0 / std::pow(base, double(i) / dim));
  return f;
}

// Transformers' _compute_yarn_parameters, transcribed from its formulas.
std::pair<std::vector<double>, double> yarn_route(int dim, double base, double factor, int original, double beta_fast,
                                                  double beta_slow, bool truncate, double mscale, double mscale_all) {
  auto get_mscale = [](double s, double m) { return s <= 1 ? 1.0 : 0.1 * m * std::log(s) + 1.0; };
  const double att = (mscale != 0 && mscale_all != 0) ? get_mscale(factor, mscale) / get_mscale(factor, mscale_all)
                                                      : get_mscale(factor, 1.0);
  // the plane index at which a plane turns `r` times over the original length
  auto correction = [&](double r) { return (dim / 2.0) * std::log(original / (2 * M_PI * r)) / std::log(base); };
  double low = correction(beta_fast), high = correction(beta_slow);
  if (truncate) low = std::floor(low), high = std::ceil(high);
  low = std::max(low, 0.0), high = std::min(high, dim - 1.0);
  if (low == high) high += 0.001;
  std::vector<double> inv;
  const auto extrap = default_inv_freq(dim, base);
  for (int j = 0; j < dim / 2; ++j) {
    const double ramp = std::min(1.0, std::max(0.0, (j - low) / (high - low)));
    const double keep = 1 - ramp;  // Transformers' inv_freq_extrapolation_factor
    inv.push_back(extrap[j] / factor * (1 - keep) + extrap[j] * keep);
  }
  return {inv, att};
}

std::vector<double> llama3_route(int dim, double base, double factor, int original, double lo, double hi) {
  std::vector<double> out;
  for (double f : default_inv_freq(dim, base)) {
    const double wavelen = 2 * M_PI / f;
    if (wavelen < original / hi)
      out.push_back(f);
    else if (wavelen > original / lo)
      out.push_back(f / factor);
    else {
      const double smooth = (original / wavelen - lo) / (hi - lo);
      out.push_back((1 - smooth) * f / factor + smooth * f);
    }
  }
  return out;
}

std::vector<double> dynamic_route(int dim, double base, double factor, int original, int seq) {
  seq = std::max(seq, original);
  return default_inv_freq(dim, base * std::pow(factor * seq / original - (factor - 1), dim / (dim - 2.0)));
}

void check_close(const std::vector<double>& got, const std::vector<double>& want, const std::string& what) {
  REQUIRE(got.size() == want.size());
  for (size_t j = 0; j < got.size(); ++j) {
    INFO(what, " plane ", j, ": ", got[j], " vs ", want[j]);
    CHECK(got[j] == doctest::Approx(want[j]).epsilon(1e-12));
  }
}

json census(const std::string& dict, int head_dim, double base, int original, int length, double partial = 1.0) {
  const RopeScaling rs = parse_rope_scaling(dict, "test");
  return theory::rope_scaling_census(rs.map, rs.rope_type, head_dim, partial, base, original, length);
}
std::vector<double> inv_of(const json& c) { return c["inv_freq"].get<std::vector<double>>(); }

}  // namespace

TEST_CASE("rope_scaling: yarn as Transformers computes it, truncate on and off, the mscale forms") {
  for (int dim : {16, 32, 128})
    for (double base : {10000.0, 500000.0})
      for (bool truncate : {true, false}) {
        const std::string dict =
            fmt::format(R"({{"rope_type":"yarn","factor":4,"original_max_position_embeddings":128,"truncate":{}}})",
                        truncate ? "true" : "false");
        const json c = census(dict, dim, base, 128, 512);
        const auto [inv, att] = yarn_route(dim, base, 4, 128, 32, 1, truncate, 0, 0);
        check_close(inv_of(c), inv, fmt::format("yarn d{} base {} truncate {}", dim, base, truncate));
        CHECK(c["attention_factor"].get<double>() == doctest::Approx(att).epsilon(1e-14));
        CHECK(att == doctest::Approx(0.1 * std::log(4.0) + 1));
      }
  // mscale/mscale_all_dim (DeepSeek's form), beta_fast/beta_slow, an explicit attention factor
  for (int dim : {16, 32, 128}) {
    const json c = census(
        R"({"rope_type":"yarn","factor":40,"original_max_position_embeddings":4096,"mscale":1.0,"mscale_all_dim":0.707,"beta_fast":16,"beta_slow":2})",
        dim, 10000, 4096, 4096);
    const auto [inv, att] = yarn_route(dim, 10000, 40, 4096, 16, 2, true, 1.0, 0.707);
    check_close(inv_of(c), inv, fmt::format("yarn mscale d{}", dim));
    CHECK(c["attention_factor"].get<double>() == doctest::Approx(att).epsilon(1e-14));
    CHECK(att == doctest::Approx((0.1 * std::log(40.0) + 1) / (0.1 * 0.707 * std::log(40.0) + 1)));
    const json given =
        census(R"({"rope_type":"yarn","factor":8,"original_max_position_embeddings":256,"attention_factor":1.5})", dim,
               10000, 256, 256);
    CHECK(given["attention_factor"].get<double>() == 1.5);
    CHECK(given["logit_scale"].get<double>() == 2.25);
  }
  // a hand-worked plane: d 32, base 10^4, N 128, factor 4: low = floor(-0.78) -> 0, high = ceil(5.24) = 6,
  // plane 1 is 1/6 interpolated: 1 - (1/6)(1 - 1/4) = 0.875
  const json c =
      census(R"({"rope_type":"yarn","factor":4,"original_max_position_embeddings":128})", 32, 10000, 128, 128);
  CHECK(c["planes"][1]["factor"].get<double>() == doctest::Approx(0.875).epsilon(1e-14));
  CHECK(c["planes"][6]["factor"].get<double>() == doctest::Approx(0.25).epsilon(1e-14));
  CHECK(c.contains("yarn_forms"));  // the paper form beside it
}

TEST_CASE("rope_scaling: llama3, linear, default, a partial rotary factor") {
  for (int dim : {16, 32, 128}) {
    const json c = census(
        R"({"rope_type":"llama3","factor":8,"low_freq_factor":1,"high_freq_factor":4,"original_max_position_embeddings":256})",
        dim, 10000, 256, 256);
    check_close(inv_of(c), llama3_route(dim, 10000, 8, 256, 1, 4), fmt::format("llama3 d{}", dim));
    CHECK(c["attention_factor"].get<double>() == 1.0);
    const json lin = census(R"({"rope_type":"linear","factor":4})", dim, 10000, 64, 64);
    auto want = default_inv_freq(dim, 10000);
    for (auto& f : want) f /= 4;
    check_close(inv_of(lin), want, "linear");
    check_close(inv_of(census(R"({"rope_type":"default"})", dim, 10000, 64, 64)), default_inv_freq(dim, 10000),
                "default");
  }
  // partial_rotary_factor 0.5 on 128-wide heads: a 64-wide rotary span with its own exponent base^(-2j/64)
  const json c =
      census(R"({"rope_type":"yarn","factor":4,"original_max_position_embeddings":128})", 128, 10000, 128, 128, 0.5);
  CHECK(c["rotary_dim"].get<int>() == 64);
  check_close(inv_of(c), yarn_route(64, 10000, 4, 128, 32, 1, true, 0, 0).first, "yarn partial 0.5");
}

TEST_CASE("rope_scaling: dynamic below, at and above the original length") {
  for (int dim : {16, 32, 128})
    for (int seq : {64, 128, 129, 300, 1024}) {
      const json c =
          census(R"({"rope_type":"dynamic","factor":2,"original_max_position_embeddings":128})", dim, 10000, 128, seq);
      check_close(inv_of(c), dynamic_route(dim, 10000, 2, 128, seq), fmt::format("dynamic d{} at {}", dim, seq));
      if (seq <= 128) check_close(inv_of(c), default_inv_freq(dim, 10000), "dynamic within the original length");
    }
}

TEST_CASE("rope_scaling: longrope on both sides of the original length") {
  for (int dim : {16, 32, 128}) {
    json s = json::array(), l = json::array();
    for (int j = 0; j < dim / 2; ++j) s.push_back(1.0 + 0.01 * j), l.push_back(1.0 + 0.5 * j);
    const json dict = {{"rope_type", "longrope"},
                       {"short_factor", s},
                       {"long_factor", l},
                       {"factor", 8.0},
                       {"original_max_position_embeddings", 512}};
    const double att = std::sqrt(1 + std::log(8.0) / std::log(512.0));
    for (int seq : {256, 512, 513, 4096}) {
      const json c = census(dict.dump(), dim, 10000, 512, seq);
      const json& ext = seq > 512 ? l : s;
      std::vector<double> want;
      for (int j = 0; j < dim / 2; ++j) want.push_back(1.0 / (ext[j].get<double>() * std::pow(10000.0, 2.0 * j / dim)));
      check_close(inv_of(c), want, fmt::format("longrope d{} at {}", dim, seq));
      CHECK(c["attention_factor"].get<double>() == doctest::Approx(att).epsilon(1e-14));
    }
  }
}

TEST_CASE("rope_scaling: whole configs (v4 and v5) and their errors, each naming the field") {
  // v4: rope_theta and max_position_embeddings at the top, rope_scaling with the old "type" key
  const RopeScaling v4 = parse_rope_scaling(
      R"({"hidden_size":4096,"num_attention_heads":32,"rope_theta":500000,"max_position_embeddings":8192,"rope_scaling":{"type":"yarn","factor":4}})",
      "x");
  CHECK(v4.head_dim == 128);
  CHECK(v4.map == "yarn-hf:factor=4:original_max_position_embeddings=8192:rope_theta=500000:head_dim=128");
  // v5: rope_theta inside rope_parameters; a null factor is max_position_embeddings / original
  const RopeScaling v5 = parse_rope_scaling(
      R"({"head_dim":64,"max_position_embeddings":32768,"rope_parameters":{"rope_type":"yarn","rope_theta":10000,"factor":null,"original_max_position_embeddings":4096}})",
      "x");
  CHECK(v5.map == "yarn-hf:factor=8:original_max_position_embeddings=4096:rope_theta=10000:head_dim=64");
  // dynamic divides by the config's max_position_embeddings, as Transformers does
  CHECK(parse_rope_scaling(R"({"max_position_embeddings":2048,"rope_scaling":{"rope_type":"dynamic","factor":2}})", "x")
            .map == "dynamic:factor=2:original_max_position_embeddings=2048");
  CHECK(parse_rope_scaling(R"({"rope_type":"linear","factor":2})", "x").map == "pi:factor=2");
  CHECK(parse_rope_scaling(R"({"rope_scaling":null,"max_position_embeddings":2048})", "x").map == "none");
  struct Bad {
    const char* json;
    const char* names;
  };
  for (
      const Bad& b :
      {Bad{R"({"rope_type":"zoom","factor":2})", "rope_type 'zoom'"},
       Bad{R"({"rope_type":"yarn","factor":2,"beta":3})", "beta is not a field"},
       Bad{R"({"rope_type":"yarn"})", "factor is required"},
       Bad{R"({"rope_type":"yarn","factor":0.5})", "factor must be at least 1"},
       Bad{R"({"rope_type":"yarn","factor":4,"beta_fast":1,"beta_slow":2})", "beta_fast"},
       Bad{R"({"rope_type":"llama3","factor":8,"original_max_position_embeddings":8192,"low_freq_factor":4,"high_freq_factor":1})",
           "low_freq_factor"},
       Bad{R"({"rope_type":"llama3","factor":8,"low_freq_factor":1,"high_freq_factor":4})",
           "original_max_position_embeddings is required"},
       Bad{R"({"rope_type":"longrope","short_factor":[1,1],"long_factor":"x"})", "long_factor must be a list"},
       Bad{R"({"head_dim":8,"rope_scaling":{"rope_type":"longrope","short_factor":[1,1],"long_factor":[1,1,1,1]}})",
           "short_factor lists 2"},
       Bad{R"({"rope_type":"dynamic","factor":"2"})", "factor must be a number"},
       Bad{R"({"factor":2})", "neither a config.json"},
       Bad{R"({"rope_type":"yarn","factor":4,"truncate":1})", "truncate must be true or false"}}) {
    INFO(b.json);
    CHECK_THROWS_WITH_AS(parse_rope_scaling(b.json, "--rope-scaling"), doctest::Contains(b.names), UsageError);
  }
  // the map checks the model it reads: a stated base or head width that differs is refused
  CHECK_THROWS_WITH_AS(parse_map("yarn-hf:factor=4:rope_theta=500000").plan(32, 10000, 16, 128, 512),
                       doctest::Contains("rope_theta is 500000"), UsageError);
  CHECK_THROWS_WITH_AS(parse_map("yarn-hf:factor=4:head_dim=64").plan(32, 10000, 16, 128, 512),
                       doctest::Contains("head_dim is 64"), UsageError);
  CHECK_THROWS_WITH_AS(parse_map("longrope:short_factor=1/1").plan(32, 10000, 16, 128, 512),
                       doctest::Contains("short_factor lists 2"), UsageError);
}

TEST_CASE("practitioner maps as written: defaults, parameters, and the paper maps untouched") {
  // written with no factor, a practitioners' map takes the reading's kappa (at least 1)
  const auto f = parse_map("yarn-hf").factors(32, 10000, 128, 4.0);
  const auto g = parse_map("yarn-hf:factor=4:original_max_position_embeddings=128").factors(32, 10000, 128, 1.0);
  CHECK(f == g);  // an explicit factor applies at every length, as Transformers applies it
  CHECK(write_map("yarn-hf", json{{"truncate", false}, {"factor", 4.0}}) == "yarn-hf:factor=4:truncate=false");
  CHECK(parse_map("longrope:short_factor=1/2.5/3").params["short_factor"] == json::array({1.0, 2.5, 3.0}));
  CHECK(parse_map("pi").slug() == "pi");
  CHECK(parse_map("yarn-hf:factor=4").slug().rfind("yarn-hf-", 0) == 0);
  // compress: the warp of relative distance
  CHECK(compress_distance(3, 4, 2) == 3);
  CHECK(compress_distance(10, 4, 2) == 7);
  CHECK(compress_distance(-10, 4, 2) == -7);
  const FrequencyPlan c = parse_map("compress:w=4:s=2").plan(16, 10000, 8, 32, 128);
  CHECK(c.warp_window == 4);
  CHECK(c.warp_factor == 2);
  CHECK(c.theta == identity_plan(16, 10000, 8).theta);
  // default s: the longest distance of the reading lands on the longest trained one
  const FrequencyPlan d = parse_map("compress").plan(16, 10000, 8, 32, 128);
  CHECK(compress_distance(127, d.warp_window, d.warp_factor) == doctest::Approx(31));
}

TEST_CASE("rope_scaling_dict: every map with a Transformers rope_type goes out and reads back as the same plan") {
  const int d = 32, L = 128;
  const double base = 10000;
  for (const std::string map :
       {"pi", "pi:factor=3", "yarn-hf", "yarn-hf:factor=4:truncate=false:beta_fast=16",
        "yarn-hf:mscale=1:mscale_all_dim=0.5", "llama3:factor=8:low_freq_factor=1:high_freq_factor=4", "dynamic",
        "longrope", "longrope:attention_factor=1.2"})
    for (double kappa : {1.0, 2.0, 4.0}) {
      INFO(map, " kappa ", kappa);
      REQUIRE(has_rope_type(parse_map(map)));
      json dict = rope_scaling_dict(parse_map(map), kappa, L, d, base);
      REQUIRE(dict.is_object());
      dict["rope_theta"] = base;
      const RopeScaling back = rope_scaling_from_json(dict, "test");
      const FrequencyPlan a = parse_map(map).plan(d, base, d / 2, L, int(kappa * L)),
                          b = parse_map(back.map).plan(d, base, d / 2, L, int(kappa * L));
      REQUIRE(a.theta.size() == b.theta.size());
      for (size_t j = 0; j < a.theta.size(); ++j) CHECK(b.theta[j] == doctest::Approx(a.theta[j]).epsilon(1e-12));
      CHECK(b.logit_scale == doctest::Approx(a.logit_scale).epsilon(1e-12));
    }
  // the Transformers names
  CHECK(rope_scaling_dict(parse_map("pi"), 4, 128, 32, 1e4) == json{{"rope_type", "linear"}, {"factor", 4.0}});
  CHECK(rope_scaling_dict(parse_map("yarn-hf"), 2, 128, 32, 1e4)["rope_type"] == "yarn");
  CHECK(rope_scaling_dict(parse_map("longrope"), 2, 128, 32, 1e4)["long_factor"].size() == 16);
  // plain RoPE (and a re-based one, which is rope_theta alone) has no dictionary
  CHECK(rope_scaling_dict(parse_map("none"), 2, 128, 32, 1e4).is_null());
  CHECK(rope_scaling_dict(parse_map("base=500000"), 2, 128, 32, 1e4).is_null());
  // the paper maps and the warp have no rope_type
  for (const char* map : {"ntk", "yarn", "selective", "compress", "dynamic-recompute"}) {
    INFO(map);
    CHECK_FALSE(has_rope_type(parse_map(map)));
    CHECK_THROWS_AS(rope_scaling_dict(parse_map(map), 2, 128, 32, 1e4), UsageError);
  }
}

namespace {
// One config in Transformers v4's layout (rope_theta, partial_rotary_factor and the original length at
// the top, the scaling dictionary under rope_scaling) and in v5's (all three inside rope_parameters).
struct Layouts {
  json v4, v5;
};
Layouts layouts(const json& scaling, std::optional<int> original, double partial = 1.0) {
  json v4 = {{"head_dim", 32}, {"max_position_embeddings", 256}, {"rope_theta", 10000.0}};
  json v5 = {{"head_dim", 32}, {"max_position_embeddings", 256}};
  json params = scaling;
  params["rope_theta"] = 10000.0;
  if (partial != 1.0) v4["partial_rotary_factor"] = partial, params["partial_rotary_factor"] = partial;
  if (original)
    v4["original_max_position_embeddings"] = *original, params["original_max_position_embeddings"] = *original;
  v4["rope_scaling"] = scaling;
  v5["rope_parameters"] = params;
  return {v4, v5};
}
json short_long(bool long_side) {
  json l = json::array();
  for (int j = 0; j < 16; ++j) l.push_back(long_side ? 1.0 + 0.25 * j : 1.0 + 0.01 * j);
  return l;
}
}  // namespace

TEST_CASE("rope_scaling: the v4 and v5 layouts of one config read as one map, every rope_type") {
  const json lists = {{"short_factor", short_long(false)}, {"long_factor", short_long(true)}};
  struct Case {
    std::string name;
    json scaling;
    std::optional<int> original;  // the original length: v4 at the top, v5 inside the dictionary
    std::string map;              // what both read as
  };
  json longrope = lists;
  longrope["rope_type"] = "longrope";
  json longrope_null = longrope;
  longrope_null["factor"] = nullptr;
  json longrope_given = longrope;
  longrope_given["factor"] = 4.0;
  const std::vector<Case> cases = {
      {"default", {{"rope_type", "default"}}, std::nullopt, "none"},
      {"linear", {{"rope_type", "linear"}, {"factor", 4.0}}, std::nullopt, "pi:factor=4:rope_theta=10000:head_dim=32"},
      // dynamic divides by max_position_embeddings in both (a stated original length is not its N)
      {"dynamic",
       {{"rope_type", "dynamic"}, {"factor", 2.0}},
       std::nullopt,
       "dynamic:factor=2:original_max_position_embeddings=256:rope_theta=10000:head_dim=32"},
      {"yarn",
       {{"rope_type", "yarn"}, {"factor", 4.0}},
       64,
       "yarn-hf:factor=4:original_max_position_embeddings=64:rope_theta=10000:head_dim=32"},
      {"yarn, null factor",
       {{"rope_type", "yarn"}, {"factor", nullptr}},
       64,
       "yarn-hf:factor=4:original_max_position_embeddings=64:rope_theta=10000:head_dim=32"},
      {"yarn, no original length: max_position_embeddings",
       {{"rope_type", "yarn"}, {"factor", 2.0}},
       std::nullopt,
       "yarn-hf:factor=2:original_max_position_embeddings=256:rope_theta=10000:head_dim=32"},
      {"llama3",
       {{"rope_type", "llama3"}, {"factor", 8.0}, {"low_freq_factor", 1.0}, {"high_freq_factor", 4.0}},
       32,
       "llama3:factor=8:original_max_position_embeddings=32:rope_theta=10000:head_dim=32:low_freq_factor=1:high_freq_"
       "factor=4"},
      {"llama3, no original length: max_position_embeddings",
       {{"rope_type", "llama3"}, {"factor", 8.0}, {"low_freq_factor", 1.0}, {"high_freq_factor", 4.0}},
       std::nullopt,
       "llama3:factor=8:original_max_position_embeddings=256:rope_theta=10000:head_dim=32:low_freq_factor=1:high_freq_"
       "factor=4"},
      // longrope: Phi-3's factor max_position_embeddings / N = 256 / 32, missing or null
      {"longrope, no factor", longrope, 32, ""},
      {"longrope, null factor", longrope_null, 32, ""},
      {"longrope, a factor given", longrope_given, 32, ""},
      {"longrope, no original length: factor 1", longrope, std::nullopt, ""},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    const Layouts l = layouts(c.scaling, c.original);
    const RopeScaling a = rope_scaling_from_json(l.v4, "v4"), b = rope_scaling_from_json(l.v5, "v5");
    CHECK(a.rope_type == b.rope_type);
    CHECK(a.map == b.map);
    if (!c.map.empty()) CHECK(a.map == c.map);
    // and the same frequencies and attention factor where the long list applies
    const int original = c.original.value_or(256);
    const json ca = theory::rope_scaling_census(a.map, a.rope_type, 32, 1.0, 10000, original, 512);
    const json cb = theory::rope_scaling_census(b.map, b.rope_type, 32, 1.0, 10000, original, 512);
    CHECK(ca["inv_freq"] == cb["inv_freq"]);
    CHECK(ca["attention_factor"].get<double>() == cb["attention_factor"].get<double>());
  }
  // the issue's case: longrope in v5's layout, N = 32 inside rope_parameters, no factor, 256 positions:
  // Transformers' factor 256 / 32 = 8 and attention factor sqrt(1 + ln 8 / ln 32) = sqrt(1.6) = 1.2649
  // (read as 1.0 before: the factor was taken from a top-level original length only)
  for (const json& config : {layouts(longrope, 32).v5, layouts(longrope, 32).v4, layouts(longrope_null, 32).v5}) {
    INFO(config.dump());
    const RopeScaling rs = rope_scaling_from_json(config, "x");
    CHECK(rs.map.params["factor"].get<double>() == 8.0);
    CHECK(rs.map.params["original_max_position_embeddings"].get<int>() == 32);
    for (int length : {32, 256}) {
      const json c = theory::rope_scaling_census(rs.map, rs.rope_type, 32, 1.0, 10000, 32, length);
      CHECK(c["attention_factor"].get<double>() ==
            doctest::Approx(std::sqrt(1 + std::log(8.0) / std::log(32.0))).epsilon(1e-14));
      CHECK(c["attention_factor"].get<double>() == doctest::Approx(1.2649).epsilon(1e-4));
    }
  }
  // a factor given is used as given (v5; Transformers 4.4x replaced it by the ratio)
  CHECK(rope_scaling_from_json(layouts(longrope_given, 32).v5, "x").map.params["factor"].get<double>() == 4.0);
  // no original length anywhere: N = max_position_embeddings, factor 1, attention factor 1 (as v5's default)
  {
    const RopeScaling rs = rope_scaling_from_json(layouts(longrope, std::nullopt).v5, "x");
    CHECK(rs.map.params["factor"].get<double>() == 1.0);
    CHECK(
        theory::rope_scaling_census(rs.map, rs.rope_type, 32, 1.0, 10000, 256, 512)["attention_factor"].get<double>() ==
        1.0);
  }
  // a partial rotary factor in either place
  {
    const Layouts l = layouts({{"rope_type", "yarn"}, {"factor", 4.0}}, 64, 0.5);
    CHECK(rope_scaling_from_json(l.v4, "x").map == rope_scaling_from_json(l.v5, "x").map);
    CHECK(rope_scaling_from_json(l.v5, "x").partial_rotary_factor == 0.5);
  }
}

TEST_CASE(
    "rope_scaling: the original length at the top wins over the dictionary's (v5, Phi-3), for every type that reads "
    "one") {
  // v5 moves a top-level original_max_position_embeddings into rope_parameters over the dictionary's own
  for (const char* type : {"yarn", "llama3", "longrope"}) {
    INFO(type);
    json scaling = {{"rope_type", type}, {"original_max_position_embeddings", 64}};
    if (std::string(type) == "longrope")
      scaling["short_factor"] = short_long(false), scaling["long_factor"] = short_long(true);
    else
      scaling["factor"] = 4.0;
    if (std::string(type) == "llama3") scaling["low_freq_factor"] = 1.0, scaling["high_freq_factor"] = 4.0;
    const json config = {{"head_dim", 32},
                         {"max_position_embeddings", 256},
                         {"rope_theta", 10000.0},
                         {"original_max_position_embeddings", 32},
                         {"rope_scaling", scaling}};
    CHECK(rope_scaling_from_json(config, "x").map.params["original_max_position_embeddings"].get<int>() == 32);
  }
}

TEST_CASE("rope_scaling: contradictions and impossible lengths are refused by name") {
  // two partial rotary factors that differ (v5 takes the top's, v4 reads the top only: a contradiction)
  CHECK_THROWS_WITH_AS(
      rope_scaling_from_json(
          json::parse(
              R"({"head_dim":32,"partial_rotary_factor":0.5,"rope_parameters":{"rope_type":"linear","factor":2,"partial_rotary_factor":0.25}})"),
          "--rope-scaling"),
      doctest::Contains("partial_rotary_factor 0.5 and rope_parameters.partial_rotary_factor 0.25 differ"), UsageError);
  // a factor derived from lengths that would shrink the context
  CHECK_THROWS_WITH_AS(
      rope_scaling_from_json(
          json::parse(
              R"({"max_position_embeddings":128,"rope_parameters":{"rope_type":"yarn","factor":null,"original_max_position_embeddings":512}})"),
          "--rope-scaling"),
      doctest::Contains("128 / 512, below 1"), UsageError);
  // llama3 with no original length at all (a bare dictionary)
  CHECK_THROWS_WITH_AS(rope_scaling_from_json(
                           json::parse(R"({"rope_type":"llama3","factor":8,"low_freq_factor":1,"high_freq_factor":4})"),
                           "--rope-scaling"),
                       doctest::Contains("original_max_position_embeddings is required for rope_type 'llama3'"),
                       UsageError);
}

TEST_CASE("rope base: one rule for census --base, the map base=B and a config's rope_theta") {
  for (double ok : {1.0001, 10000.0, 500000.0, kMaxRopeBase}) {
    INFO(ok);
    CHECK(rope_base_problem(ok).empty());
    CHECK_NOTHROW(check_rope_base(ok, "--base"));
    CHECK_NOTHROW(parse_map(fmt::format("base={}", ok)));
    CHECK_NOTHROW(rope_scaling_from_json(json{{"rope_theta", ok}, {"max_position_embeddings", 64}}, "x"));
  }
  for (double bad : {1.0, 0.5, -3.0, 1e13, std::numeric_limits<double>::infinity(), std::nan("")}) {
    INFO(bad);
    CHECK_FALSE(rope_base_problem(bad).empty());
    CHECK_THROWS_WITH_AS(check_rope_base(bad, "--base"), doctest::Contains("--base must be a number greater than 1"),
                         UsageError);
    if (std::isfinite(bad)) {
      CHECK_THROWS_AS(parse_map(fmt::format("base={}", bad)), UsageError);
      CHECK_THROWS_WITH_AS(rope_scaling_from_json(json{{"rope_theta", bad}, {"max_position_embeddings", 64}}, "x"),
                           doctest::Contains("rope_theta must be a number greater than 1"), UsageError);
      CHECK_THROWS_WITH_AS(
          rope_scaling_from_json(json{{"rope_parameters", {{"rope_type", "default"}, {"rope_theta", bad}}}}, "x"),
          doctest::Contains("rope_parameters.rope_theta must be"), UsageError);
    }
  }
  CHECK_THROWS_AS(parse_map("base=inf"), UsageError);
  CHECK_THROWS_AS(parse_map("base=1e400"), UsageError);
  CHECK_THROWS_AS(parse_map("yarn-hf:rope_theta=1e13"), UsageError);
}
