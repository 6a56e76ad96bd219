#include "theory/baselines.h"

#include <algorithm>
#include <cmath>

#include "core/math.h"
#include "theory/exact_reader.h"

namespace pe::theory {

nlohmann::json cue_baseline_report() {
  const int alphabet = 8;
  const double mark_prob = 0.1;
  nlohmann::json rows = nlohmann::json::array();
  for (int n : {32, 64, 128, 256})
    rows.push_back({{"n", n}, {"accuracy", pe::cue_best_reader_without_positions(n, alphabet, mark_prob)}});
  return {{"alphabet", alphabet}, {"mark_prob", mark_prob}, {"rows", rows}};
}

std::vector<double> causal_attention_equal_scores(const std::vector<double>& values, int len, int width, double score) {
  std::vector<double> out(size_t(len) * width, 0.0);
  std::vector<double> w;
  for (int t = 0; t < len; ++t) {
    // softmax over the visible keys 0..t of scores that are all `score`
    w.assign(t + 1, score);
    const double mx = *std::max_element(w.begin(), w.end());
    double z = 0.0;
    for (double& x : w) z += (x = math::exp(x - mx));
    for (int n = 0; n <= t; ++n)
      for (int c = 0; c < width; ++c) out[size_t(t) * width + c] += (w[n] / z) * values[size_t(n) * width + c];
  }
  return out;
}

nlohmann::json causal_counter_report(int len, int width) {
  // e: a unit vector that is not a basis vector, so every coordinate is exercised.
  std::vector<double> e(width);
  for (int c = 0; c < width; ++c) e[c] = 1.0 / std::sqrt(double(width)) * (c % 2 ? -1.0 : 1.0);
  std::vector<double> values(size_t(len) * width, 0.0);
  std::copy(e.begin(), e.end(), values.begin());
  const auto out = causal_attention_equal_scores(values, len, width, 0.37);
  double max_out_err = 0.0, max_count_err = 0.0;
  bool exact = true;
  for (int t = 0; t < len; ++t) {
    double proj = 0.0;
    for (int c = 0; c < width; ++c) {
      const double o = out[size_t(t) * width + c];
      max_out_err = std::max(max_out_err, std::abs(o - e[c] / (t + 1.0)));
      proj += o * e[c];
    }
    const double count = 1.0 / proj - 1.0;  // recovered t
    max_count_err = std::max(max_count_err, std::abs(count - t));
    if (std::lround(count) != t) exact = false;
  }
  return {{"len", len},
          {"width", width},
          {"max_output_error", max_out_err},
          {"max_recovered_t_error", max_count_err},
          {"t_recovered_exactly", exact}};
}

}  // namespace pe::theory
