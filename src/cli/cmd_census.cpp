// pe-bench census: each RoPE plane's wavelength, whether it turns fully over the training offsets,
// and each context-extension map's per-plane factor (theory/census.h computes and renders it).
#include <fmt/format.h>

#include <cmath>

#include "cli/common.h"
#include "core/errors.h"
#include "core/frequencies.h"
#include "core/memory.h"
#include "schemes/frequency_maps.h"
#include "schemes/rope_scaling.h"
#include "theory/census.h"

namespace pe::cli {

namespace {
// Every part, the empty ones too ("2," is "2" and "", which the caller refuses by name).
std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    parts.push_back(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return parts;
}

// Bytes a plain census report takes at its peak: per plane a row of JSON (its keys and numbers, 1 KB
// allowed) and per map and kappa one factor (an object entry, its key, and its text when printed).
// Measured on this build with --json, 200 kappas x 4 maps: d 256 (102,400 cells) 38 MB peak, d 512
// (204,800) 62 MB, about 270 bytes a cell over a 10 MB base; the estimate allows 300 and 64 MB.
double census_bytes(int d, size_t kappas, size_t maps) {
  return double(d / 2) * (1024.0 + 300.0 * double(kappas) * double(maps)) + 64.0 * 1024 * 1024;
}

// "pi,ntk,yarn,selective": a list as --maps writes it.
std::string written_list(const std::vector<MapSpec>& maps) {
  std::string s;
  for (const MapSpec& m : maps) s += (s.empty() ? "" : ",") + m.written;
  return s;
}
}  // namespace

// `census --rope-scaling`: the config's values and the flags must agree; the flags fill what the
// config does not state.
template <class Opts>
void census_rope_scaling(const CLI::App& sub, const Opts& o) {
  const RopeScaling rs = parse_rope_scaling(o.rope_scaling, "--rope-scaling");
  const bool dim_given = sub.count("--d-head") > 0, base_given = sub.count("--base") > 0;
  if (rs.head_dim && dim_given && *rs.head_dim != o.dim)
    throw UsageError(fmt::format("--d-head {} but the config's head_dim is {}; drop the flag or fix the config", o.dim,
                                 *rs.head_dim));
  if (rs.rope_theta && base_given && *rs.rope_theta != o.base)
    throw UsageError(fmt::format("--base {} but the config's rope_theta is {}; drop the flag or fix the config", o.base,
                                 *rs.rope_theta));
  const int head_dim = rs.head_dim.value_or(o.dim);
  const double base = rs.rope_theta.value_or(o.base);
  if (head_dim < 4 || head_dim > 131072)
    throw UsageError(fmt::format("head width {} must be in [4, 131072]", head_dim));
  if (!rs.rope_theta) check_rope_base(base, "--base");  // (a config's rope_theta was checked as it was read)
  const MapSpec& spec = rs.map;
  const bool train_given = sub.count("--train-length") > 0;
  int original = o.train_length;
  if (spec.params.contains("original_max_position_embeddings")) {
    original = spec.params["original_max_position_embeddings"].template get<int>();
    if (train_given && o.train_length != original)
      throw UsageError(fmt::format("--train-length {} but the config's original length is {}; drop the flag",
                                   o.train_length, original));
  } else if (rs.max_position_embeddings && !train_given) {
    original = *rs.max_position_embeddings;
  }
  const int length = o.length.value_or(original);
  if (length < 1 || length > (1 << 24))
    throw UsageError(fmt::format("--length must be in [1, 16777216] (got {})", length));
  const auto census =
      theory::rope_scaling_census(rs.map, rs.rope_type, head_dim, rs.partial_rotary_factor, base, original, length);
  if (o.json)
    fmt::print("{}\n", census.dump(2));
  else
    fmt::print("{}", theory::format_rope_scaling_census(census));
}

void register_census(CLI::App& app) {
  struct Opts {
    int dim = 16, train_length = 32;
    double base = kDefaultBase;
    std::string kappa = "2,4,8", maps = written_list(default_census_maps()), rope_scaling;
    std::optional<int> length;
    bool json = false;
  };
  auto o = std::make_shared<Opts>();
  auto* sub = app.add_subcommand("census",
                                 "RoPE's wavelength census: per plane, the wavelength, the turns it makes over "
                                 "the training offsets, and each map's factor theta'_j/theta_j at each kappa");
  sub->add_option("--d-head,--dim", o->dim, "head width d (even; d_model / n_heads of a model)")->capture_default_str();
  sub->add_option("--train-length", o->train_length, "training length L")->capture_default_str();
  sub->add_option("--base", o->base,
                  "frequency base b: a number in (1, 1e12], the rule of the map base=B and a config's rope_theta")
      ->capture_default_str();
  sub->add_option("--kappa", o->kappa,
                  "comma-separated read/train length ratios (finite, > 0, e.g. 1.5,2,4; none empty); the census's "
                  "planes x kappas x maps is checked against this machine's memory")
      ->capture_default_str();
  sub->add_option("--maps", o->maps, "comma-separated maps: " + known_maps())->capture_default_str();
  sub->add_option("--rope-scaling", o->rope_scaling,
                  "a Transformers config.json (path or JSON) or its rope_scaling dictionary, e.g. "
                  "'{\"rope_type\":\"yarn\",\"factor\":4,\"original_max_position_embeddings\":128}': print what "
                  "Transformers' initialiser returns per plane (inverse frequency) and the attention factor");
  sub->add_option("--length", o->length,
                  "with --rope-scaling: the sequence length of the read (dynamic and longrope depend on it; default: "
                  "the config's original length)");
  sub->add_flag("--json", o->json, "print JSON instead of the table");
  check_option_values(app);
  sub->callback([sub, o] {
    if (!o->rope_scaling.empty()) {
      census_rope_scaling(*sub, *o);
      return;
    }
    if (o->length) throw UsageError("--length belongs to --rope-scaling (the plain census reads --kappa)");
    // a census is a table of d/2 planes: 65,536 of them is far past any head, and a list that size
    // is where a mistyped number would start exhausting memory
    if (o->dim < 4 || o->dim % 2 || o->dim > 131072)
      throw UsageError(fmt::format("--d-head must be even and in [4, 131072] (got {})", o->dim));
    if (o->train_length < 2 || o->train_length > (1 << 24))
      throw UsageError(fmt::format("--train-length must be in [2, 16777216] (got {})", o->train_length));
    check_rope_base(o->base, "--base");  // the rule of the map base=B and a config's rope_theta
    std::vector<double> kappas;
    for (auto& k : split_commas(o->kappa)) {
      size_t used = 0;
      double v = 0;
      try {
        v = std::stod(k, &used);
      } catch (...) {
      }
      if (used != k.size() || k.empty() || !(v > 0) || !std::isfinite(v))
        throw UsageError(fmt::format("--kappa: '{}' is not a positive number (write e.g. 2,4,8)", k));
      kappas.push_back(v);
    }
    const auto maps = parse_map_list(o->maps, "--maps");
    // the report holds a row per plane, kappa and map: a size the arguments choose
    check_memory(
        census_bytes(o->dim, kappas.size(), maps.size()),
        fmt::format("a census of {} planes at {} kappas through {} maps", o->dim / 2, kappas.size(), maps.size()),
        "give fewer --kappa values or --maps, or a smaller --d-head");
    const auto census = theory::wavelength_census_report(o->dim, o->train_length, o->base, kappas, maps);
    if (o->json) {
      fmt::print("{}\n", census.dump(2));
      return;
    }
    fmt::print("RoPE census: d = {}, base = {}, training length L = {} (turns over offsets 0..L-1)\n", o->dim, o->base,
               o->train_length);
    fmt::print("{}", theory::format_census(census));
  });
}

}  // namespace pe::cli
