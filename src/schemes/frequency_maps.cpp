#include "schemes/frequency_maps.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "core/errors.h"
#include "core/frequencies.h"
#include "core/math.h"
#include "core/sha1.h"

namespace pe {

double frequency_ramp(double x, double lo, double hi) { return std::clamp((x - lo) / (hi - lo), 0.0, 1.0); }

double yarn_mscale(double s, double m) { return s <= 1.0 ? 1.0 : 0.1 * m * math::log(s) + 1.0; }

double yarn_logit_scale(double kappa) {
  if (kappa <= 1.0) return 1.0;
  const double t = 0.1 * math::log(kappa) + 1.0;
  return t * t;
}

std::string rope_base_problem(double base) {
  if (std::isfinite(base) && base > 1 && base <= kMaxRopeBase) return "";
  return fmt::format("must be a number greater than 1 and at most {:g} (got {})", kMaxRopeBase, base);
}

void check_rope_base(double base, const std::string& what) {
  const std::string problem = rope_base_problem(base);
  if (!problem.empty()) throw UsageError(fmt::format("{} {}", what, problem));
}

double compress_distance(double d, double w, double s) {
  const double a = std::abs(d);
  if (a <= w) return d;
  return std::copysign(w + (a - w) / s, d);
}

namespace {
using Kind = MapParam::Kind;
constexpr double kHuge = 1e12;

FrequencyMap entry(const std::string& name, const std::string& help,
                   std::function<double(const FrequencyMapArgs&, int)> factor) {
  FrequencyMap m;
  m.name = m.spelling = name;
  m.help = help;
  m.factor = std::move(factor);
  return m;
}

// The parameters every practitioners' map shares (Transformers' names), and their checks.
std::vector<MapParam> practitioner_params() {
  return {{"factor", Kind::Number, "the context extension factor (>= 1; default: the reading's kappa, at least 1)", 1,
           kHuge},
          {"original_max_position_embeddings", Kind::Integer,
           "the length the model was trained at (default: its training length)", 1, 1 << 30},
          {"rope_theta", Kind::Number, "the base a config states (must be the model's)", 1, kMaxRopeBase, true},
          {"head_dim", Kind::Integer, "the head width a config states (must be the model's)", 2, 1 << 20},
          {"partial_rotary_factor", Kind::Number,
           "the rotary share of the head a config states (Transformers' meaning)", 0, 1, true}};
}
std::vector<MapParam> with(std::vector<MapParam> a, const std::vector<MapParam>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}
double factor_of(const FrequencyMapArgs& a) { return a.number("factor", std::max(1.0, a.kappa)); }
double original_of(const FrequencyMapArgs& a) { return a.number("original_max_position_embeddings", a.train_len); }

void check_stated_head(const FrequencyMapArgs& a) {
  if (a.has("rope_theta") && std::abs(a.number("rope_theta", 0) / a.base - 1.0) > 1e-12)
    throw UsageError(fmt::format("rope_theta is {} but the model's base is {}; the config describes another model",
                                 a.number("rope_theta", 0), a.base));
  if (a.has("head_dim")) {
    const double f = a.number("partial_rotary_factor", 1.0);
    const int hd = int(a.number("head_dim", 0)), dim = int(hd * f);
    if (dim != a.d)
      throw UsageError(f == 1.0 ? fmt::format("head_dim is {} but the model's heads are {} wide", hd, a.d)
                                : fmt::format("head_dim {} x partial_rotary_factor {} gives a rotary width of {}, "
                                              "but the head read here rotates {} coordinates",
                                              hd, f, dim, a.d));
  }
}

// The code YaRN (Transformers' _compute_yarn_parameters): a ramp linear in the plane index j between
// the correction dimensions of beta_fast and beta_slow turns over the original length.
double code_yarn_factor(const FrequencyMapArgs& a, int j) {
  const double factor = factor_of(a), orig = original_of(a);
  const double beta_fast = a.number("beta_fast", 32), beta_slow = a.number("beta_slow", 1);
  auto correction_dim = [&](double turns) {
    return a.d * math::log(orig / (turns * 2.0 * M_PI)) / (2.0 * math::log(a.base));
  };
  double low = correction_dim(beta_fast), high = correction_dim(beta_slow);
  if (a.flag("truncate", true)) low = std::floor(low), high = std::ceil(high);
  low = std::max(low, 0.0), high = std::min(high, double(a.d - 1));
  if (low == high) high += 0.001;                            // the code's guard against a zero-width ramp
  const double interpolated = frequency_ramp(j, low, high);  // 0: kept, 1: divided by factor
  return ramp_blend(1.0 - interpolated, factor);
}
double code_yarn_attention(const FrequencyMapArgs& a) {
  if (a.has("attention_factor")) return a.number("attention_factor", 1);
  const double factor = factor_of(a), m = a.number("mscale", 0), m_all = a.number("mscale_all_dim", 0);
  if (m != 0 && m_all != 0) return yarn_mscale(factor, m) / yarn_mscale(factor, m_all);
  return yarn_mscale(factor);
}

// longrope's per-plane factors: given, or (no lists) short 1 and long the code YaRN's 1/factor_j.
std::vector<double> longrope_factors(const FrequencyMapArgs& a, bool long_side) {
  const std::string key = long_side ? "long_factor" : "short_factor";
  if (a.has(key)) return a.list(key);
  std::vector<double> f(a.d / 2, 1.0);
  if (long_side)
    for (int j = 0; j < a.d / 2; ++j) f[j] = 1.0 / code_yarn_factor(a, j);
  return f;
}
bool longrope_long(const FrequencyMapArgs& a) { return a.pass_len > original_of(a); }

double dynamic_base(const FrequencyMapArgs& a) {
  const double factor = factor_of(a), orig = original_of(a);
  const double seq = std::max(double(a.pass_len), orig);
  return a.base * math::pow(factor * seq / orig - (factor - 1.0), double(a.d) / (a.d - 2));
}

FrequencyMap dynamic_entry(const std::string& name, bool recompute) {
  FrequencyMap m = entry(
      name,
      std::string(
          "dynamic NTK (Transformers): above the original length N the base becomes base (f n/N - f + 1)^(d/(d-2)) "
          "for the current length n; cached keys ") +
          (recompute ? "turned again under each step's base" : "keep the base they entered under"),
      [](const FrequencyMapArgs& a, int j) { return math::pow(dynamic_base(a) / a.base, -2.0 * j / a.d); });
  m.params = practitioner_params();
  m.identity_within_training = false;
  m.length_dependent = true;
  m.recompute_cached_keys = recompute;
  m.check = check_stated_head;
  return m;
}

}  // namespace

const std::vector<FrequencyMap>& frequency_maps() {
  static const std::vector<FrequencyMap> maps = [] {
    std::vector<FrequencyMap> m;
    m.push_back(entry("none", "plain RoPE: the trained frequencies", [](const FrequencyMapArgs&, int) { return 1.0; }));
    FrequencyMap pi = entry(
        "pi",
        "position interpolation: every plane slowed by 1/kappa (pi:factor=f: by 1/f at every length, Transformers' "
        "linear)",
        [](const FrequencyMapArgs& a, int) { return a.has("factor") ? 1.0 / a.number("factor", 1) : 1.0 / a.kappa; });
    pi.params = practitioner_params();
    pi.params.erase(pi.params.begin() + 1);  // no original length: the factor alone
    pi.check = check_stated_head;
    pi.in_default_census = true;
    m.push_back(pi);
    FrequencyMap ntk = entry("ntk", "NTK-aware: base -> base kappa^(d/(d-2)), i.e. plane j slowed by kappa^(-2j/(d-2))",
                             [](const FrequencyMapArgs& a, int j) { return math::pow(a.kappa, -2.0 * j / (a.d - 2)); });
    ntk.in_default_census = true;
    m.push_back(ntk);
    FrequencyMap yarn = entry("yarn",
                              "YaRN (the paper): planes that turn often in training kept, slow ones interpolated (a "
                              "ramp on L/lambda_j), logits times "
                              "(0.1 ln kappa + 1)^2",
                              [](const FrequencyMapArgs& a, int j) {
                                const double turns = a.train_len / plane_wavelength(j, a.d, a.base);
                                return ramp_blend(frequency_ramp(turns, kYarnAlpha, kYarnBeta), a.kappa);
                              });
    yarn.attention_factor = [](const FrequencyMapArgs& a) { return 0.1 * math::log(a.kappa) + 1.0; };
    yarn.in_default_census = true;
    yarn.census_fields = [](nlohmann::json& census, const std::vector<double>& kappas) {
      nlohmann::json scale = nlohmann::json::array();
      for (double k : kappas) scale.push_back({{"kappa", k}, {"yarn_logit_scale", yarn_logit_scale(k)}});
      census["yarn_alpha"] = kYarnAlpha;
      census["yarn_beta"] = kYarnBeta;
      census["yarn_logit_scale"] = scale;
    };
    yarn.census_line = [](const nlohmann::json& census) {
      if (!census.contains("yarn_logit_scale")) return std::string();
      std::string out = "YaRN logit scale (0.1 ln kappa + 1)^2:";
      for (const auto& s : census["yarn_logit_scale"])
        out += fmt::format("  kappa {:g}: {:.6f}", s["kappa"].get<double>(), s["yarn_logit_scale"].get<double>());
      return out + "\n";
    };
    m.push_back(yarn);
    FrequencyMap selective = entry("selective", "planes whose wavelength exceeds the training length slowed by 1/kappa",
                                   [](const FrequencyMapArgs& a, int j) {
                                     return plane_wavelength(j, a.d, a.base) > a.train_len ? 1.0 / a.kappa : 1.0;
                                   });
    selective.in_default_census = true;
    m.push_back(selective);
    FrequencyMap rebase =
        entry("base", "read with another base B (> 1) at every length", [](const FrequencyMapArgs& a, int j) {
          return plane_frequency(j, a.d, a.value) / plane_frequency(j, a.d, a.base);
        });
    rebase.spelling = "base=B";
    rebase.takes_value = true;
    rebase.rebase = [](const FrequencyMapArgs& a) { return a.value; };
    m.push_back(rebase);

    // The practitioners' forms (Transformers' rope_scaling; docs/schemes.md says where each departs
    // from the paper form).
    FrequencyMap yarn_hf =
        entry("yarn-hf",
              "YaRN as Transformers computes it: a ramp linear in the plane index between the floor/ceil'd correction "
              "dimensions of beta_fast/beta_slow turns, attention factor 0.1 ln(factor) + 1 (or the mscale ratio)",
              code_yarn_factor);
    yarn_hf.params = with(
        practitioner_params(),
        {{"beta_fast", Kind::Number, "turns above which a plane is kept (default 32)", 0, kHuge, true},
         {"beta_slow", Kind::Number, "turns below which a plane is interpolated (default 1)", 0, kHuge, true},
         {"truncate", Kind::Bool, "floor/ceil the correction dimensions (default true)"},
         {"mscale", Kind::Number, "with mscale_all_dim: attention factor mscale(f, mscale)/mscale(f, mscale_all_dim)",
          0, kHuge},
         {"mscale_all_dim", Kind::Number, "see mscale", 0, kHuge},
         {"attention_factor", Kind::Number, "the attention factor itself (overrides the default)", 0, kHuge, true}});
    yarn_hf.identity_within_training = false;
    yarn_hf.paper_form = "yarn";
    yarn_hf.attention_factor = code_yarn_attention;
    yarn_hf.check = check_stated_head;
    m.push_back(yarn_hf);

    FrequencyMap llama3 = entry(
        "llama3",
        "Llama 3.1: planes with wavelength above N/low_freq_factor divided by factor, below N/high_freq_factor "
        "kept, a ramp on N/lambda_j between",
        [](const FrequencyMapArgs& a, int j) {
          const double turns = original_of(a) / plane_wavelength(j, a.d, a.base);
          const double keep = frequency_ramp(turns, a.number("low_freq_factor", 1), a.number("high_freq_factor", 4));
          return ramp_blend(keep, factor_of(a));
        });
    llama3.params =
        with(practitioner_params(),
             {{"low_freq_factor", Kind::Number,
               "N/low_freq_factor: the wavelength above which planes are interpolated (default 1)", 0, kHuge, true},
              {"high_freq_factor", Kind::Number,
               "N/high_freq_factor: the wavelength below which planes are kept (default 4)", 0, kHuge, true}});
    llama3.identity_within_training = false;
    llama3.check = [](const FrequencyMapArgs& a) {
      check_stated_head(a);
      if (!(a.number("low_freq_factor", 1) < a.number("high_freq_factor", 4)))
        throw UsageError(fmt::format("llama3: low_freq_factor ({}) must be below high_freq_factor ({})",
                                     a.number("low_freq_factor", 1), a.number("high_freq_factor", 4)));
    };
    m.push_back(llama3);

    m.push_back(dynamic_entry("dynamic", false));
    m.push_back(dynamic_entry("dynamic-recompute", true));

    FrequencyMap longrope =
        entry("longrope",
              "LongRoPE (Phi-3): plane j divided by short_factor[j] up to the original length, long_factor[j] past it; "
              "attention factor sqrt(1 + ln f / ln N). Without lists: short 1, long the code YaRN's",
              [](const FrequencyMapArgs& a, int j) { return 1.0 / longrope_factors(a, longrope_long(a))[j]; });
    longrope.params = with(
        practitioner_params(),
        {{"short_factor", Kind::List, "per-plane divisors up to the original length (default 1)", 0, kHuge, true},
         {"long_factor", Kind::List, "per-plane divisors past it (default: 1 / the code YaRN's factors)", 0, kHuge,
          true},
         {"attention_factor", Kind::Number, "the attention factor itself (overrides the default)", 0, kHuge, true}});
    longrope.identity_within_training = false;
    longrope.length_dependent = true;
    longrope.attention_factor = [](const FrequencyMapArgs& a) {
      if (a.has("attention_factor")) return a.number("attention_factor", 1);
      const double f = factor_of(a);
      return f <= 1.0 ? 1.0 : std::sqrt(1.0 + math::log(f) / math::log(original_of(a)));
    };
    longrope.check = [](const FrequencyMapArgs& a) {
      check_stated_head(a);
      for (const char* key : {"short_factor", "long_factor"})
        if (a.has(key) && int(a.list(key).size()) != a.d / 2)
          throw UsageError(fmt::format("longrope: {} lists {} factors but the rotary width {} has {} planes", key,
                                       a.list(key).size(), a.d, a.d / 2));
    };
    m.push_back(longrope);

    FrequencyMap compress;
    compress.name = compress.spelling = "compress";
    compress.help =
        "distance warp: relative distance d kept up to w, beyond it sign(d) (w + (|d| - w)/s); the trained "
        "frequencies";
    compress.params = {
        {"w", Kind::Number, "distances kept as they are (default: half the training length)", 0, kHuge},
        {"s", Kind::Number,
         "compression beyond w (>= 1; default: the longest distance of the reading lands on the longest trained one)",
         1, kHuge}};
    compress.identity_within_training = false;
    compress.warp = [](const FrequencyMapArgs& a) {
      const double w = a.number("w", std::floor(a.train_len / 2.0));
      const double longest = a.kappa * a.train_len - 1, trained = a.train_len - 1;
      const double s =
          a.has("s") ? a.number("s", 1) : (trained > w ? std::max(1.0, (longest - w) / (trained - w)) : 1.0);
      return std::pair<double, double>{w, s};
    };
    m.push_back(compress);

    // Qwen's logn attention (its modeling code: a query at 1-based index i > L scaled by log_L i), the
    // scaled softmax of Chiang and Cholak 2022 ("Overcoming a theoretical limitation of
    // self-attention") made a reading: here it multiplies the whole logit, scheme terms included.
    FrequencyMap logn = entry("logn",
                              "log-length scaling, for every scheme: each logit of a query that sees n keys times "
                              "max(1, ln n / ln L), L the training length; the trained frequencies",
                              [](const FrequencyMapArgs&, int) { return 1.0; });
    logn.scales_logits_by_length = true;
    m.push_back(logn);
    return m;
  }();
  return maps;
}

const std::string& identity_map() { return frequency_maps().front().name; }

bool is_identity_map(const std::string& written) { return written == identity_map(); }

bool MapSpec::is_identity() const { return map == &frequency_maps().front(); }

std::string MapSpec::label(const std::string& scheme, const std::string& sep) const {
  return is_identity() ? scheme : scheme + sep + written;
}

std::string MapSpec::slug() const {
  const size_t colon = written.find(':');
  if (colon == std::string::npos) return written;
  return fmt::format("{}-{}", written.substr(0, colon), sha1_hex(written).substr(0, 8));
}

namespace {
std::string write_value(const MapParam& p, const nlohmann::json& v) {
  switch (p.kind) {
    case Kind::Bool:
      return v.get<bool>() ? "true" : "false";
    case Kind::Integer:
      return fmt::format("{}", v.get<long long>());
    case Kind::Number:
      return fmt::format("{}", v.get<double>());
    case Kind::List: {
      std::string s;
      for (auto& x : v) s += fmt::format("{}{}", s.empty() ? "" : "/", x.get<double>());
      return s;
    }
  }
  return "";
}

// The whole of text as a finite number into *v; false when it is not one.
bool read_number(const std::string& text, double* v) {
  size_t used = 0;
  try {
    *v = std::stod(text, &used);
  } catch (...) {
    return false;
  }
  return !text.empty() && used == text.size() && std::isfinite(*v);
}

double parse_number(const std::string& map, const MapParam& p, const std::string& text) {
  double v = 0;
  if (!read_number(text, &v)) throw UsageError(fmt::format("{}: {}='{}' is not a number", map, p.name, text));
  if (v < p.min || (p.min_open && v == p.min) || v > p.max)
    throw UsageError(fmt::format("{}: {} = {} is out of range ({}{}, {}]: {}", map, p.name, text,
                                 p.min_open ? "(" : "[", p.min, p.max, p.help));
  if (p.kind == Kind::Integer && v != std::floor(v))
    throw UsageError(fmt::format("{}: {} = {} must be a whole number", map, p.name, text));
  return v;
}

nlohmann::json parse_value(const std::string& map, const MapParam& p, const std::string& text) {
  switch (p.kind) {
    case Kind::Bool:
      if (text == "true") return true;
      if (text == "false") return false;
      throw UsageError(fmt::format("{}: {} must be true or false (got '{}')", map, p.name, text));
    case Kind::Integer:
      return (long long)parse_number(map, p, text);
    case Kind::Number:
      return parse_number(map, p, text);
    case Kind::List: {
      nlohmann::json list = nlohmann::json::array();
      size_t start = 0;
      while (true) {
        const size_t slash = text.find('/', start);
        list.push_back(
            parse_number(map, p, text.substr(start, slash == std::string::npos ? std::string::npos : slash - start)));
        if (slash == std::string::npos) break;
        start = slash + 1;
      }
      return list;
    }
  }
  return nullptr;
}
}  // namespace

MapSpec parse_map(const std::string& written) {
  const size_t colon = written.find(':'), eq = written.find('=');
  const bool valued = eq != std::string::npos && (colon == std::string::npos || eq < colon);
  const std::string name = written.substr(0, valued ? eq : colon);
  MapSpec spec;
  spec.written = written;
  for (const FrequencyMap& m : frequency_maps())
    if (m.name == name) spec.map = &m;
  if (!spec.map) throw UsageError(fmt::format("unknown context-extension map '{}' (known: {})", written, known_maps()));
  const FrequencyMap& m = *spec.map;
  if (valued != m.takes_value)
    throw UsageError(m.takes_value ? fmt::format("map '{}' is written {} (e.g. base=20000)", written, m.spelling)
                                   : fmt::format("map '{}': {} takes no value (parameters are written {}:key=value)",
                                                 written, m.name, m.name));
  if (m.takes_value) {
    double v = 0;
    // the rule census --base and rope_theta meet (rope_base_problem), said in the map's words
    if (!read_number(written.substr(eq + 1), &v) || !rope_base_problem(v).empty())
      throw UsageError(fmt::format("map '{}': {} needs a number B > 1 and at most {:g} (write e.g. base=20000)",
                                   written, m.spelling, kMaxRopeBase));
    spec.value = v;
    return spec;
  }
  if (colon == std::string::npos) return spec;
  size_t start = colon + 1;
  while (true) {
    const size_t next = written.find(':', start);
    const std::string part = written.substr(start, next == std::string::npos ? std::string::npos : next - start);
    const size_t peq = part.find('=');
    if (peq == std::string::npos || peq == 0)
      throw UsageError(fmt::format("map '{}': '{}' is not key=value (write e.g. {}:{}=...)", written, part, m.name,
                                   m.params.empty() ? "key" : m.params.front().name));
    const std::string key = part.substr(0, peq);
    const auto p = std::find_if(m.params.begin(), m.params.end(), [&](const MapParam& x) { return x.name == key; });
    if (p == m.params.end()) {
      std::string known;
      for (auto& x : m.params) known += fmt::format("{}{}", known.empty() ? "" : ", ", x.name);
      throw UsageError(fmt::format("map '{}': unknown parameter '{}' of {} (known: {})", written, key, m.name,
                                   known.empty() ? "none" : known));
    }
    if (spec.params.contains(key)) throw UsageError(fmt::format("map '{}': parameter '{}' given twice", written, key));
    spec.params[key] = parse_value(m.name, *p, part.substr(peq + 1));
    if (next == std::string::npos) break;
    start = next + 1;
  }
  return spec;
}

std::string write_map(const std::string& name, const nlohmann::json& params) {
  const FrequencyMap* m = nullptr;
  for (const FrequencyMap& x : frequency_maps())
    if (x.name == name) m = &x;
  if (!m) throw UsageError(fmt::format("unknown context-extension map '{}' (known: {})", name, known_maps()));
  std::string s = name;
  for (const MapParam& p : m->params)
    if (params.contains(p.name)) s += fmt::format(":{}={}", p.name, write_value(p, params.at(p.name)));
  for (auto it = params.begin(); it != params.end(); ++it)
    if (std::none_of(m->params.begin(), m->params.end(), [&](const MapParam& p) { return p.name == it.key(); }))
      throw UsageError(fmt::format("{}: unknown parameter '{}'", name, it.key()));
  return s;
}

MapSpec bare_map(const FrequencyMap& entry) {
  MapSpec spec;
  spec.map = &entry;
  spec.written = entry.name;
  return spec;
}

MapSpec identity_spec() { return bare_map(frequency_maps().front()); }

std::vector<MapSpec> parse_maps(const std::vector<std::string>& written, const std::string& what) {
  std::vector<MapSpec> maps;
  for (auto& m : written) try {
      maps.push_back(parse_map(m));
    } catch (const UsageError& e) {
      throw UsageError(fmt::format("{}: {}", what, e.what()));
    }
  return maps;
}

std::vector<MapSpec> parse_map_list(const std::string& text, const std::string& what) {
  std::vector<std::string> maps;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = text.find(',', start);
    const std::string part = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (part.empty()) throw UsageError(fmt::format("{}: empty map name in '{}' (write e.g. pi,ntk)", what, text));
    maps.push_back(part);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return parse_maps(maps, what);
}

std::vector<MapSpec> default_census_maps() {
  std::vector<MapSpec> maps;
  for (const FrequencyMap& m : frequency_maps())
    if (m.in_default_census) maps.push_back(bare_map(m));
  return maps;
}

const FrequencyMap* find_frequency_map(const std::string& written, double* value) {
  try {
    const MapSpec spec = parse_map(written);
    if (value) *value = spec.value;
    return spec.map;
  } catch (const UsageError&) {
    return nullptr;
  }
}

std::string known_maps() {
  std::string s;
  for (const FrequencyMap& m : frequency_maps()) {
    if (!s.empty()) s += ", ";
    s += m.spelling;
  }
  return s + " (B > 1; parameters written name:key=value, e.g. yarn-hf:factor=4:truncate=false)";
}

}  // namespace pe
