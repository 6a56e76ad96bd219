// Exact baselines: the no-position cue reader against brute-force enumeration, and the causal counter.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "theory/baselines.h"
#include "theory/exact_reader.h"

namespace {

// Enumerate every sequence of N content tokens (symbol, marked?) with its probability; the target is
// the symbol of the LAST marked token (a sequence with none gets one forced mark, read right), the
// reader guesses uniformly among the most frequent marked symbols.
double brute_force_cue_reader(int n, int alphabet, double p) {
  const int N = n - 1, states = 2 * alphabet;
  long long total = 1;
  for (int i = 0; i < N; ++i) total *= states;
  double acc = 0.0;
  std::vector<int> counts(alphabet);
  for (long long code = 0; code < total; ++code) {
    long long c = code;
    double prob = 1.0;
    int marks = 0, target = -1;
    std::fill(counts.begin(), counts.end(), 0);
    for (int i = 0; i < N; ++i) {
      const int st = int(c % states);
      c /= states;
      const int sym = st / 2;
      const bool marked = st % 2;
      prob *= (marked ? p : 1.0 - p) / alphabet;
      if (marked) ++marks, ++counts[sym], target = sym;  // later tokens overwrite: last mark wins
    }
    if (marks == 0) {
      acc += prob;
      continue;
    }
    const int mx = *std::max_element(counts.begin(), counts.end());
    int modes = 0;
    for (int k : counts) modes += (k == mx);
    if (counts[target] == mx) acc += prob / modes;
  }
  return acc;
}

}  // namespace

TEST_CASE("theory: no-position cue reader equals brute-force enumeration") {
  CHECK(pe::cue_best_reader_without_positions(6, 3, 0.1) ==
        doctest::Approx(brute_force_cue_reader(6, 3, 0.1)).epsilon(1e-12));
  CHECK(pe::cue_best_reader_without_positions(7, 3, 0.35) ==
        doctest::Approx(brute_force_cue_reader(7, 3, 0.35)).epsilon(1e-12));
  CHECK(pe::cue_best_reader_without_positions(5, 4, 0.6) ==
        doctest::Approx(brute_force_cue_reader(5, 4, 0.6)).epsilon(1e-12));
  // The report calls it at 32..256 with the task's alphabet 8 and mark probability 0.1.
  const auto j = pe::theory::cue_baseline_report();
  REQUIRE(j["rows"].size() == 4);
  CHECK(j["rows"][0]["n"] == 32);
  CHECK(j["rows"][0]["accuracy"].get<double>() == doctest::Approx(pe::cue_best_reader_without_positions(32)));
  double prev = 1.0;
  for (const auto& r : j["rows"]) {  // more content, more marks, harder to guess the last one from a bag
    CHECK(r["accuracy"].get<double>() < prev);
    prev = r["accuracy"].get<double>();
  }
}

TEST_CASE("theory: causal counter — equal scores average the value at 0 into e/(t+1)") {
  const int len = 300, width = 3;
  std::vector<double> values(len * width, 0.0);
  values[0] = 0.6, values[1] = -0.8, values[2] = 0.0;  // unit e
  const auto out = pe::theory::causal_attention_equal_scores(values, len, width, -2.5);
  for (int t = 0; t < len; ++t) {
    CHECK(out[t * width + 0] == doctest::Approx(0.6 / (t + 1)).epsilon(1e-13));
    CHECK(out[t * width + 1] == doctest::Approx(-0.8 / (t + 1)).epsilon(1e-13));
    const double proj = 0.6 * out[t * width] - 0.8 * out[t * width + 1];
    CHECK(std::lround(1.0 / proj - 1.0) == t);
  }
  // a value planted at position 5 is invisible to earlier queries (causality) and then averages as 1/(t+1)
  std::vector<double> late(len * width, 0.0);
  late[5 * width] = 1.0;
  const auto o2 = pe::theory::causal_attention_equal_scores(late, len, width, 0.0);
  CHECK(o2[4 * width] == 0.0);
  CHECK(o2[9 * width] == doctest::Approx(0.1));
  const auto j = pe::theory::causal_counter_report(512, 4);
  CHECK(j["t_recovered_exactly"] == true);
  CHECK(j["max_output_error"].get<double>() < 1e-15);
  CHECK(j["max_recovered_t_error"].get<double>() < 1e-9);
}
