// The context-extension maps, one entry each: every list of maps (the CLI's help and checks, the
// config key, the census, plans) reads this table. A map turns the plan of a RoPE head trained at
// length L into the plan it is read with at kappa L (docs/schemes.md "Context-extension maps"):
// theta'_j = theta_j * factor_j, and an attention factor a whose square multiplies the content score
// (Transformers multiplies cos and sin by a, so q.k by a^2). One map (compress) warps the relative
// distance inside the score instead. Adding a map is one entry in frequency_maps.cpp and its tests.
//
// Written forms: `pi`; `base=20000` (a map with one value); `yarn-hf:factor=4:truncate=false` (a
// map with named parameters, each `:key=value`; a list is written a/b/c). A `--rope-scaling` config
// (schemes/rope_scaling.h) is turned into the written form, so results record what was read.
//
// A map is parsed once where it enters (a config key, a CLI option, a results file) into a MapSpec,
// and the value is passed on. frequency_plan.h turns a MapSpec into a plan; it includes this header,
// never the other way.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace pe {

struct FrequencyPlan;  // frequency_plan.h

// The paper YaRN's ramp bounds: g_j = clamp((L/lambda_j - alpha) / (beta - alpha), 0, 1).
inline constexpr double kYarnAlpha = 1.0;
inline constexpr double kYarnBeta = 32.0;

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
  std::string help;            // one line, with the default
  double min = 0, max = 1e12;  // a number's (each list entry's) domain, inclusive
  bool min_open = false;       // min itself is out of the domain
};

struct FrequencyMap {
  std::string name;              // as written: "pi"; for a map with a value, its prefix: "base" (written base=B)
  std::string spelling;          // for help and messages: "pi", "base=B"
  std::string help;              // one line
  bool takes_value = false;      // written name=VALUE (a number > 1)
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
  // Log-length scaling (logn): the frequencies are the trained ones, and every logit of a query that
  // sees n keys, scheme terms included, is multiplied by max(1, ln n / ln L), L the training length
  // (Scheme::length_scale). It reads no frequency, so every scheme reads it (Scheme::reads_map).
  bool scales_logits_by_length = false;
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
  // The wavelength census (theory/census.h): whether the map is in its default list (pe-bench census,
  // theory.json), and what the map adds to a census beside its per-plane factors: fields of the
  // census's JSON at its kappas, and the table's line for them ("" when the census lacks them). May
  // be null.
  bool in_default_census = false;
  std::function<void(nlohmann::json& census, const std::vector<double>& kappas)> census_fields;
  std::function<std::string(const nlohmann::json& census)> census_line;
};

const std::vector<FrequencyMap>& frequency_maps();

// A RoPE base as a user states it, one rule for every spelling (census --base, the map base=B, a
// config's rope_theta, the map parameter rope_theta): a finite number greater than 1 and at most
// kMaxRopeBase (real models use 1e4 to 1e7). rope_base_problem: "" or "must be ... (got X)";
// check_rope_base throws it as a UsageError "<what> must be ...".
inline constexpr double kMaxRopeBase = 1e12;
std::string rope_base_problem(double base);
void check_rope_base(double base, const std::string& what);

// The identity map (the table's first entry): a reading with the trained frequencies. Results record
// it by this name; code asks is_identity_map rather than comparing names.
const std::string& identity_map();
bool is_identity_map(const std::string& written);

// A map as written, parsed: its entry, its value (base=B), its parameters and the text it was read
// from (results record that text). A MapSpec reads as its written form where text is wanted (a
// results row, a scheme's read_with), compares with it, and is written to JSON as it.
struct MapSpec {
  const FrequencyMap* map = nullptr;
  double value = 0;
  nlohmann::json params = nlohmann::json::object();
  std::string written;

  operator const std::string&() const { return written; }
  bool is_identity() const;  // the table's first entry: the trained frequencies
  bool scales_by_length() const { return map && map->scales_logits_by_length; }  // logn
  // The reader's label: "rope", or "rope<sep>pi" when read with a map other than the identity.
  std::string label(const std::string& scheme, const std::string& sep = "+") const;
  // A file-name part: the written form when it has no parameters (pi, base=20000), else the map's
  // name and the first 8 hex digits of the written form's sha1 (yarn-hf-1a2b3c4d).
  std::string slug() const;
  // frequency_plan.cpp (include frequency_plan.h to call them): the plan for a head of width d_head
  // (its first rotating_planes planes turn) trained at train_len and read at read_len, for a pass of
  // pass_len tokens (0: read_len; only length-dependent maps look at it); theta'_j / theta_j per plane
  // and the attention factor at kappa (a length-dependent map: a pass of kappa * train_len).
  FrequencyPlan plan(int d_head, double base, int rotating_planes, int train_len, int read_len, int pass_len = 0) const;
  std::vector<double> factors(int d, double base, int train_len, double kappa) const;
  double attention_factor(int d, double base, int train_len, double kappa) const;
};
inline bool operator==(const MapSpec& a, const MapSpec& b) { return a.written == b.written; }
inline bool operator==(const MapSpec& a, const std::string& b) { return a.written == b; }
inline bool operator==(const std::string& a, const MapSpec& b) { return a == b.written; }
inline bool operator!=(const MapSpec& a, const std::string& b) { return a.written != b; }
inline void to_json(nlohmann::json& j, const MapSpec& m) { j = m.written; }

// Whether a scheme reads with `map`: every scheme the identity map and log-length scaling, the
// other maps only a scheme that reads its angles from a plan (reads_frequencies:
// Scheme::accepts_frequency_plan). Scheme::reads_map asks it; so do readers that hold no model.
inline bool map_is_read(const MapSpec& map, bool reads_frequencies) {
  return map.is_identity() || map.scales_by_length() || reads_frequencies;
}

// Throws UsageError naming the map or the parameter that is unknown, malformed or out of its domain.
MapSpec parse_map(const std::string& written);
// An entry written by its name alone (no value, no parameters); the identity map so.
MapSpec bare_map(const FrequencyMap& entry);
MapSpec identity_spec();
// The one check of a list of maps (an option, a key): each parsed, a UsageError naming `what`;
// parse_map_list reads a comma-separated list (none empty).
std::vector<MapSpec> parse_maps(const std::vector<std::string>& written, const std::string& what);
std::vector<MapSpec> parse_map_list(const std::string& text, const std::string& what);
// The written form of a map and parameters, parameters in the entry's declared order.
std::string write_map(const std::string& name, const nlohmann::json& params);

// The entry for a map as written ("yarn", "base=20000", "yarn-hf:factor=4"), its value in *value;
// nullptr when unknown or malformed.
const FrequencyMap* find_frequency_map(const std::string& written, double* value = nullptr);

// The census's default list: the entries marked in_default_census, in the table's order.
std::vector<MapSpec> default_census_maps();

// "none, pi, ntk, yarn, ...": for messages and help.
std::string known_maps();

// The ramp the paper YaRN, the code YaRN and llama3 share: clamp((x - lo) / (hi - lo), 0, 1).
double frequency_ramp(double x, double lo, double hi);
// A plane that keeps a share g of its frequency and interpolates the rest by 1/factor:
// theta'/theta = g + (1 - g) / factor.
inline double ramp_blend(double keep, double factor) { return keep + (1.0 - keep) / factor; }
// get_mscale of the YaRN code: 0.1 m ln s + 1 for s > 1, else 1.
double yarn_mscale(double s, double m = 1.0);
// The paper YaRN's multiplier on every RoPE content score: (0.1 ln kappa + 1)^2 (1 when kappa <= 1).
double yarn_logit_scale(double kappa);
// The distance warp of compress: d for |d| <= w, sign(d) (w + (|d| - w) / s) beyond.
double compress_distance(double d, double w, double s);

}  // namespace pe

// fmt::format("{}", spec): its written form.
template <>
struct fmt::formatter<pe::MapSpec> : fmt::formatter<std::string> {
  auto format(const pe::MapSpec& m, fmt::format_context& ctx) const {
    return formatter<std::string>::format(m.written, ctx);
  }
};
