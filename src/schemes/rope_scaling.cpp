#include "schemes/rope_scaling.h"

#include <cmath>
#include <filesystem>
#include <map>
#include <set>

#include <fmt/format.h>

#include "core/errors.h"
#include "core/files.h"
#include "schemes/frequency_plan.h"

namespace pe {

using nlohmann::json;

namespace {

struct Reader;
// What a rope_type's own fields turned into: the map's parameters so far, and the config's context.
struct TypeContext {
  const Reader& r;
  const json& dict;
  const std::string& where;
  const RopeScaling& out;
  json& p;
};

// Each rope_type pe-bench reads, one entry: the map it becomes, its required and optional fields
// (beside rope_type/type, rope_theta and partial_rotary_factor, which v5 keeps inside the
// dictionary), where its original length comes from, whether its factor may be null (v5: then
// max_position_embeddings / original), and the checks of its own fields.
//
// The original length N of llama3, yarn and longrope is resolved as Transformers v5 resolves it for
// either layout (v5 reads a v4 config by moving its fields into rope_parameters): the config's
// top-level original_max_position_embeddings (Phi-3 keeps it there) wins, else the dictionary's, else
// max_position_embeddings. So a v4 config (top-level fields, rope_scaling) and the same config in
// v5's layout (the fields inside rope_parameters) give the same map; tests/test_rope_scaling.cpp
// pairs the two layouts for every rope_type.
enum class OriginalFrom { Unused, ConfigMax, TopThenDictThenMax };
struct TypeFields {
  std::string map;
  std::set<std::string> required, optional;
  OriginalFrom original = OriginalFrom::Unused;
  bool nullable_factor = false;
  bool factor_from_lengths = false;  // a missing factor too is max_position_embeddings / N
  bool needs_original = false;       // N must resolve (from the dictionary or the config)
  void (*own)(const TypeContext&) = nullptr;
};
void positive(const TypeContext& c, const char* key);
void yarn_fields(const TypeContext& c);
void llama3_fields(const TypeContext& c);
void longrope_fields(const TypeContext& c);

const std::map<std::string, TypeFields>& rope_types() {
  static const std::map<std::string, TypeFields> t = {
      {"default", {"none", {}, {}}},
      {"linear", {"pi", {"factor"}, {}}},
      {"dynamic", {"dynamic", {"factor"}, {"original_max_position_embeddings"}, OriginalFrom::ConfigMax}},
      {"yarn",
       {"yarn-hf",
        {"factor"},
        {"attention_factor", "beta_fast", "beta_slow", "original_max_position_embeddings", "mscale", "mscale_all_dim",
         "truncate"},
        OriginalFrom::TopThenDictThenMax,
        true,
        false,
        false,
        yarn_fields}},
      {"longrope",
       {"longrope",
        {"short_factor", "long_factor"},
        {"attention_factor", "factor", "original_max_position_embeddings"},
        OriginalFrom::TopThenDictThenMax,
        true,
        true,
        false,
        longrope_fields}},
      {"llama3",
       {"llama3",
        {"factor", "low_freq_factor", "high_freq_factor"},
        {"original_max_position_embeddings"},
        OriginalFrom::TopThenDictThenMax,
        false,
        false,
        true,
        llama3_fields}},
  };
  return t;
}

std::string known_types() {
  std::string s;
  for (auto& [name, f] : rope_types()) s += fmt::format("{}{}", s.empty() ? "" : ", ", name);
  return s;
}

struct Reader {
  std::string what;
  [[noreturn]] void fail(const std::string& msg) const { throw UsageError(fmt::format("{}: {}", what, msg)); }
  double number(const json& j, const std::string& key, const std::string& where) const {
    const json& v = j.at(key);
    if (!v.is_number()) fail(fmt::format("{}{} must be a number (got {})", where, key, v.dump()));
    const double x = v.get<double>();
    if (!std::isfinite(x)) fail(fmt::format("{}{} must be finite", where, key));
    return x;
  }
  int integer(const json& j, const std::string& key, const std::string& where, int min) const {
    const double x = number(j, key, where);
    if (x != std::floor(x) || x < min || x > double(1 << 30))
      fail(fmt::format("{}{} must be a whole number >= {} (got {})", where, key, min, j.at(key).dump()));
    return int(x);
  }
};

void positive(const TypeContext& c, const char* key) {
  if (!c.dict.contains(key)) return;
  const double v = c.r.number(c.dict, key, c.where);
  if (!(v > 0)) c.r.fail(fmt::format("{}{} must be positive (got {})", c.where, key, v));
  c.p[key] = v;
}

void yarn_fields(const TypeContext& c) {
  for (const char* key : {"beta_fast", "beta_slow", "attention_factor"}) positive(c, key);
  for (const char* key : {"mscale", "mscale_all_dim"})
    if (c.dict.contains(key)) {
      const double v = c.r.number(c.dict, key, c.where);
      if (v < 0) c.r.fail(fmt::format("{}{} must not be negative (got {})", c.where, key, v));
      c.p[key] = v;
    }
  if (c.dict.contains("truncate")) {
    if (!c.dict["truncate"].is_boolean()) c.r.fail(fmt::format("{}truncate must be true or false", c.where));
    c.p["truncate"] = c.dict["truncate"].get<bool>();
  }
  const double fast = c.p.value("beta_fast", 32.0), slow = c.p.value("beta_slow", 1.0);
  if (!(fast > slow)) c.r.fail(fmt::format("{}beta_fast ({}) must exceed beta_slow ({})", c.where, fast, slow));
}

void llama3_fields(const TypeContext& c) {
  positive(c, "low_freq_factor"), positive(c, "high_freq_factor");
  const double lo = c.p["low_freq_factor"].get<double>(), hi = c.p["high_freq_factor"].get<double>();
  if (!(lo < hi)) c.r.fail(fmt::format("{}low_freq_factor ({}) must be below high_freq_factor ({})", c.where, lo, hi));
}

void longrope_fields(const TypeContext& c) {
  positive(c, "attention_factor");
  for (const char* key : {"short_factor", "long_factor"}) {
    const json& list = c.dict[key];
    if (!list.is_array() || list.empty())
      c.r.fail(fmt::format("{}{} must be a list of numbers, one per plane", c.where, key));
    json values = json::array();
    for (size_t i = 0; i < list.size(); ++i) {
      if (!list[i].is_number() || !(list[i].get<double>() > 0) || !std::isfinite(list[i].get<double>()))
        c.r.fail(fmt::format("{}{}[{}] must be a positive number (got {})", c.where, key, i, list[i].dump()));
      values.push_back(list[i].get<double>());
    }
    if (c.out.head_dim) {
      const int dim = int(*c.out.head_dim * c.out.partial_rotary_factor);
      if (int(values.size()) != dim / 2)
        c.r.fail(fmt::format("{}{} lists {} factors but the rotary width {} has {} planes", c.where, key, values.size(),
                             dim, dim / 2));
    }
    c.p[key] = values;
  }
}

}  // namespace

RopeScaling rope_scaling_from_json(const json& j, const std::string& what) {
  const Reader r{what};
  if (!j.is_object()) r.fail("expected a JSON object: a model's config.json or its rope_scaling dictionary");
  RopeScaling out;
  // A whole config, or the dictionary alone?
  const bool whole = j.contains("rope_scaling") || j.contains("rope_parameters") ||
                     j.contains("max_position_embeddings") || j.contains("hidden_size") || j.contains("model_type") ||
                     j.contains("num_attention_heads");
  json dict = json::object();
  if (whole) {
    if (j.contains("rope_scaling") && j.contains("rope_parameters") && !j["rope_scaling"].is_null() &&
        !j["rope_parameters"].is_null())
      r.fail("the config has both rope_scaling (Transformers v4) and rope_parameters (v5); keep one");
    for (const char* key : {"rope_scaling", "rope_parameters"})
      if (j.contains(key) && !j[key].is_null()) {
        if (!j[key].is_object()) r.fail(fmt::format("{} must be an object", key));
        dict = j[key];
        if (std::string(key) == "rope_parameters" && !dict.contains("rope_type") && !dict.contains("rope_theta"))
          r.fail(
              "rope_parameters holds per-layer-type entries (e.g. full_attention); give one layer type's dictionary");
      }
    if (j.contains("rope_theta")) out.rope_theta = r.number(j, "rope_theta", "");
    if (j.contains("max_position_embeddings"))
      out.max_position_embeddings = r.integer(j, "max_position_embeddings", "", 1);
    if (j.contains("original_max_position_embeddings"))
      out.original_max_position_embeddings = r.integer(j, "original_max_position_embeddings", "", 1);
    if (j.contains("partial_rotary_factor")) out.partial_rotary_factor = r.number(j, "partial_rotary_factor", "");
    if (j.contains("head_dim") && !j["head_dim"].is_null())
      out.head_dim = r.integer(j, "head_dim", "", 2);
    else if (j.contains("hidden_size") && j.contains("num_attention_heads")) {
      const int hidden = r.integer(j, "hidden_size", "", 1), heads = r.integer(j, "num_attention_heads", "", 1);
      if (hidden % heads)
        r.fail(fmt::format("hidden_size {} is not a multiple of num_attention_heads {}", hidden, heads));
      out.head_dim = hidden / heads;
    }
  } else {
    dict = j;
    if (!dict.contains("rope_type") && !dict.contains("type"))
      r.fail(
          "neither a config.json (no rope_scaling, rope_parameters or max_position_embeddings) nor a scaling "
          "dictionary (no rope_type); write e.g. {\"rope_type\": \"yarn\", \"factor\": 4}");
  }
  const std::string where =
      dict.empty() ? "" : (whole ? (j.contains("rope_parameters") ? "rope_parameters." : "rope_scaling.") : "");
  // rope_type (v4 also wrote "type")
  std::string type = "default";
  if (dict.contains("rope_type") || dict.contains("type")) {
    const json& t = dict.contains("rope_type") ? dict["rope_type"] : dict["type"];
    if (!t.is_string()) r.fail(fmt::format("{}rope_type must be a string", where));
    type = t.get<std::string>();
    if (dict.contains("rope_type") && dict.contains("type") && dict["type"] != dict["rope_type"])
      r.fail(fmt::format("{}type '{}' and rope_type '{}' differ", where, dict["type"].get<std::string>(), type));
  }
  const auto found = rope_types().find(type);
  if (found == rope_types().end())
    r.fail(fmt::format("{}rope_type '{}' is not one pe-bench reads (known: {})", where, type, known_types()));
  const TypeFields& fields = found->second;
  out.rope_type = type;
  for (auto it = dict.begin(); it != dict.end(); ++it) {
    const std::string& k = it.key();
    if (k == "rope_type" || k == "type" || k == "rope_theta" || k == "partial_rotary_factor") continue;
    if (!fields.required.count(k) && !fields.optional.count(k)) {
      std::string known;
      for (auto* set : {&fields.required, &fields.optional})
        for (auto& f : *set) known += fmt::format("{}{}", known.empty() ? "" : ", ", f);
      r.fail(fmt::format("{}{} is not a field of rope_type '{}' (its fields: {})", where, k, type,
                         known.empty() ? "none" : known));
    }
  }
  for (auto& k : fields.required)
    if (!dict.contains(k)) r.fail(fmt::format("{}{} is required for rope_type '{}'", where, k, type));
  if (dict.contains("rope_theta")) {
    const double t = r.number(dict, "rope_theta", where);
    if (out.rope_theta && *out.rope_theta != t)
      r.fail(fmt::format("rope_theta {} and {}rope_theta {} differ", *out.rope_theta, where, t));
    out.rope_theta = t;
  }
  if (dict.contains("partial_rotary_factor")) {
    const double f = r.number(dict, "partial_rotary_factor", where);
    // v5 lets the top level's win, v4 read the top level only: two values are a contradiction
    if (whole && j.contains("partial_rotary_factor") && out.partial_rotary_factor != f)
      r.fail(fmt::format("partial_rotary_factor {} and {}partial_rotary_factor {} differ", out.partial_rotary_factor,
                         where, f));
    out.partial_rotary_factor = f;
  }
  if (out.rope_theta && !rope_base_problem(*out.rope_theta).empty())
    r.fail(
        fmt::format("{}rope_theta {}", dict.contains("rope_theta") ? where : "", rope_base_problem(*out.rope_theta)));
  if (!(out.partial_rotary_factor > 0 && out.partial_rotary_factor <= 1))
    r.fail(fmt::format("partial_rotary_factor must be in (0, 1] (got {})", out.partial_rotary_factor));

  json p = json::object();
  // factor: >= 1 (a yarn/longrope factor may be null in v5: max_position_embeddings / original)
  double factor = 0;  // 0: none given
  if (dict.contains("factor") && !dict["factor"].is_null()) {
    factor = r.number(dict, "factor", where);
    if (!(factor >= 1)) r.fail(fmt::format("{}factor must be at least 1 (got {})", where, factor));
  } else if (dict.contains("factor") && !fields.nullable_factor) {
    r.fail(fmt::format("{}factor must be a number", where));
  }
  const int max_pos = out.max_position_embeddings.value_or(0),
            top_original = out.original_max_position_embeddings.value_or(0);
  int original = 0;  // 0: none
  if (dict.contains("original_max_position_embeddings"))
    original = r.integer(dict, "original_max_position_embeddings", where, 1);
  switch (fields.original) {
    case OriginalFrom::Unused:
      original = 0;
      break;
    case OriginalFrom::ConfigMax:  // Transformers divides by max_position_embeddings here
      if (max_pos) original = max_pos;
      break;
    case OriginalFrom::TopThenDictThenMax:  // v5's order for either layout (above)
      if (top_original) original = top_original;
      if (!original) original = max_pos;
      break;
  }
  if (fields.needs_original && !original)
    r.fail(
        fmt::format("{}original_max_position_embeddings is required for rope_type '{}' (in the dictionary, or "
                    "the config's original_max_position_embeddings or max_position_embeddings)",
                    where, type));
  if (fields.nullable_factor && !factor && dict.contains("factor")) {
    if (!original || !max_pos)
      r.fail(fmt::format(
          "{}factor is null and the config gives no max_position_embeddings and original length to divide", where));
    factor = double(max_pos) / original;
  }
  // longrope without a factor: Phi-3's max_position_embeddings / N, N from either layout
  if (fields.factor_from_lengths && !factor && max_pos && original) factor = double(max_pos) / original;
  if (factor && factor < 1)  // only a derived one can be: a stated factor was checked above
    r.fail(
        fmt::format("{}factor is max_position_embeddings / original_max_position_embeddings = {} / {}, below 1; "
                    "give factor or fix the lengths",
                    where, max_pos, original));
  if (factor) p["factor"] = factor;
  if (original) p["original_max_position_embeddings"] = original;
  if (fields.own) fields.own(TypeContext{r, dict, where, out, p});
  if (!fields.required.empty()) {  // (plain RoPE has no parameters to carry them)
    if (out.rope_theta) p["rope_theta"] = *out.rope_theta;
    if (out.head_dim) p["head_dim"] = *out.head_dim;
    if (out.partial_rotary_factor != 1.0) p["partial_rotary_factor"] = out.partial_rotary_factor;
  }
  try {
    out.map = parse_map(write_map(fields.map, p));  // read as written, so the map's own domains are checked too
  } catch (const UsageError& e) {
    r.fail(e.what());
  }
  return out;
}

namespace {
// The rope_type whose entry becomes `map_name`, or nullptr.
const std::pair<const std::string, TypeFields>* type_of_map(const std::string& map_name) {
  for (auto& entry : rope_types())
    if (entry.second.map == map_name) return &entry;
  return nullptr;
}
}  // namespace

bool has_rope_type(const MapSpec& spec) {
  return spec.map->rebase || spec.is_identity() || type_of_map(spec.map->name);
}

json rope_scaling_dict(const MapSpec& spec, double kappa, int train_len, int head_dim, double base) {
  if (spec.map->rebase || spec.is_identity()) return nullptr;
  const auto* type = type_of_map(spec.map->name);
  if (!type)
    throw UsageError(
        fmt::format("map '{}' has no Transformers rope_type (those are: {})", spec.written, known_types()));
  const TypeFields& f = type->second;
  json d = {{"rope_type", type->first}};
  for (auto it = spec.params.begin(); it != spec.params.end(); ++it)
    if (f.required.count(it.key()) || f.optional.count(it.key())) d[it.key()] = it.value();
  const auto takes = [&](const char* key) { return f.required.count(key) || f.optional.count(key); };
  if (takes("factor") && !d.contains("factor")) d["factor"] = std::max(kappa, 1.0);
  if (takes("original_max_position_embeddings") && !d.contains("original_max_position_embeddings"))
    d["original_max_position_embeddings"] = train_len;
  // lists Transformers requires and pe-bench defaults (longrope: short 1, long 1 / the code YaRN's factors)
  if (f.required.count("short_factor") && !d.contains("short_factor"))
    d["short_factor"] = std::vector<double>(size_t(head_dim / 2), 1.0);
  if (f.required.count("long_factor") && !d.contains("long_factor")) {
    std::vector<double> long_factor;
    for (double x : spec.factors(head_dim, base, train_len, std::max(kappa, 1.0))) long_factor.push_back(1.0 / x);
    d["long_factor"] = long_factor;
  }
  return d;
}

RopeScaling parse_rope_scaling(const std::string& text, const std::string& what) {
  size_t first = text.find_first_not_of(" \t\r\n");
  const bool inline_json = first != std::string::npos && text[first] == '{';
  std::string body;
  if (inline_json)
    body = text;
  else {
    if (text.empty()) throw UsageError(fmt::format("{}: give a config.json path or a JSON dictionary", what));
    try {
      body = read_file(text);
    } catch (const IoError&) {
      // a file that is there but cannot be read whole (past read_file's bound, e.g. /dev/zero; no
      // permission) is the I/O error it is (exit 5); a path that names no file is a usage error
      std::error_code ec;
      if (std::filesystem::exists(text, ec) && !std::filesystem::is_directory(text, ec)) throw;
      throw UsageError(
          fmt::format("{}: cannot read '{}' (give a config.json path or JSON such as "
                      "'{{\"rope_type\":\"yarn\",\"factor\":4}}')",
                      what, text));
    }
  }
  json j;
  try {
    j = parse_json(body);  // core/files.h: a key twice and a number past a double are refused too
  } catch (const json::exception& e) {
    throw UsageError(fmt::format("{}: {} is not valid JSON ({})", what, inline_json ? "the value" : text, e.what()));
  }
  return rope_scaling_from_json(j, inline_json ? what : fmt::format("{} {}", what, text));
}

}  // namespace pe
