#include "theory/interpolation_bound.h"

#include <cmath>

#include "core/frequencies.h"
#include "core/math.h"

namespace pe::theory {

double sum_theta_sq(int d, double base) {
  double s = 0.0;
  for (int j = 0; j < d / 2; ++j) s += math::pow(pe::plane_frequency(j, d, base), 2);
  return s;
}

double published_theta_sq_constant(int d, double base) { return d / (4.0 * math::log(base)); }

double rope_score_curve(const std::vector<std::complex<double>>& h, double delta, double base) {
  const int d = 2 * int(h.size());
  double a = 0.0;
  for (int j = 0; j < d / 2; ++j) a += (h[j] * math::cis(delta * pe::plane_frequency(j, d, base))).real();
  return a;
}

double interpolation_error(const std::vector<std::complex<double>>& h, double D1, double D2, double delta,
                           double base) {
  const double t = (delta - D1) / (D2 - D1);
  const double lin = (1.0 - t) * rope_score_curve(h, D1, base) + t * rope_score_curve(h, D2, base);
  return std::abs(rope_score_curve(h, delta, base) - lin);
}

nlohmann::json interpolation_bound_report() {
  const double base = pe::kDefaultBase;
  nlohmann::json constants = nlohmann::json::array();
  for (int d : {16, 128})
    constants.push_back({{"d", d},
                         {"sum_theta_sq", sum_theta_sq(d, base)},
                         {"published_d_over_4lnb", published_theta_sq_constant(d, base)},
                         // how many times the published constant is too small
                         {"ratio", sum_theta_sq(d, base) / published_theta_sq_constant(d, base)}});
  // d = 128, all h_j = 1, on [0, 1] at Delta = 1/2: the prefactor 1/2 (1/2)(1/2) = 1/8, sum |h_j| = weights 1.
  const int d = 128;
  const double D1 = 0.0, D2 = 1.0, delta = 0.5;
  const std::vector<std::complex<double>> h(d / 2, 1.0);
  const double pre = 0.5 * (delta - D1) * (D2 - delta);
  const double actual = interpolation_error(h, D1, D2, delta, base);
  const double corrected = pre * sum_theta_sq(d, base);                 // sum_j |h_j| theta_j^2 with |h_j| = 1
  const double published = pre * published_theta_sq_constant(d, base);  // d max|h| / (4 ln b)
  return {{"base", base},
          {"constants", constants},
          {"example",
           {{"d", d},
            {"h", "all 1"},
            {"interval", {D1, D2}},
            {"delta", delta},
            {"actual_error", actual},
            {"published_bound", published},
            {"corrected_bound", corrected},
            {"corrected_over_published", corrected / published},
            {"published_holds", actual <= published},
            {"corrected_holds", actual <= corrected}}}};
}

}  // namespace pe::theory
