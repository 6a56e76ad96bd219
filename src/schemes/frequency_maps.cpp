#include "schemes/frequency_maps.h"

#include <algorithm>

#include "core/frequencies.h"
#include "core/math.h"
#include "schemes/frequency_plan.h"

namespace pe {

namespace {
FrequencyMap entry(const std::string& name, const std::string& help,
                   std::function<double(const FrequencyMapArgs&, int)> factor) {
  FrequencyMap m;
  m.name = m.spelling = name;
  m.help = help;
  m.factor = std::move(factor);
  return m;
}
}  // namespace

const std::vector<FrequencyMap>& frequency_maps() {
  static const std::vector<FrequencyMap> maps = [] {
    std::vector<FrequencyMap> m;
    m.push_back(entry("none", "plain RoPE: the trained frequencies", [](const FrequencyMapArgs&, int) { return 1.0; }));
    m.push_back(entry("pi", "position interpolation: every plane slowed by 1/kappa",
                      [](const FrequencyMapArgs& a, int) { return 1.0 / a.kappa; }));
    m.push_back(entry("ntk", "NTK-aware: base -> base kappa^(d/(d-2)), i.e. plane j slowed by kappa^(-2j/(d-2))",
                      [](const FrequencyMapArgs& a, int j) { return math::pow(a.kappa, -2.0 * j / (a.d - 2)); }));
    FrequencyMap yarn = entry(
        "yarn",
        "YaRN: planes that turn often in training kept, slow ones interpolated (a ramp on L/lambda_j), logits times "
        "(0.1 ln kappa + 1)^2",
        [](const FrequencyMapArgs& a, int j) {
          const double lambda = plane_wavelength(j, a.d, a.base);
          const double g = std::clamp((a.train_len / lambda - kYarnAlpha) / (kYarnBeta - kYarnAlpha), 0.0, 1.0);
          return (1.0 - g) / a.kappa + g;
        });
    yarn.logit_scale = [](const FrequencyMapArgs& a) { return yarn_logit_scale(a.kappa); };
    m.push_back(yarn);
    m.push_back(entry("selective", "planes whose wavelength exceeds the training length slowed by 1/kappa",
                      [](const FrequencyMapArgs& a, int j) {
                        return plane_wavelength(j, a.d, a.base) > a.train_len ? 1.0 / a.kappa : 1.0;
                      }));
    FrequencyMap rebase = entry("base", "read with another base B (> 1) at every length",
                                [](const FrequencyMapArgs& a, int j) {
                                  return plane_frequency(j, a.d, a.value) / plane_frequency(j, a.d, a.base);
                                });
    rebase.spelling = "base=B";
    rebase.takes_value = true;
    rebase.rebase = [](const FrequencyMapArgs& a) { return a.value; };
    m.push_back(rebase);
    return m;
  }();
  return maps;
}

const std::string& identity_map() { return frequency_maps().front().name; }

bool is_identity_map(const std::string& written) { return written == identity_map(); }

const FrequencyMap* find_frequency_map(const std::string& written, double* value) {
  const size_t eq = written.find('=');
  const std::string name = written.substr(0, eq);
  for (const FrequencyMap& m : frequency_maps()) {
    if (m.name != name || m.takes_value != (eq != std::string::npos)) continue;
    if (!m.takes_value) return &m;
    try {
      size_t used = 0;
      const std::string text = written.substr(eq + 1);
      const double v = std::stod(text, &used);
      if (used != text.size() || !(v > 1.0)) return nullptr;
      if (value) *value = v;
      return &m;
    } catch (...) {
      return nullptr;
    }
  }
  return nullptr;
}

std::string known_maps() {
  std::string s;
  for (const FrequencyMap& m : frequency_maps()) {
    if (!s.empty()) s += ", ";
    s += m.spelling;
  }
  return s + " (B > 1)";
}

}  // namespace pe
