// pe-bench census: each RoPE plane's wavelength, whether it turns fully over the training offsets,
// and each context-extension map's per-plane factor (theory/census.h computes and renders it).
#include <fmt/format.h>

#include <sstream>

#include "cli/common.h"
#include "core/errors.h"
#include "core/frequencies.h"
#include "schemes/frequency_plan.h"
#include "theory/census.h"

namespace pe::cli {

namespace {
std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(text);
  while (std::getline(in, part, ',')) parts.push_back(part);
  return parts;
}
}  // namespace

void register_census(CLI::App& app) {
  struct Opts {
    int dim = 16, train_length = 32;
    double base = kDefaultBase;
    std::string kappa = "2,4,8", maps = "pi,ntk,yarn,selective";
    bool json = false;
  };
  auto o = std::make_shared<Opts>();
  auto* sub = app.add_subcommand("census", "RoPE's wavelength census: per plane, the wavelength, the turns it makes over "
                                           "the training offsets, and each map's factor theta'_j/theta_j at each kappa");
  sub->add_option("--d-head", o->dim, "head width d (even; d_model / n_heads of a model)")->capture_default_str();
  add_renamed_option(sub, "--dim", "--d-head");
  sub->add_option("--train-length", o->train_length, "training length L")->capture_default_str();
  sub->add_option("--base", o->base, "frequency base b")->capture_default_str();
  sub->add_option("--kappa", o->kappa, "comma-separated read/train length ratios (> 0, e.g. 1.5,2,4)")->capture_default_str();
  sub->add_option("--maps", o->maps, "comma-separated maps: " + known_maps())->capture_default_str();
  sub->add_flag("--json", o->json, "print JSON instead of the table");
  sub->callback([o] {
    // a census is a table of d/2 planes: 65,536 of them is far past any head, and a list that size
    // is where a mistyped number would start exhausting memory
    if (o->dim < 4 || o->dim % 2 || o->dim > 131072)
      throw UsageError(fmt::format("--d-head must be even and in [4, 131072] (got {})", o->dim));
    if (o->train_length < 2 || o->train_length > (1 << 24))
      throw UsageError(fmt::format("--train-length must be in [2, 16777216] (got {})", o->train_length));
    if (!(o->base > 1)) throw UsageError("--base must be greater than 1");
    std::vector<double> kappas;
    for (auto& k : split_commas(o->kappa)) {
      size_t used = 0;
      double v = 0;
      try {
        v = std::stod(k, &used);
      } catch (...) {
      }
      if (used != k.size() || k.empty() || !(v > 0))
        throw UsageError(fmt::format("--kappa: '{}' is not a positive number (write e.g. 2,4,8)", k));
      kappas.push_back(v);
    }
    const auto maps = parse_map_list(o->maps, "--maps");
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
