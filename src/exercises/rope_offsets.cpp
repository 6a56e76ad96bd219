// Exercises 7 and 13.1 and the shift checks: RoPE's preference for an offset, what rescaling its
// frequencies does to that preference, and the identities the chapter checks numerically.
//
// A RoPE head of width d scores a key r positions before its query (age r) as
//   s(r) = sum_j |q_j| |k_j| cos(r theta_j - phi_j),
// phi_j the angle from k to q in plane j, fixed by the trained weights. The head that prefers age 1 (the
// offset -1) with every plane of equal weight has phi_j = theta_j, and s(r) = c kappa(r - 1) with
// kappa(delta) = (2/d) sum_j cos(delta theta_j) and c = s(1), its largest score. A map read at kappa turns
// plane j at theta'_j instead; the weights keep phi_j = theta_j, so s'(r) = c (2/d) sum_j cos(r theta'_j -
// theta_j), times the map's logit scale.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/frequencies.h"
#include "core/math.h"
#include "core/rng.h"
#include "exercises/exercises.h"
#include "schemes/frequency_plan.h"
#include "schemes/scheme.h"
#include "theory/sinusoidal_geometry.h"

namespace pe::exercises {

namespace {
constexpr int kWidth = 16, kTrainLength = 32, kReadLength = 256;  // the tournament's head
const int kLengths[] = {32, 256, 1024};
const char* const kMaps[] = {"none", "pi", "ntk", "yarn", "selective"};

// The scores of ages 0..n-1 for frequencies theta (theta' under a map), in units of c.
std::vector<double> scores(const std::vector<double>& theta, int n, double logit_scale = 1.0) {
  std::vector<double> s(n, 0.0);
  const int planes = int(theta.size());
  for (int r = 0; r < n; ++r) {
    double sum = 0;
    for (int j = 0; j < planes; ++j) sum += math::cos(r * theta[j] - plane_frequency(j, kWidth, kDefaultBase));
    s[r] = logit_scale * sum / planes;
  }
  return s;
}

std::vector<double> trained_theta() {
  std::vector<double> t(kWidth / 2);
  for (int j = 0; j < kWidth / 2; ++j) t[j] = plane_frequency(j, kWidth, kDefaultBase);
  return t;
}

// softmax(c s) at age `age`.
double weight_at(const std::vector<double>& s, double c, int age) {
  const double top = *std::max_element(s.begin(), s.end());
  double z = 0;
  for (double v : s) z += math::exp(c * (v - top));
  return math::exp(c * (s[age] - top)) / z;
}

// The c at which age 1 takes half the weight (bisection; the weight grows with c while age 1 is the
// unique best).
double half_weight_scale(const std::vector<double>& s) {
  double lo = 0, hi = 1;
  while (weight_at(s, hi, 1) < 0.5) hi *= 2;
  for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; ++i) {
    const double mid = (lo + hi) / 2;
    (weight_at(s, mid, 1) < 0.5 ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

// The ages other than 1 with the largest scores, best first.
nlohmann::json competitors(const std::vector<double>& s, double c, int count) {
  std::vector<int> ages;
  for (int r = 0; r < int(s.size()); ++r)
    if (r != 1) ages.push_back(r);
  std::stable_sort(ages.begin(), ages.end(), [&](int a, int b) { return s[a] > s[b]; });
  nlohmann::json out = nlohmann::json::array();
  for (int i = 0; i < count && i < int(ages.size()); ++i)
    out.push_back({{"age", ages[i]}, {"score_over_c", s[ages[i]]}, {"weight", weight_at(s, c, ages[i])}});
  return out;
}

// The harness's RoPE for one head of width d (trained at max_pos), its angles prepared to max_pos.
template <class S>
std::unique_ptr<Scheme<S>> prepared_rope(int d, int max_pos) {
  SchemeConfig sc;
  sc.name = "rope";
  sc.d_model = sc.d_head = d;
  sc.train_length = max_pos;
  auto rope = make_scheme<S>(sc);
  rope->prepare(max_pos);
  return rope;
}

// The rotated pair plane (the chapter's figure 10.4.1): a unit pair (1, 0) in plane j turned by the
// harness's RoPE hook to positions 0..kTrainLength-1, for a fast, two middle and the slowest plane.
nlohmann::json rotated_planes() {
  const auto rope = prepared_rope<double>(kWidth, kTrainLength);
  nlohmann::json out = nlohmann::json::array();
  for (int j : {0, 1, 3, kWidth / 2 - 1}) {
    nlohmann::json points = nlohmann::json::array();
    for (int m = 0; m < kTrainLength; ++m) {
      std::vector<double> x(kWidth, 0.0);
      x[2 * j] = 1.0;
      rope->qk_forward(0, Qk::Query, &m, 1, x.data());
      points.push_back({x[2 * j], x[2 * j + 1]});
    }
    const double theta = plane_frequency(j, kWidth, kDefaultBase);
    out.push_back({{"plane", j},
                   {"theta", theta},
                   {"turns_over_training", theta * (kTrainLength - 1) / (2 * M_PI)},
                   {"points", points}});
  }
  return out;
}

int best_age(const std::vector<double>& s) { return int(std::max_element(s.begin(), s.end()) - s.begin()); }

double gap_at_one(const std::vector<double>& s) {
  double other = -INFINITY;
  for (int r = 0; r < int(s.size()); ++r)
    if (r != 1) other = std::max(other, s[r]);
  return s[1] - other;
}
}  // namespace

Exercise rope_preference() {
  Exercise e{"7", "RoPE's preference for the offset -1"};
  e.question =
      "A RoPE head whose query is its key turned one step prefers the key one position back (offset -1). "
      "How large must the score be for that key to take half the attention, and which offsets compete with "
      "it?";
  e.method = fmt::format(
      "The tournament's head: width {}, base 10^4, every plane of equal weight, so the score of age r is c "
      "kappa(r - 1), kappa(delta) = (2/d) sum_j cos(delta theta_j), c the score at age 1. Softmax over ages "
      "0..n-1 (every key a causal query sees); c found by bisection so that age 1 takes weight 1/2, at n = 32, "
      "256 and 1024; the three best other ages with their scores and weights at that c. Also the rotated pair "
      "plane (the chapter's figure): a unit pair in planes 0, 1, 3 and 7 turned by the harness's RoPE to "
      "positions 0..31.",
      kWidth);
  e.compute = [] {
    nlohmann::json rows = nlohmann::json::array();
    for (int n : kLengths) {
      const std::vector<double> s = scores(trained_theta(), n);
      const double c = half_weight_scale(s);
      rows.push_back({{"keys", n},
                      {"half_weight_scale", c},
                      {"gap_over_c", gap_at_one(s)},
                      {"competitors", competitors(s, c, 3)}});
    }
    return nlohmann::json{{"d", kWidth}, {"base", kDefaultBase}, {"rows", rows}, {"planes", rotated_planes()}};
  };
  e.print = [](const nlohmann::json& j) {
    std::string s = fmt::format("{:>5} {:>10} {:>10}   the three best other ages: age (score/c, weight at c)\n", "keys",
                                "c for 1/2", "gap/c");
    for (auto& r : j["rows"]) {
      std::string comp;
      for (auto& k : r["competitors"])
        comp += fmt::format("{}{} ({:.3f}, {:.3f})", comp.empty() ? "" : ", ", k["age"].get<int>(),
                            k["score_over_c"].get<double>(), k["weight"].get<double>());
      s += fmt::format("{:>5} {:>10.3f} {:>10.4f}   {}\n", r["keys"].get<int>(), r["half_weight_scale"].get<double>(),
                       r["gap_over_c"].get<double>(), comp);
    }
    return s;
  };
  return e;
}

Exercise rescaled_gap() {
  Exercise e{"13.1", "the score gap at -1 under rescaling"};
  e.question = fmt::format(
      "The head of exercise 7, trained at {} and read at {}: what happens to its score gap at the offset -1 "
      "when every frequency is rescaled (position interpolation) and when only the slow planes are "
      "(selective, YaRN)?",
      kTrainLength, kReadLength);
  e.method = fmt::format(
      "Each map's frequencies theta'_j (and logit scale) for a head of width {} trained at {} and read at {} "
      "(kappa {}), from the maps' own table (schemes/frequency_maps.cpp). The weights keep their phases, so "
      "the score of age r is c s'(r) with s'(r) = scale (2/d) sum_j cos(r theta'_j - theta_j). Given per map: "
      "the age with the best score, the gap s'(1) - max over the other ages (negative: age 1 no longer wins), "
      "and the weight on age 1 at the c that gives it 1/2 when trained (exercise 7, n = {}), over {} keys; "
      "and s'(r) for every age (the figure).",
      kWidth, kTrainLength, kReadLength, kReadLength / kTrainLength, kTrainLength, kReadLength);
  e.compute = [] {
    const double c = half_weight_scale(scores(trained_theta(), kTrainLength));
    nlohmann::json rows = nlohmann::json::array();
    for (const char* name : kMaps) {
      const FrequencyPlan plan = parse_map(name).plan(kWidth, kDefaultBase, kWidth / 2, kTrainLength, kReadLength);
      const std::vector<double> s = scores(plan.theta, kReadLength, plan.logit_scale);
      std::vector<double> ratio;
      for (int j = 0; j < kWidth / 2; ++j) ratio.push_back(plan.theta[j] / plane_frequency(j, kWidth, kDefaultBase));
      rows.push_back({{"map", name},
                      {"theta_ratio", ratio},
                      {"logit_scale", plan.logit_scale},
                      {"best_age", best_age(s)},
                      {"gap_over_c", gap_at_one(s)},
                      {"weight_at_one", weight_at(s, c, 1)},
                      {"weight_at_best", weight_at(s, c, best_age(s))},
                      {"scores_over_c", s}});
    }
    return nlohmann::json{{"d", kWidth},
                          {"base", kDefaultBase},
                          {"train_length", kTrainLength},
                          {"read_length", kReadLength},
                          {"trained_half_weight_scale", c},
                          {"trained_gap_over_c", gap_at_one(scores(trained_theta(), kTrainLength))},
                          {"rows", rows}};
  };
  e.print = [](const nlohmann::json& j) {
    std::string s = fmt::format(
        "trained at {}: gap at age 1 = {:.4f} c; c = {:.3f} gives age 1 half the weight over {} keys\n"
        "read at {} over {} keys:\n{:<10} {:>9} {:>10} {:>15} {:>15}   theta'/theta by plane\n",
        j["train_length"].get<int>(), j["trained_gap_over_c"].get<double>(),
        j["trained_half_weight_scale"].get<double>(), j["train_length"].get<int>(), j["read_length"].get<int>(),
        j["read_length"].get<int>(), "map", "best age", "gap/c", "weight at -1", "weight at best");
    for (auto& r : j["rows"]) {
      std::string ratios;
      for (auto& x : r["theta_ratio"]) ratios += fmt::format(" {:.3f}", x.get<double>());
      s += fmt::format("{:<10} {:>9} {:>10.4f} {:>15.3f} {:>15.3f}  {}\n", r["map"].get<std::string>(),
                       r["best_age"].get<int>(), r["gap_over_c"].get<double>(), r["weight_at_one"].get<double>(),
                       r["weight_at_best"].get<double>(), ratios);
    }
    return s;
  };
  return e;
}

namespace {
// max over drawn q, k, m, n, c of |<R(m) q, R(n) k> - <R(m + c) q, R(n + c) k>| through the harness's RoPE
// in precision S, positions below max_pos.
template <class S>
double joint_shift_error(int d, int max_pos, int trials, uint64_t key) {
  const auto rope = prepared_rope<S>(d, max_pos);
  Rng rng(stream_key({kTagCheck, 7, key}));
  double worst = 0;
  for (int t = 0; t < trials; ++t) {
    std::vector<S> q(d), k(d);
    for (int i = 0; i < d; ++i) q[i] = S(rng.normal()), k[i] = S(rng.normal());
    const int c = rng.below(max_pos / 2), m = rng.below(max_pos / 2), n = rng.below(m + 1);
    auto score = [&](int qm, int kn) {
      std::vector<S> a = q, b = k;
      rope->qk_forward(0, Qk::Query, &qm, 1, a.data());
      rope->qk_forward(0, Qk::Key, &kn, 1, b.data());
      double s = 0;
      for (int i = 0; i < d; ++i) s += double(a[i]) * double(b[i]);
      return s;
    };
    worst = std::max(worst, std::abs(score(m, n) - score(m + c, n + c)));
  }
  return worst;
}

// The same check with each angle formed in float32, m * theta_j rounded to float before its cosine (as
// a float32 outer(arange(n), inv_freq) forms it); the rotation and the score in double.
double float_angle_joint_shift_error(int d, int max_pos, int trials, uint64_t key) {
  Rng rng(stream_key({kTagCheck, 7, key}));
  auto turn = [d](std::vector<double> x, int m) {
    for (int j = 0; j < d / 2; ++j) {
      const double a = double(float(m) * float(plane_frequency(j, d, kDefaultBase)));
      const double c = math::cos(a), s = math::sin(a), u = x[2 * j], v = x[2 * j + 1];
      x[2 * j] = u * c - v * s, x[2 * j + 1] = u * s + v * c;
    }
    return x;
  };
  double worst = 0;
  for (int t = 0; t < trials; ++t) {
    std::vector<double> q(d), k(d);
    for (int i = 0; i < d; ++i) q[i] = double(float(rng.normal())), k[i] = double(float(rng.normal()));
    const int c = rng.below(max_pos / 2), m = rng.below(max_pos / 2), n = rng.below(m + 1);
    auto score = [&](int qm, int kn) {
      const std::vector<double> a = turn(q, qm), b = turn(k, kn);
      double s = 0;
      for (int i = 0; i < d; ++i) s += a[i] * b[i];
      return s;
    };
    worst = std::max(worst, std::abs(score(m, n) - score(m + c, n + c)));
  }
  return worst;
}
}  // namespace

Exercise shift_checks() {
  Exercise e{"shift", "the equivariance and joint-shift checks"};
  e.question =
      "Check numerically that the sinusoidal code shifts by a rotation, p(m + k) = R(k) p(m), and that "
      "RoPE's score depends on the offset alone: <R(m) q, R(n) k> = <R(m + c) q, R(n + c) k>. How large is "
      "the error in double and in float32, and does it grow with the position?";
  e.method =
      "The sinusoidal code and R(k) of theory/sinusoidal_geometry.h (d = 32, m and k below 512); the joint "
      "shift through the harness's own RoPE hook (make_scheme<double> and <float>, d = 32, 2000 drawn q, k ~ "
      "N(0, I) and positions m >= n, shift c, all below the bound), the score summed in double. The harness "
      "forms each angle m theta_j in double and rounds its cosine and sine to the model's precision; the last "
      "column forms the angle itself in float32 (float(m) * float(theta_j)), as a float32 position table "
      "does, and turns in double.";
  e.compute = [] {
    constexpr int d = 32, span = 512;
    double equivariance = 0;
    for (int m = 0; m < span; m += 7)
      for (int k = 0; k < span; k += 5)
        equivariance = std::max(
            equivariance, (theory::sinusoidal_position(m + k, d, kDefaultBase) -
                           theory::shift_rotation(k, d, kDefaultBase) * theory::sinusoidal_position(m, d, kDefaultBase))
                              .cwiseAbs()
                              .maxCoeff());
    nlohmann::json shifts = nlohmann::json::array();
    uint64_t key = 0;
    for (int bound : {512, 8192, 131072}) {
      shifts.push_back({{"positions_below", bound},
                        {"double", joint_shift_error<double>(d, bound, 2000, key)},
                        {"float32", joint_shift_error<float>(d, bound, 2000, key)},
                        {"float32_angles", float_angle_joint_shift_error(d, bound, 2000, key)}});
      ++key;
    }
    return nlohmann::json{{"d", d}, {"sinusoidal_equivariance_max_error", equivariance}, {"joint_shift", shifts}};
  };
  e.print = [](const nlohmann::json& j) {
    std::string s = fmt::format("sinusoidal, d = {}: max |p(m + k) - R(k) p(m)| = {:.3e}  (m, k < 512)\n",
                                j["d"].get<int>(), j["sinusoidal_equivariance_max_error"].get<double>());
    s += "RoPE joint shift: max |<R(m)q, R(n)k> - <R(m+c)q, R(n+c)k>|\n";
    for (auto& r : j["joint_shift"])
      s += fmt::format("  positions below {:>7}: double {:.3e}   float32 {:.3e}   float32 angles {:.3e}\n",
                       r["positions_below"].get<int>(), r["double"].get<double>(), r["float32"].get<double>(),
                       r["float32_angles"].get<double>());
    return s;
  };
  return e;
}

}  // namespace pe::exercises
