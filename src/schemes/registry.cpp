// The scheme registry: adding a scheme means one header plus one entry here (its name, description,
// settings and constructor). Every list of schemes — help, gradcheck, benchmarks, tests, the key
// table — reads this one.
#include <cmath>

#include <fmt/format.h>

#include "core/errors.h"
#include "core/math.h"
#include "schemes/alibi.h"
#include "schemes/alibi_learned.h"
#include "schemes/cope.h"
#include "schemes/deberta.h"
#include "schemes/fire.h"
#include "schemes/hybrid.h"
#include "schemes/kerple.h"
#include "schemes/learned.h"
#include "schemes/none.h"
#include "schemes/rope.h"
#include "schemes/shaw.h"
#include "schemes/sinusoidal.h"
#include "schemes/t5.h"
#include "schemes/tupe.h"
#include "schemes/txl.h"
#include "schemes/xpos.h"

namespace pe {

namespace {
template <class S>
using Factory = std::unique_ptr<Scheme<S>> (*)(const SchemeConfig&);

template <class S>
struct Entry {
  SchemeInfo info;
  Factory<S> make;
};

template <template <class> class T, class S>
std::unique_ptr<Scheme<S>> build(const SchemeConfig& c) {
  return std::make_unique<T<S>>(c);
}

// For the gradient checks of deep stacks: local RoPE layers (their own bases) under one global
// layer, the published 3:1 and 5:1 patterns; at 6 layers the global layer is partial RoPE with a
// long base (the recorded recipe), otherwise NoPE.
nlohmann::json hybrid_check_settings(int n_layers) {
  nlohmann::json layers = nlohmann::json::array();
  for (int l = 0; l + 1 < n_layers; ++l) layers.push_back(l == 0 ? "rope:4:base=500" : "rope:4");
  layers.push_back(n_layers >= 6 ? "rope:rotary_fraction=0.25:base=1000000" : "none");
  return {{"hybrid_layers", layers}};
}

template <class S>
const std::vector<Entry<S>>& entries() {
  static const std::vector<Entry<S>> e = {
      {{"none", "NoPE: no position; the causal mask is the only source of order", {}, 1, nullptr, true},
       &build<NoneScheme, S>},
      {{"sinusoidal",
        "fixed sin/cos code added to the token embedding",
        {base_key(),
         {"sinusoidal_layout", KeyType::String, "interleaved",
          "sinusoidal: interleaved (sin, cos of each plane side by side) or concatenated (every sine, then every "
          "cosine)",
          1},
         {"sinusoidal_scale", KeyType::Float, 1.0, "sinusoidal: the code's amplitude a, h = E[x] + a p(m)", 0, 1e6,
          true}},
        1},
       &build<SinusoidalScheme, S>},
      {{"learned",
        "trained position table added to the token embedding (cannot read past its rows)",
        {learned_rows_key()},
        1,
        &complete_learned_rows},
       &build<LearnedScheme, S>},
      {{"rope",
        "rotary: query and key planes rotated by position; scores see only offsets",
        {base_key(), {"rotary_fraction", KeyType::Float, 1.0, "rope: fraction of planes that rotate", 0, 1}},
        1},
       &build<RopeScheme, S>},
      {{"alibi",
        "linear penalty on the age m-n added to every score",
        {{"alibi_slopes", KeyType::FloatList, nlohmann::json::array(),
          "alibi: slope per head (empty: the reference rule 2^(-8h/H))", -1000, 1000}},
        1},
       &build<AlibiScheme, S>},
      {{"t5", "learned scalar bias per head and log-spaced age bucket (T5, causal)", t5_keys(), 1},
       &build<T5Scheme, S>},
      {{"shaw",
        "relative key and value vectors per clipped offset, one pair of tables per layer (Shaw et al.)",
        {{"shaw_clip", KeyType::Int, 16, "shaw: offsets are clipped to [-K, K]", 1, 2048},
         {"shaw_values", KeyType::Bool, true,
          "shaw: relative value vectors RV as well as key vectors RK (false: key-only, the paper's ablation)"},
         {"shaw_per_head", KeyType::Bool, false,
          "shaw: a pair of tables per head (false: one per layer, shared by its heads, as published)"}},
        1},
       &build<ShawScheme, S>},
      {{"txl", "Transformer-XL four-term relative score over a projected sinusoidal code of the age", {base_key()}, 1},
       &build<TxlScheme, S>},
      {{"deberta",
        "disentangled content-to-position and position-to-content terms over a clipped relative index",
        {{"deberta_clip", KeyType::Int, 16, "deberta: relative distances take 2K rows (clipped at +-K)", 1, 2048},
         {"deberta_log_buckets", KeyType::Bool, false,
          "deberta: DeBERTa-v2's log buckets, distances past K/2 log-spaced up to deberta_max_distance onto rows K/2 "
          ".. "
          "K-1 (false: v1's clip at K)"},
         {"deberta_max_distance", KeyType::Int, 0,
          "deberta: with log buckets, the distance that reaches the last row (0: the training length; DeBERTa-v2's "
          "max_relative_positions)",
          0, 1000000}},
        1,
        &complete_deberta_max_distance},
       &build<DebertaScheme, S>},
      {{"tupe", "untied content and absolute-position scores, each with its own projections (TUPE-A; -R adds t5)",
        tupe_keys(), 1, &complete_learned_rows},
       &build<TupeScheme, S>},
      {{"kerple",
        "learned kernel of the distance |m-n| added to every score, -r1 log(1 + r2 d) or -r1 d^r2 per head (KERPLE)",
        {{"kerple_kernel", KeyType::String, "log",
          "kerple: the kernel, log (-r1 log(1 + r2 |m-n|)) or power (-r1 |m-n|^r2, r2 <= 2)", 1}},
        1},
       &build<KerpleScheme, S>},
      {{"alibi-learned",
        "ALiBi with its slopes trained per head and layer, -slope |m-n| from the geometric slopes (a KERPLE kernel)",
        {},
        1},
       &build<AlibiLearnedScheme, S>},
      {{"fire",
        "learned MLP of psi(|m-n|) / psi(max(L, m)) added to every score, psi = log(1 + c z) (FIRE: progressive "
        "interpolation)",
        {{"fire_width", KeyType::Int, 32, "fire: units of the MLP's hidden layer", 1, 1024},
         {"fire_threshold", KeyType::Float, 0.0,
          "fire: the threshold L's starting value in positions (0: a quarter of the training length plus 1/2)", 0, 1e9},
         {"fire_interpolate", KeyType::Bool, true,
          "fire: progressive interpolation, psi(max(L, m)) (false: the ablation, psi(L) for every query)"}},
        1,
        &complete_fire_threshold},
       &build<FireScheme, S>},
      {{"xpos",
        "rope whose planes also decay with the age: query scaled by zeta^(m/B), key by zeta^(-n/B) (xPos)",
        {base_key(),
         {"xpos_zeta_offset", KeyType::Float, 0.4, "xpos: g in zeta_j = (2j/d + g) / (1 + g), the planes' decay rates",
          0, 1e6, true},
         {"xpos_scale_base", KeyType::Float, 0.0, "xpos: B, positions per power of zeta (0: half the training length)",
          0, 1e9}},
        1,
        &complete_xpos_scale_base},
       &build<XposScheme, S>},
      {{"cope",
        "contextual positions: a query counts the keys back to each key by sigmoid gates of its own scores, "
        "and reads a learned row at that count (CoPE)",
        {{"cope_positions", KeyType::Int, 0,
          "cope: rows P of the position table; counts past P-1 are clamped (0: the training length + 1)", 0, 65536}},
        1,
        &complete_cope_positions},
       &build<CopeScheme, S>},
      {{"hybrid",
        "a scheme and a window per layer (default: layer 1 rope with a 64-key window, layer 2 none)",
        {{"hybrid_layers", KeyType::StringList, nlohmann::json::array({"rope:64", "none"}),
          "hybrid: per layer, scheme[:window][:key=value]... (window 0 or absent: full causal; key=value: a "
          "single-valued setting of that layer's scheme, e.g. rope:64:base=500000; the rest its defaults)"}},
        2,
        nullptr,
        false,
        &hybrid_check_settings},
       &build<HybridScheme, S>},
  };
  return e;
}
}  // namespace

const std::vector<SchemeInfo>& scheme_list() {
  static const std::vector<SchemeInfo> list = [] {
    std::vector<SchemeInfo> v;
    for (auto& e : entries<float>()) v.push_back(e.info);
    return v;
  }();
  return list;
}

bool scheme_exists(const std::string& name) {
  for (auto& s : scheme_list())
    if (s.name == name) return true;
  return false;
}

const SchemeInfo& scheme_info(const std::string& name) {
  for (auto& s : scheme_list())
    if (s.name == name) return s;
  std::string known;
  for (auto& s : scheme_list()) known += (known.empty() ? "" : ", ") + s.name;
  throw UsageError("unknown scheme '" + name + "' (known: " + known + ")");
}

std::vector<KeySpec> scheme_keys() {
  std::vector<KeySpec> keys;
  for (auto& s : scheme_list())
    for (auto& k : s.keys) {
      bool seen = false;
      for (auto& have : keys) seen = seen || have.key == k.key;
      if (!seen) keys.push_back(k);
    }
  return keys;
}

void fill_scheme_settings(SchemeConfig& cfg) {
  const SchemeInfo& info = scheme_info(cfg.name);
  if (!cfg.settings.is_object()) throw ConfigError(cfg.name + ": scheme settings must be a JSON object");
  for (auto& [key, value] : cfg.settings.items()) {
    bool declared = false;
    for (auto& k : info.keys) declared = declared || k.key == key;
    if (!declared) throw ConfigError(fmt::format("scheme {} has no setting '{}'", cfg.name, key));
  }
  for (auto& k : info.keys) {
    if (!cfg.settings.contains(k.key)) cfg.settings[k.key] = k.default_value;
    // settings read from a checkpoint meet the same declarations as those from a config
    if (!has_type(cfg.settings[k.key], k.type))
      throw ConfigError(fmt::format("scheme {}: setting '{}' must be {} (got {})", cfg.name, k.key, type_name(k.type),
                                    cfg.settings[k.key].dump()));
    check_key_value(k, cfg.settings[k.key], "scheme " + cfg.name);
  }
  if (info.complete) info.complete(cfg);
}

template <class S>
std::unique_ptr<Scheme<S>> make_scheme(const SchemeConfig& cfg) {
  scheme_info(cfg.name);  // throws the unknown-scheme error; the Scheme constructor fills the settings
  for (auto& e : entries<S>())
    if (e.info.name == cfg.name) return e.make(cfg);
  throw Error("scheme registry out of step: " + cfg.name);
}
template std::unique_ptr<Scheme<float>> make_scheme<float>(const SchemeConfig&);
template std::unique_ptr<Scheme<double>> make_scheme<double>(const SchemeConfig&);

// slope_h = 2^(-8h/H) for H a power of two; otherwise the slopes of the largest power of two P < H,
// then every other slope of the 2P sequence until there are H.
std::vector<double> alibi_reference_slopes(int H) {
  if (H < 1) throw UsageError("alibi: need at least one head");
  auto pow2 = [](int n) {
    std::vector<double> s(n);
    for (int h = 1; h <= n; ++h) s[h - 1] = math::pow(2.0, -8.0 * h / n);
    return s;
  };
  int P = 1;
  while (P * 2 <= H) P *= 2;
  if (P == H) return pow2(H);
  auto s = pow2(P);
  auto s2 = pow2(2 * P);
  for (size_t i = 0; int(s.size()) < H; i += 2) s.push_back(s2[i]);
  return s;
}

}  // namespace pe
