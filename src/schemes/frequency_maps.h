// The context-extension maps, one entry each: every list of maps (the CLI's help and checks, the
// config key, the census, make_plan) reads this table. A map turns the plan of a RoPE head trained at
// length L into the plan it is read with at kappa L (docs/schemes.md "Context-extension maps"):
// theta'_j = theta_j * factor_j, and an attention factor a whose square multiplies the content score
// (Transformers multiplies cos and sin by a, so q.k by a^2). One map (compress) warps the relative
// distance inside the score instead. Adding a map is one entry in frequency_maps.cpp and its tests.
//
// Written forms: `pi`; `base=20000` (a map with one value); `yarn-hf:factor=4:truncate=false` (a
// map with named parameters, each `:key=value`; a list is written a/b/c). A `--rope-scaling` config
// (schemes/rope_scaling.h) is turned into the written form, so results record what was read.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace pe {

// What a map sees: head width d (the rotary width: the planes it spans are j = 0 .. d/2-1), the
// trained base, the training length, kappa = the reading's length / training length, the map's
// value (B in base=B; 0 otherwise), the sequence length of this pass (the length dynamic and
// longrope depend on) and the written parameters (absent: the entry's default).
struct FrequencyMapArgs {
  int d = 0;
  double base = 0;
  int train_len = 0;
  double kappa = 1;
  double value = 0;
  int pass_len = 0;
  nlohmann::json params = nlohmann::json::object();
  bool has(const std::string& key) const { return params.contains(key); }
  double number(const std::string& key, double fallback) const {
    return params.contains(key) ? params.at(key).get<double>() : fallback;
  }
  bool flag(const std::string& key, bool fallback) const {
    return params.contains(key) ? params.at(key).get<bool>() : fallback;
  }
  std::vector<double> list(const std::string& key) const {
    return params.contains(key) ? params.at(key).get<std::vector<double>>() : std::vector<double>{};
  }
};

// A named parameter of a map (written name:key=value).
struct MapParam {
  enum class Kind { Number, Integer, Bool, List };
  std::string name;
  Kind kind = Kind::Number;
  std::string help;  // one line, with the default
  double min = 0, max = 1e12;  // a number's (each list entry's) domain, inclusive
  bool min_open = false;       // min itself is out of the domain
};

struct FrequencyMap {
  std::string name;      // as written: "pi"; for a map with a value, its prefix: "base" (written base=B)
  std::string spelling;  // for help and messages: "pi", "base=B"
  std::string help;      // one line
  bool takes_value = false;  // written name=VALUE (a number > 1)
  std::vector<MapParam> params;  // written name:key=value
  std::string paper_form;        // the paper map this practitioners' form departs from (the census shows both)
  // The paper maps are the identity at kappa <= 1 (the caller does not ask them there); the
  // practitioners' maps apply their factors at every length, as Transformers does.
  bool identity_within_training = true;
  // The plan depends on the length of each pass (dynamic, longrope): a reading at several lengths
  // makes one plan per length, and a cached decode re-plans as the sequence grows.
  bool length_dependent = false;
  // Under cached decoding, keys already in the cache are turned again under each step's plan (a full
  // recomputation) rather than kept as they were rotated when they entered.
  bool recompute_cached_keys = false;
  // theta'_j / theta_j for plane j (unset for a distance warp).
  std::function<double(const FrequencyMapArgs&, int j)> factor;
  // If set, the plan is the identity plan at this base (computed directly, not as base^(-2j/d) times
  // a factor), at every kappa, and kappa is not recorded: a re-based head reads every length alike.
  std::function<double(const FrequencyMapArgs&)> rebase;
  // The attention factor a (unset: 1); the content score is multiplied by a^2.
  std::function<double(const FrequencyMapArgs&)> attention_factor;
  // A warp of the relative distance d -> d' inside the score, with window w and factor s (compress):
  // returns {w, s}. The frequencies are the trained ones.
  std::function<std::pair<double, double>(const FrequencyMapArgs&)> warp;
  // Checks that need the head (rope_theta and head_dim a config gave, list lengths); throws
  // UsageError naming the parameter. May be null.
  std::function<void(const FrequencyMapArgs&)> check;
};

const std::vector<FrequencyMap>& frequency_maps();

// The identity map (the table's first entry): a reading with the trained frequencies. Results record
// it by this name; code asks is_identity_map rather than comparing names.
const std::string& identity_map();
bool is_identity_map(const std::string& written);

// A map as written, parsed: its entry, its value (base=B) and its parameters.
struct MapSpec {
  const FrequencyMap* map = nullptr;
  double value = 0;
  nlohmann::json params = nlohmann::json::object();
};
// Throws UsageError naming the map or the parameter that is unknown, malformed or out of its domain.
MapSpec parse_map(const std::string& written);
// The written form of a map and parameters, parameters in the entry's declared order.
std::string write_map(const std::string& name, const nlohmann::json& params);

// A map as a file-name part: the written form when it has no parameters (pi, base=20000), else
// its name and the first 8 hex digits of the written form's sha1 (yarn-hf-1a2b3c4d).
std::string map_slug(const std::string& written);

// The entry for a map as written ("yarn", "base=20000", "yarn-hf:factor=4"), its value in *value;
// nullptr when unknown or malformed.
const FrequencyMap* find_frequency_map(const std::string& written, double* value = nullptr);

// "none, pi, ntk, yarn, ...": for messages and help.
std::string known_maps();

// The ramp the paper YaRN, the code YaRN and llama3 share: clamp((x - lo) / (hi - lo), 0, 1).
double frequency_ramp(double x, double lo, double hi);
// A plane that keeps a share g of its frequency and interpolates the rest by 1/factor:
// theta'/theta = g + (1 - g) / factor.
inline double ramp_blend(double keep, double factor) { return keep + (1.0 - keep) / factor; }
// get_mscale of the YaRN code: 0.1 m ln s + 1 for s > 1, else 1.
double yarn_mscale(double s, double m = 1.0);
// The distance warp of compress: d for |d| <= w, sign(d) (w + (|d| - w) / s) beyond.
double compress_distance(double d, double w, double s);

}  // namespace pe
