// A configuration key: name, type, default, help and domain. The experiment key table is a list of
// them; a scheme declares its own settings the same way (SchemeInfo::keys), and the table includes
// them. The domain is checked in one place (check_key_value, harness/config.h) for experiment files,
// --set, the CLI options that set keys, and resolved configs.
#pragma once
#include <limits>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace pe {

enum class KeyType { Int, Float, String, Bool, IntList, FloatList, StringList };

struct KeySpec {
  std::string key;
  KeyType type;
  nlohmann::json default_value;
  std::string help;
  // Numbers (and every element of a number list) lie in [min, max], or (min, max] when min_open;
  // and are finite. A string with min >= 1 must not be empty.
  double min = -std::numeric_limits<double>::max();
  double max = std::numeric_limits<double>::max();
  bool min_open = false;
  // The key says how trained models are read or where results go, never a trained bit (test sets,
  // lengths, maps, output places): runs whose configs differ only in such keys are one run
  // (same_run, harness/config.h), so --resume keeps them. Declare it with for_reading(...).
  bool reading_only = false;
};

// The key spec, marked reading-only.
inline KeySpec for_reading(KeySpec spec) {
  spec.reading_only = true;
  return spec;
}

// "an integer", "a list of numbers", ... (for messages)
std::string type_name(KeyType t);
// Whether v has type t (an integer is also a number; lists must hold only their element type).
bool has_type(const nlohmann::json& v, KeyType t);
// The value `text` spells for a key of type t (--set key=text, a hybrid layer's key=text): a number,
// true/false, a string, or a comma-separated list; nullopt when text is not of the type. The domain
// is check_key_value's.
std::optional<nlohmann::json> parse_key_text(KeyType t, const std::string& text);
// The domain in words ("an integer in [1, 1000000]"), or "" when any value of the type is allowed.
std::string domain_of(const KeySpec& spec);
// Throws ConfigError naming the key (and `origin`) when v lies outside the key's declared domain.
void check_key_value(const KeySpec& spec, const nlohmann::json& v, const std::string& origin);

// The integer in v, range-checked before it is narrowed (nlohmann's get<int> cuts 4294967297 to 1):
// UsageError "<what> must be an integer in [lo, hi] (got v)" when v is not an integer or lies outside.
// Readers of files (checkpoints, training states) call it for every integer field.
long long checked_int(const nlohmann::json& v, const std::string& what, long long lo, long long hi);
inline int checked_int32(const nlohmann::json& v, const std::string& what, long long lo = 0,
                         long long hi = std::numeric_limits<int>::max()) {
  return int(checked_int(v, what, lo, hi));
}

}  // namespace pe
