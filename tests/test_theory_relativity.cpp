// The commutant projection and the relativity defect: Pi against the numerically computed commutant of
// the shift rotations, the offset-only theorem, and E delta^2 = 1 - 1/d.
#include <doctest/doctest.h>

#include <Eigen/Dense>
#include <random>

#include "theory/relativity.h"
#include "theory/sinusoidal_geometry.h"

using namespace pe::theory;

namespace {

Eigen::MatrixXd gaussian(int d, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> g;
  Eigen::MatrixXd M(d, d);
  for (Eigen::Index i = 0; i < M.size(); ++i) M.data()[i] = g(rng);
  return M;
}

}  // namespace

TEST_CASE("theory: relative_projection is the projection onto the commutant of the shifts") {
  const int d = 8;
  const double b = 10000;
  // Commutant computed numerically: null space of M -> [R(k), M] for k = 1, 1000 (vec(RM - MR) =
  // (I (x) R - R^T (x) I) vec M), then the orthogonal projection onto it.
  Eigen::MatrixXd L(2 * d * d, d * d);
  const Eigen::MatrixXd I = Eigen::MatrixXd::Identity(d, d);
  for (int t = 0; t < 2; ++t) {
    const Eigen::MatrixXd R = shift_rotation(t == 0 ? 1 : 1000, d, b);
    Eigen::MatrixXd K(d * d, d * d);
    for (int i = 0; i < d; ++i)
      for (int j = 0; j < d; ++j) K.block(i * d, j * d, d, d) = I(i, j) * R - R(j, i) * I;
    L.middleRows(t * d * d, d * d) = K;
  }
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(L.transpose() * L);
  CHECK(es.eigenvalues()(d - 1) < 1e-12);  // exactly d null directions (2 per plane)
  CHECK(es.eigenvalues()(d) > 1e-3);
  const Eigen::MatrixXd N = es.eigenvectors().leftCols(d);
  const Eigen::MatrixXd M = gaussian(d, 1);
  const Eigen::VectorXd vm = Eigen::Map<const Eigen::VectorXd>(M.data(), d * d);
  const Eigen::VectorXd proj = N * (N.transpose() * vm);
  const Eigen::MatrixXd P = relative_projection(M);
  CHECK((Eigen::Map<const Eigen::MatrixXd>(proj.data(), d, d) - P).norm() < 1e-10);
  // projection properties
  CHECK((relative_projection(P) - P).norm() < 1e-14);
  CHECK(std::abs(((M - P).array() * P.array()).sum()) < 1e-12);
  CHECK(relativity_defect(P) == 0.0);
  CHECK(relativity_defect(M) == doctest::Approx((M - P).norm() / M.norm()));
  CHECK_THROWS(relative_projection(Eigen::MatrixXd::Zero(3, 3)));
}

TEST_CASE("theory: defect 0 gives offset-only scores, a random matrix does not") {
  const int d = 16;
  const Eigen::MatrixXd M = gaussian(d, 2);
  CHECK(offset_score_spread(relative_projection(M), 10000, 20, 10, 20000, 4) < 1e-9);
  CHECK(offset_score_spread(M, 10000, 20, 10, 20000, 4) > 1.0);
  // a tiny leak off the commutant shows up in proportion
  const Eigen::MatrixXd leaky = relative_projection(M) + 1e-3 * (M - relative_projection(M));
  const double s = offset_score_spread(leaky, 10000, 20, 10, 20000, 4);
  CHECK(s > 1e-4);
  CHECK(s < 1.0);
  const auto j = relativity_report();
  CHECK(j["commutant_check"]["defect_zero_matrix"]["max_score_spread_at_fixed_offset"].get<double>() < 1e-9);
}

TEST_CASE("theory: mean squared defect of a Gaussian matrix is 1 - 1/d") {
  for (int d : {4, 16}) {
    const auto mo = gaussian_defect_moments(d, 4000, 77 + d);
    CHECK(std::abs(mo.mean_sq - (1.0 - 1.0 / d)) < 4 * mo.stderr_mean);
  }
  // The exact law: ||Pi M||^2 / ||M||^2 ~ Beta(d/2, (d^2-d)/2), variance of delta^2 = ab/((a+b)^2(a+b+1))
  const int d = 16;
  const double a = d / 2.0, bb = (d * d - d) / 2.0;
  const double sd = std::sqrt(a * bb / ((a + bb) * (a + bb) * (a + bb + 1)));
  const auto mo = gaussian_defect_moments(d, 4000, 5);
  CHECK(mo.stderr_mean * std::sqrt(3999.0) == doctest::Approx(sd).epsilon(0.08));
}
