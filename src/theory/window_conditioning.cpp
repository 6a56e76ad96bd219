#include "theory/window_conditioning.h"

#include <Eigen/Dense>
#include <cmath>
#include <limits>

#include "core/frequencies.h"
#include "theory/sinusoidal_geometry.h"

namespace pe::theory {

namespace {

std::vector<double> to_doubles(const std::vector<HighFloat>& v) {
  std::vector<double> out;
  for (const auto& x : v) out.push_back(static_cast<double>(x));
  return out;
}

}  // namespace

nlohmann::json window_conditioning_report() {
  const int d = 16;
  const double base = pe::kDefaultBase;
  nlohmann::json rows = nlohmann::json::array();
  std::vector<double> exact64;
  for (int W : {16, 64, 256, 4096}) {
    const auto sv = window_singular_values<HighFloat>(d, W, base);
    const HighFloat cond = sv.front() / sv.back();
    // What double precision would have said: SVD of the same matrix in double.
    const Eigen::MatrixXd A = sinusoidal_matrix(W, d, base).transpose();  // d x W
    const Eigen::VectorXd sd = Eigen::JacobiSVD<Eigen::MatrixXd>(A).singularValues();
    rows.push_back({{"window", W},
                    {"cond", static_cast<double>(cond)},
                    {"log10_cond", static_cast<double>(log10(cond))},
                    {"cond_digits", cond.str(30, std::ios_base::scientific)},
                    {"sigma_max", static_cast<double>(sv.front())},
                    {"sigma_min", static_cast<double>(sv.back())},
                    {"double_svd_cond", sd(0) / sd(d - 1)}});
    if (W == 64) exact64 = to_doubles(sv);
  }
  // Numerical rank in double over 64 positions: Eigen JacobiSVD, tolerance max(d, W) * eps * sigma_max
  // (the LAPACK / numpy matrix_rank rule).
  const int W = 64;
  const Eigen::MatrixXd A = sinusoidal_matrix(W, d, base).transpose();
  const Eigen::VectorXd sd = Eigen::JacobiSVD<Eigen::MatrixXd>(A).singularValues();
  const double tol = std::max(d, W) * std::numeric_limits<double>::epsilon() * sd(0);
  int rank = 0;
  for (int i = 0; i < sd.size(); ++i) rank += sd(i) > tol;
  std::vector<double> sdv(sd.data(), sd.data() + sd.size());
  return {{"d", d},
          {"base", base},
          {"precision_bits", kHighPrecisionBits},
          {"decimal_digits", std::numeric_limits<HighFloat>::digits10},
          {"method", "sqrt(lambda_max/lambda_min) of the d x d Gram, cyclic Jacobi in the high-precision type"},
          {"rows", rows},
          {"numerical_rank_double",
           {{"positions", W},
            {"rank", rank},
            {"tolerance_rule", "max(d, W) * eps_double * sigma_max, Eigen JacobiSVD"},
            {"tolerance", tol},
            {"singular_values_double", sdv},
            {"singular_values_exact", exact64}}}};
}

}  // namespace pe::theory
