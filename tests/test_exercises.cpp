// The exercises (exercises/exercises.h): each answer checked against what the mathematics says, computed
// here another way where it can be: a positionless one-layer causal model ignores its prefix's order and a
// two-layer one does not; the symmetric distance biases keep the reversal and no drawn permutation; the
// biases every permutation keeps are a 2-dimensional space; the c of exercise 7 gives age 1 weight 1/2;
// position interpolation by 8 moves the best age to 8 exactly; the joint-shift error stays at rounding in
// double and grows with the position only when the angle is formed in float32.
#include <doctest/doctest.h>

#include <cmath>

#include "core/errors.h"
#include "core/frequencies.h"
#include "exercises/exercises.h"
#include "theory/sinusoidal_geometry.h"

using namespace pe;
using nlohmann::json;

namespace exercises_test {
const json& answer(const std::string& id) {
  static std::map<std::string, json> cache;
  auto it = cache.find(id);
  if (it == cache.end()) it = cache.emplace(id, exercises::find_exercise(id).compute()).first;
  return it->second;
}

const json& row_of(const json& rows, const std::string& scheme, int layers = -1) {
  for (auto& r : rows)
    if (r["scheme"] == scheme && (layers < 0 || r["layers"] == layers)) return r;
  throw std::runtime_error("no row for " + scheme);
}
}  // namespace exercises_test
using namespace exercises_test;

TEST_CASE("exercise 1.3: only a positionless one-layer causal model ignores the order of its prefix") {
  const json& rows = answer("1.3")["rows"];
  CHECK(row_of(rows, "none", 1)["max_abs_change"].get<double>() <= 1e-12);
  CHECK(row_of(rows, "none", 2)["max_abs_change"].get<double>() > 1e-2);
  for (auto& r : rows) {
    if (r.contains("skipped") || r["scheme"] == "none") continue;
    INFO(r.dump());
    CHECK(r["max_abs_change"].get<double>() > 1e-2);  // every scheme that reads a position sees the order
  }
}

TEST_CASE("exercise 2: the biases every permutation keeps, and which schemes keep the reversal") {
  const json& a = answer("2");
  CHECK(a["invariant_biases"]["fixed_dimension"] == 2);
  CHECK(a["invariant_biases"]["identity_residual"].get<double>() <= 1e-15);
  const json& rows = a["rows"];
  CHECK(row_of(rows, "none")["drawn_permutation"].get<double>() <= 1e-12);
  // -m|i-j| and the other functions of |i - j| keep |i - j| under the reversal, and nothing else
  for (const char* s : {"alibi", "kerple", "alibi-learned"}) {
    INFO(s);
    CHECK(row_of(rows, s)["reversal"].get<double>() <= 1e-12);
    CHECK(row_of(rows, s)["drawn_permutation"].get<double>() > 1e-2);
  }
  for (const char* s : {"t5", "rope", "sinusoidal", "learned"}) {
    INFO(s);
    CHECK(row_of(rows, s)["reversal"].get<double>() > 1e-2);
  }
}

TEST_CASE("exercise 3: the near-repeat's distance is the codes' own distance at that offset") {
  for (auto& r : answer("3")["rows"]) {
    const int d = r["d"], off = r["near_repeat_offset"];
    const double direct =
        (theory::sinusoidal_position(100, d, kDefaultBase) - theory::sinusoidal_position(100 + off, d, kDefaultBase))
            .norm();
    CHECK(std::abs(direct - r["near_repeat_distance"].get<double>()) < 1e-9);
    CHECK(r["pairwise_min_pair"][1].get<int>() - r["pairwise_min_pair"][0].get<int>() == 1);
  }
}

TEST_CASE("exercise 7: its c gives the key one step back half of the weight") {
  const json& a = answer("7");
  const int d = a["d"];
  for (auto& r : a["rows"]) {
    const int n = r["keys"];
    const double c = r["half_weight_scale"];
    double z = 0, at_one = 0;
    for (int age = 0; age < n; ++age) {
      double s = 0;
      for (int j = 0; j < d / 2; ++j) s += std::cos((age - 1) * plane_frequency(j, d, kDefaultBase));
      const double w = std::exp(c * s / (d / 2));
      z += w;
      if (age == 1) at_one = w;
    }
    CHECK(at_one / z == doctest::Approx(0.5).epsilon(1e-8));
  }
  // the rotated pair plane: position m turns plane j by m theta_j
  for (auto& p : a["planes"]) {
    const double theta = plane_frequency(p["plane"].get<int>(), d, kDefaultBase);
    for (int m : {1, 5, 31}) {
      CHECK(std::abs(p["points"][m][0].get<double>() - std::cos(m * theta)) < 1e-12);
      CHECK(std::abs(p["points"][m][1].get<double>() - std::sin(m * theta)) < 1e-12);
    }
  }
}

TEST_CASE("exercise 13.1: interpolating by 8 moves the best age to 8, where every plane realigns") {
  const json& rows = answer("13.1")["rows"];
  for (auto& r : rows) {
    if (r["map"] == "none") CHECK(r["best_age"] == 1);
    if (r["map"] != "pi") continue;
    CHECK(r["best_age"] == 8);
    CHECK(std::abs(r["scores_over_c"][8].get<double>() - 1.0) < 1e-12);
    CHECK(r["gap_over_c"].get<double>() < 0);
  }
}

TEST_CASE("shift checks: rounding in double; a float32 angle's error grows with the position") {
  const json& a = answer("shift");
  CHECK(a["sinusoidal_equivariance_max_error"].get<double>() < 1e-10);
  const json& rows = a["joint_shift"];
  for (auto& r : rows) {
    CHECK(r["double"].get<double>() < 1e-9);
    CHECK(r["float32"].get<double>() < 1e-4);
  }
  CHECK(rows.back()["float32_angles"].get<double>() > 100 * rows.front()["float32_angles"].get<double>());
}

TEST_CASE("an unknown exercise is a usage error naming the known ones") {
  CHECK_THROWS_AS(exercises::find_exercise("99"), UsageError);
  try {
    exercises::find_exercise("99");
  } catch (const UsageError& e) {
    CHECK(std::string(e.what()).find("1.3") != std::string::npos);
  }
}

TEST_CASE("exercise 4: a learned table's rows past the training length are their initial values, or decayed") {
  const json& a = answer("4");
  const json& plain = a["without_weight_decay"];
  CHECK(plain["weight_decay"].get<double>() == 0.0);
  CHECK(plain["untrained_entries"].get<long>() ==
        (plain["rows"].get<long>() - plain["train_length"].get<long>()) *
            (plain["trained_entries"].get<long>() / plain["train_length"].get<long>()));
  CHECK(plain["untrained_equal_initial"] == plain["untrained_entries"]);  // bit for bit
  CHECK(plain["trained_entries_changed"].get<long>() > 0);                // and training moved the rest
  const json& decayed = a["with_weight_decay"];
  CHECK(decayed["weight_decay"].get<double>() > 0.0);
  CHECK(decayed["untrained_equal_recurrence"] == decayed["untrained_entries"]);  // the AdamW recurrence exactly
  CHECK(decayed["untrained_equal_initial"].get<long>() < decayed["untrained_entries"].get<long>());
  const double f = decayed["decay_factor_analytic"];
  CHECK(std::abs(decayed["decay_factor_measured_min"].get<double>() - f) < 1e-3 * f);
  CHECK(std::abs(decayed["decay_factor_measured_max"].get<double>() - f) < 1e-3 * f);
}
