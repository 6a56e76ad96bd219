// Context-extension maps (frequency plans) and the trained-head analyses.
#include <doctest/doctest.h>

#include <cmath>
#include <complex>
#include <filesystem>

#include "core/files.h"
#include "harness/config.h"
#include "schemes/rope.h"
#include "scratch.h"
#include "tasks/cue/checkpoint.h"
#include "tasks/cue/geometry.h"
#include "tasks/cue/training.h"
#include "theory/relativity.h"

using namespace pe;
using nlohmann::json;
namespace fs = std::filesystem;

TEST_CASE("maps on small hand-computed cases: d = 4, base 100, L = 8") {
  // theta = (1, 1/10); wavelengths 2 pi and 20 pi
  const int d = 4, L = 8;
  const double b = 100;
  auto pi = parse_map("pi").plan(d, b, 2, L, 32);  // kappa 4
  CHECK(pi.kappa == 4.0);
  CHECK(pi.theta[0] == doctest::Approx(0.25));
  CHECK(pi.theta[1] == doctest::Approx(0.025));
  auto ntk = parse_map("ntk").plan(d, b, 2, L, 32);  // theta_j kappa^(-2j/(d-2)): plane 1 divided by 4
  CHECK(ntk.theta[0] == 1.0);
  CHECK(ntk.theta[1] == doctest::Approx(0.025));
  // yarn: L/lambda_0 = 8/(2 pi) = 1.273 -> g_0 = 0.273/31; plane 1: L/lambda = 0.127 -> g = 0
  auto yarn = parse_map("yarn").plan(d, b, 2, L, 32);
  const double g0 = (8.0 / (2 * M_PI) - 1.0) / 31.0;
  CHECK(yarn.theta[0] == doctest::Approx((1 - g0) / 4 + g0));
  CHECK(yarn.theta[1] == doctest::Approx(0.025));
  CHECK(yarn.logit_scale == doctest::Approx(std::pow(0.1 * std::log(4.0) + 1, 2)));
  // selective: plane 0 (lambda 6.28 <= 8) unchanged, plane 1 (62.8 > 8) divided
  auto sel = parse_map("selective").plan(d, b, 2, L, 32);
  CHECK(sel.theta[0] == 1.0);
  CHECK(sel.theta[1] == doctest::Approx(0.025));
  auto base = parse_map("base=400").plan(d, b, 2, L, 32);
  CHECK(base.theta[1] == doctest::Approx(0.05));
  CHECK(parse_map("pi").plan(d, b, 2, L, 8).theta == identity_plan(d, b, 2).theta);  // kappa = 1: no change
  CHECK_THROWS_AS(parse_map("zoom").plan(d, b, 2, L, 32), UsageError);
  CHECK_THROWS_AS(parse_map("base=abc").plan(d, b, 2, L, 32), UsageError);
}

TEST_CASE("ntk leaves plane 0 unchanged and divides the slowest plane by exactly kappa; pi is 1/kappa") {
  for (double kappa : {2.0, 4.0, 8.0}) {
    const auto ntk = parse_map("ntk").factors(16, 10000, 32, kappa), pi = parse_map("pi").factors(16, 10000, 32, kappa);
    CHECK(ntk.front() == 1.0);
    CHECK(ntk.back() == doctest::Approx(1.0 / kappa).epsilon(1e-14));
    for (double f : pi) CHECK(f == 1.0 / kappa);
  }
}

TEST_CASE("the identity plan reproduces plain RoPE bit for bit; YaRN scales the content score") {
  SchemeConfig c;
  c.name = "rope";
  c.d_head = c.d_model = 16;
  RopeScheme<float> plain(c), planned(c);
  planned.set_frequency_plan(planned.plan_for(parse_map("none"), 32, 256));
  plain.prepare(300);
  planned.prepare(300);
  std::vector<float> x(16 * 300), y;
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(0.37f * float(i));
  y = x;
  std::vector<int> pos(300);
  for (int i = 0; i < 300; ++i) pos[i] = i;
  plain.qk_forward(Qk::Query, pos.data(), 300, x.data());
  planned.qk_forward(Qk::Query, pos.data(), 300, y.data());
  CHECK(std::memcmp(x.data(), y.data(), x.size() * sizeof(float)) == 0);
  CHECK(planned.content_scale() == 1.0f);
  planned.set_frequency_plan(planned.plan_for(parse_map("yarn"), 32, 128));
  CHECK(planned.content_scale() == doctest::Approx(std::pow(0.1 * std::log(4.0) + 1, 2)));
}

namespace {
// A short training run of each analysed scheme, written to a temporary runs directory.
std::string trained_runs() {
  static const std::string dir = [] {
    const auto d = pe::test::scratch_path("geometry").string();
    fs::remove_all(d);
    json c = default_config();
    c["steps"] = 60;
    c["runs_dir"] = d;
    const auto e = ExperimentConfig::from_json(c);
    for (auto s : {"rope", "sinusoidal", "alibi"}) train_cue(e, c, s, 4);
    return d;
  }();
  return dir;
}
// The parameter `name` read straight from the checkpoint file (not through load_checkpoint).
Eigen::MatrixXd raw_param(const std::string& path, const std::string& name) {
  const json j = json::parse(read_file(path));
  for (auto& p : j["params"])
    if (p["name"] == name) {
      const int r = p["shape"][0], c = p["shape"][1];
      Eigen::MatrixXd M(r, c);
      for (int i = 0; i < r; ++i)
        for (int k = 0; k < c; ++k) M(i, k) = p["data"][size_t(i) * c + k].get<double>();
      return M;
    }
  FAIL("no parameter " << name);
  return {};
}
}  // namespace

TEST_CASE("the analyses' numbers come from the checkpoints they name") {
  const std::string dir = trained_runs();
  const EvalSettings s{{64, 128}, 300, 7, {}};
  const json g = analyze_checkpoints(find_checkpoints(dir), s, 80);
  REQUIRE(g["rope"].size() == 1);
  REQUIRE(g["sinusoidal"].size() == 1);
  REQUIRE(g["alibi"].size() == 1);
  const int d = 16, A = 8, qt = 16;
  SUBCASE("RoPE offset curve = Re sum_j q_j conj(k_j) e^{i r theta_j} / sqrt(d), from the file's weights") {
    const std::string cp = g["rope"][0]["checkpoint"];
    const Eigen::MatrixXd E = raw_param(cp, "tok_emb"), W = raw_param(cp, "w_qkv");
    const Eigen::RowVectorXd q = E.row(qt) * W.leftCols(d);
    for (int r : {0, 1, 17, 31, 45, 80}) {
      double expect = 0;
      for (int sym = 0; sym < A; ++sym) {
        const Eigen::RowVectorXd k = E.row(A + sym) * W.middleCols(d, d);
        for (int j = 0; j < d / 2; ++j) {
          const std::complex<double> qj(q[2 * j], q[2 * j + 1]), kj(k[2 * j], k[2 * j + 1]);
          expect += std::real(qj * std::conj(kj) * std::polar(1.0, r * std::pow(10000.0, -2.0 * j / d))) / 4.0 / A;
        }
      }
      CHECK(g["rope"][0]["score_by_age"][r].get<double>() == doctest::Approx(expect).epsilon(1e-5));
    }
  }
  SUBCASE("sinusoidal defect = delta(W_Q W_K^T) of the file's weights") {
    const std::string cp = g["sinusoidal"][0]["checkpoint"];
    const Eigen::MatrixXd W = raw_param(cp, "w_qkv");
    const Eigen::MatrixXd M = W.leftCols(d) * W.middleCols(d, d).transpose();
    CHECK(g["sinusoidal"][0]["defect_trained"].get<double>() == doctest::Approx(theory::relativity_defect(M)));
    CHECK(g["sinusoidal"][0]["defect_at_init"].get<double>() != doctest::Approx(theory::relativity_defect(M)));
  }
  SUBCASE("ALiBi content width = max - min of q.k/4 over the task's keys, from the file's weights") {
    const std::string cp = g["alibi"][0]["checkpoint"];
    const Eigen::MatrixXd E = raw_param(cp, "tok_emb"), W = raw_param(cp, "w_qkv");
    const Eigen::VectorXd c = (E * W.middleCols(d, d)) * (E.row(qt) * W.leftCols(d)).transpose() / 4.0;
    CHECK(g["alibi"][0]["content_width"].get<double>() == doctest::Approx(c.maxCoeff() - c.minCoeff()));
    CHECK(g["alibi"][0]["horizon"].get<double>() == doctest::Approx((c.maxCoeff() - c.minCoeff()) / 0.5));
  }
  SUBCASE("changing the checkpoint changes the analysis") {
    const std::string cp = g["alibi"][0]["checkpoint"];
    json j = json::parse(read_file(cp));
    for (auto& v : j["params"][1]["data"]) v = v.get<double>() * 2.0;  // w_qkv doubled: scores x4
    const std::string copy = dir + "/copy/checkpoint.json";
    write_file_atomic(copy, j.dump());
    const json g2 = analyze_checkpoints({copy}, s, 40);
    CHECK(g2["alibi"][0]["content_width"].get<double>() ==
          doctest::Approx(4 * g["alibi"][0]["content_width"].get<double>()));
    CHECK(g2["alibi"][0]["checkpoint"] == copy);
    fs::remove_all(dir + "/copy");
  }
}
