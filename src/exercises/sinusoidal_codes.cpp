// Exercise 3: are the sinusoidal codes of different positions distinct, and how close does the code come
// back to itself? The distance between the codes of m and m + delta depends on delta alone:
// ||p(m) - p(m + delta)||^2 = d - 2 kappa_d(delta) (theory/sinusoidal_geometry.h), so one curve over
// delta answers it for every pair. Also the numbers the chapter's figures draw (columns 6-9 of the code
// at d = 32, the code as a heatmap beside binary counting).
#include <fmt/format.h>

#include <cmath>

#include "core/frequencies.h"
#include "exercises/exercises.h"
#include "theory/finite_precision.h"
#include "theory/sinusoidal_geometry.h"

namespace pe::exercises {

namespace {
constexpr int kPositions = 512, kLongPositions = 8192, kFigurePositions = 64, kFigureWidth = 32;
const int kWidths[] = {16, 32, 64, 128, 512};

double code_distance(int delta, int d) {
  return std::sqrt(std::max(0.0, d - 2.0 * theory::stationary_kernel(delta, d, kDefaultBase)));
}

// The nearest near-repeat: among the offsets 2..kPositions-1 where the distance has a strict local
// minimum (the code turns back towards itself), the one with the smallest distance.
nlohmann::json width_row(int d) {
  int best = -1;
  double best_distance = INFINITY;
  for (int delta = 2; delta + 1 < kPositions; ++delta) {
    const double v = code_distance(delta, d);
    if (v < code_distance(delta - 1, d) && v < code_distance(delta + 1, d) && v < best_distance)
      best = delta, best_distance = v;
  }
  const theory::MinDistance pairwise = theory::min_code_distance(kPositions, d, kDefaultBase);
  nlohmann::json formats = nlohmann::json::array();
  for (int positions : {kPositions, kLongPositions})
    for (const theory::FloatFormat* f : {&theory::kFloat32, &theory::kBfloat16, &theory::kFloat16}) {
      const theory::RowCollisions c =
          theory::identical_rows(theory::stored_sinusoidal_table(positions, d, kDefaultBase, f));
      nlohmann::json first = nullptr;
      if (c.n >= 0) first = {c.m, c.n};
      formats.push_back({{"dtype", f->name},
                         {"positions", positions},
                         {"distinct_codes", positions - c.repeated_rows},
                         {"first_identical_pair", first}});
    }
  return {{"d", d},
          {"neighbour_distance", code_distance(1, d)},
          {"code_norm", std::sqrt(d / 2.0)},
          {"pairwise_min_distance", pairwise.value},
          {"pairwise_min_pair", {pairwise.m, pairwise.n}},
          {"near_repeat_offset", best < 0 ? nlohmann::json(nullptr) : nlohmann::json(best)},
          {"near_repeat_distance", best < 0 ? nlohmann::json(nullptr) : nlohmann::json(best_distance)},
          {"stored", formats}};
}
}  // namespace

Exercise sinusoidal_codes() {
  Exercise e{"3", "distinct sinusoidal codes"};
  e.question = fmt::format(
      "Are the sinusoidal codes of positions 0..{} all distinct (and of 0..{}, stored in float32, bfloat16, float16)? "
      "Which two positions' codes are nearest, how "
      "close does the code come back to itself (the nearest near-repeat), and what is that distance at d = "
      "32?",
      kPositions - 1, kLongPositions - 1);
  e.method = fmt::format(
      "In double, base 10^4, the code p(m)[2j] = sin(m theta_j), p(m)[2j+1] = cos(m theta_j): the distance "
      "between the codes of m and m + delta is sqrt(d - 2 sum_j cos(delta theta_j)), the same for every m. "
      "The near-repeat is the offset 2..{} where that distance has a local minimum, the smallest such; the "
      "nearest pair is also found pairwise from the codes. Distinct codes are counted after rounding each "
      "entry to float32, bfloat16 and float16 (theory/finite_precision.h), over 512 and 8192 positions. The figure "
      "data: the code at d = "
      "{} for positions 0..{}.",
      kPositions - 1, kFigureWidth, kFigurePositions - 1);
  e.compute = [] {
    nlohmann::json rows = nlohmann::json::array();
    for (int d : kWidths) rows.push_back(width_row(d));
    const Eigen::MatrixXd P = theory::sinusoidal_matrix(kFigurePositions, kFigureWidth, kDefaultBase);
    nlohmann::json code = nlohmann::json::array();
    for (int m = 0; m < kFigurePositions; ++m) {
      nlohmann::json row = nlohmann::json::array();
      for (int c = 0; c < kFigureWidth; ++c) row.push_back(P(m, c));
      code.push_back(row);
    }
    return nlohmann::json{{"base", kDefaultBase},
                          {"positions", kPositions},
                          {"rows", rows},
                          {"figure", {{"d", kFigureWidth}, {"positions", kFigurePositions}, {"code", code}}}};
  };
  e.print = [](const nlohmann::json& j) {
    std::string s = fmt::format("{:>4} {:>9} {:>10} {:>14} {:>12} {:>10}   distinct codes stored as\n", "d", "||p||",
                                "neighbour", "nearest pair", "near-repeat", "its dist.");
    s += fmt::format("{:>4} {:>9} {:>10} {:>14} {:>12} {:>10}   float32 / bfloat16 / float16 (of 512; of 8192)\n", "",
                     "", "distance", "(distance)", "offset", "");
    for (auto& r : j["rows"]) {
      std::string stored;
      for (auto& f : r["stored"])
        stored += fmt::format("{}{}",
                              stored.empty()            ? ""
                              : f["dtype"] == "float32" ? "; "
                                                        : " / ",
                              f["distinct_codes"].get<int>());
      const std::string pair =
          fmt::format("{},{} ({:.3f})", r["pairwise_min_pair"][0].get<int>(), r["pairwise_min_pair"][1].get<int>(),
                      r["pairwise_min_distance"].get<double>());
      const std::string near = r["near_repeat_offset"].is_null()
                                   ? std::string("none")
                                   : fmt::format("{}", r["near_repeat_offset"].get<int>());
      const std::string near_d = r["near_repeat_distance"].is_null()
                                     ? std::string("-")
                                     : fmt::format("{:.3f}", r["near_repeat_distance"].get<double>());
      s += fmt::format("{:>4} {:>9.3f} {:>10.3f} {:>14} {:>12} {:>10}   {}\n", r["d"].get<int>(),
                       r["code_norm"].get<double>(), r["neighbour_distance"].get<double>(), pair, near, near_d, stored);
    }
    return s;
  };
  return e;
}

}  // namespace pe::exercises
