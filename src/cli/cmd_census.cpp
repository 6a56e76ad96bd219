// pe-bench census: each RoPE plane's wavelength, whether it turns fully over the training offsets,
// and each context-extension map's per-plane factor.
#include <fmt/format.h>

#include <cmath>

#include "cli/common.h"
#include "core/errors.h"
#include "core/frequencies.h"
#include "experiments/config.h"
#include "schemes/frequency_plan.h"

namespace pe::cli {

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
  sub->add_option("--dim", o->dim, "head width d (even)")->capture_default_str();
  sub->add_option("--train-length", o->train_length, "training length L")->capture_default_str();
  sub->add_option("--base", o->base, "frequency base b")->capture_default_str();
  sub->add_option("--kappa", o->kappa, "comma-separated read/train length ratios")->capture_default_str();
  sub->add_option("--maps", o->maps, "comma-separated maps: pi, ntk, yarn, selective")->capture_default_str();
  sub->add_flag("--json", o->json, "print JSON instead of the table");
  sub->callback([o] {
    if (o->dim < 4 || o->dim % 2) throw UsageError("--dim must be even and at least 4");
    if (o->train_length < 2) throw UsageError("--train-length must be at least 2");
    if (!(o->base > 1)) throw UsageError("--base must be greater than 1");
    const auto kappas = parse_length_list(o->kappa, "--kappa");
    std::vector<std::string> maps;
    for (size_t a = 0, b; a <= o->maps.size(); a = b + 1) {
      b = o->maps.find(',', a);
      if (b == std::string::npos) b = o->maps.size();
      const std::string m = o->maps.substr(a, b - a);
      if (m != "pi" && m != "ntk" && m != "yarn" && m != "selective")
        throw UsageError(fmt::format("--maps: '{}' is not a factor map (pi, ntk, yarn, selective)", m));
      maps.push_back(m);
    }
    const int d = o->dim, L = o->train_length, P = d / 2;
    nlohmann::json planes = nlohmann::json::array();
    for (int j = 0; j < P; ++j) {
      const double theta = plane_frequency(j, d, o->base), lambda = plane_wavelength(j, d, o->base);
      const double turns = (L - 1) * theta / (2 * M_PI);
      nlohmann::json f = nlohmann::json::object();
      for (auto& m : maps) {
        nlohmann::json per = nlohmann::json::object();
        for (int k : kappas) per[std::to_string(k)] = plane_factors(m, d, o->base, L, k)[j];
        f[m] = per;
      }
      planes.push_back({{"plane", j}, {"theta", theta}, {"wavelength", lambda}, {"turns_over_training_offsets", turns},
                        {"completes_turn", turns >= 1.0}, {"factors", f}});
    }
    nlohmann::json scale = nlohmann::json::object();
    for (int k : kappas) scale[std::to_string(k)] = yarn_logit_scale(k);
    const nlohmann::json out = {{"d", d}, {"base", o->base}, {"train_length", L}, {"kappas", kappas},
                                {"completes_turn_rule", "(L-1) theta_j >= 2 pi"}, {"yarn_alpha", kYarnAlpha},
                                {"yarn_beta", kYarnBeta}, {"planes", planes}, {"yarn_logit_scale", scale}};
    if (o->json) {
      fmt::print("{}\n", out.dump(2));
      return;
    }
    fmt::print("RoPE census: d = {}, base = {}, training length L = {} (turns over offsets 0..L-1)\n", d, o->base, L);
    std::string head = fmt::format("{:>5} {:>12} {:>7} {:>6}", "plane", "wavelength", "turns", "full?");
    for (auto& m : maps)
      for (int k : kappas) head += fmt::format(" {:>10}", fmt::format("{} k={}", m, k));
    fmt::print("{}\n", head);
    for (auto& p : planes) {
      std::string line = fmt::format("{:>5} {:>12.2f} {:>7.3f} {:>6}", p["plane"].get<int>(), p["wavelength"].get<double>(),
                                     p["turns_over_training_offsets"].get<double>(), p["completes_turn"].get<bool>() ? "yes" : "no");
      for (auto& m : maps)
        for (int k : kappas) line += fmt::format(" {:>10.4f}", p["factors"][m][std::to_string(k)].get<double>());
      fmt::print("{}\n", line);
    }
    std::string ys = "yarn logit scale (0.1 ln kappa + 1)^2:";
    for (int k : kappas) ys += fmt::format("  kappa {}: {:.6f}", k, yarn_logit_scale(k));
    fmt::print("{}\n", ys);
  });
}

}  // namespace pe::cli
