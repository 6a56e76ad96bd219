// The context-extension maps, one entry each: every list of maps (the CLI's help and checks, the
// config key, the census, make_plan) reads this table. A map turns the plan of a RoPE head trained at
// length L into the plan it is read with at kappa L (docs/schemes.md "Context-extension maps"):
// theta'_j = theta_j * factor_j, and a multiplier on the content score. Adding a map is one entry in
// frequency_maps.cpp and its tests.
#pragma once
#include <functional>
#include <string>
#include <vector>

namespace pe {

// What a map sees: head width d, the trained base, the training length, kappa = read / training
// length, and the map's own value (B in base=B; 0 for maps without one).
struct FrequencyMapArgs {
  int d = 0;
  double base = 0;
  int train_len = 0;
  double kappa = 1;
  double value = 0;
};

struct FrequencyMap {
  std::string name;      // as written: "pi"; for a map with a value, its prefix: "base" (written base=B)
  std::string spelling;  // for help and messages: "pi", "base=B"
  std::string help;      // one line
  bool takes_value = false;  // written name=VALUE (a number > 1)
  // theta'_j / theta_j for plane j. Every map but a rebase is the identity at kappa <= 1 (the caller
  // does not ask it there).
  std::function<double(const FrequencyMapArgs&, int j)> factor;
  // If set, the plan is the identity plan at this base (computed directly, not as base^(-2j/d) times
  // a factor), at every kappa, and kappa is not recorded: a re-based head reads every length alike.
  std::function<double(const FrequencyMapArgs&)> rebase;
  // Multiplier on every content score at this kappa (unset: 1).
  std::function<double(const FrequencyMapArgs&)> logit_scale;
};

const std::vector<FrequencyMap>& frequency_maps();

// The identity map (the table's first entry): a reading with the trained frequencies. Results record
// it by this name; code asks is_identity_map rather than comparing names.
const std::string& identity_map();
bool is_identity_map(const std::string& written);

// The entry for a map as written ("yarn", "base=20000"), its value in *value; nullptr when unknown
// or malformed (base=B needs B > 1).
const FrequencyMap* find_frequency_map(const std::string& written, double* value = nullptr);

// "none, pi, ntk, yarn, selective, base=B (B > 1)": for messages and help.
std::string known_maps();

}  // namespace pe
