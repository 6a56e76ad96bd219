// The position probe (models/position_probe.h): a state that holds the position linearly is read exactly
// (R^2 1, RMSE 0, in every range); one that holds nothing of it scores about 0 on held-out windows; the
// scores from the sums equal those computed token by token; and the char LM's probe runs on a checkpoint.
#include <doctest/doctest.h>

#include <cmath>
#include <random>

#include "core/files.h"
#include "harness/config.h"
#include "models/position_probe.h"
#include "tasks/charlm/position_probe.h"

using namespace pe;
using nlohmann::json;

namespace position_probe_test {
// A cache of one state [B*T, D]: feature 0 = a * t + b, the others noise; or all noise (linear = false).
BlockStackCache<float> states(int B, int T, int D, bool linear, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> noise(0, 1);
  BlockStackCache<float> c;
  c.h_in.assign(1, std::vector<float>(size_t(B) * T * D));
  for (int b = 0; b < B; ++b)
    for (int t = 0; t < T; ++t)
      for (int k = 0; k < D; ++k)
        c.h_in[0][(size_t(b) * T + t) * D + k] = (linear && k == 0) ? 0.25f * float(t) - 3.0f : noise(rng);
  return c;
}
}  // namespace position_probe_test

TEST_CASE("position probe: a linear code of the position is read exactly; noise is not read at all") {
  const int B = 16, T = 64, D = 8;
  std::vector<int> pos(T);
  for (int t = 0; t < T; ++t) pos[size_t(t)] = t;
  const std::vector<std::pair<int, int>> ranges = {{0, 7}, {8, 31}, {32, 63}};
  PositionProbe exact(1, D, ranges), blind(1, D, ranges);
  exact.add(position_probe_test::states(B, T, D, true, 1), B, T, pos, true);
  exact.add(position_probe_test::states(B, T, D, true, 2), B, T, pos, false);
  const json e = exact.fit_and_score();
  CHECK(e[0]["r2"].get<double>() == doctest::Approx(1).epsilon(1e-6));
  CHECK(e[0]["rmse"].get<double>() < 0.05);  // (the ridge's small pull on the slope)
  REQUIRE(e[0]["ranges"].size() == 3);
  for (auto& r : e[0]["ranges"]) CHECK(r["rmse"].get<double>() < 0.05);
  CHECK(e[0]["ranges"][0]["tokens"] == B * 8);
  blind.add(position_probe_test::states(B, T, D, false, 3), B, T, pos, true);
  blind.add(position_probe_test::states(B, T, D, false, 4), B, T, pos, false);
  const json n = blind.fit_and_score();
  CHECK(std::abs(n[0]["r2"].get<double>()) < 0.05);
  CHECK(n[0]["rmse"].get<double>() == doctest::Approx(std::sqrt((T * T - 1) / 12.0)).epsilon(0.05));
}

TEST_CASE("position probe: the scores from the sums are the token-by-token scores of the same fit") {
  // two features, one of them the position squared: the fit is not exact, and its held-out SSE is checked
  const int B = 4, T = 32, D = 2;
  std::vector<int> pos(T);
  for (int t = 0; t < T; ++t) pos[size_t(t)] = t;
  BlockStackCache<float> fit = position_probe_test::states(B, T, D, false, 5),
                         test = position_probe_test::states(B, T, D, false, 6);
  for (auto* c : {&fit, &test})
    for (int i = 0; i < B * T; ++i) c->h_in[0][size_t(i) * D] = float((i % T) * (i % T)) / 100.0f;
  PositionProbe p(1, D, {{0, T - 1}});
  p.add(fit, B, T, pos, true);
  p.add(test, B, T, pos, false);
  const json r = p.fit_and_score();
  // the whole range's R^2 (about its own mean) is the overall one
  CHECK(r[0]["ranges"][0]["r2"].get<double>() == doctest::Approx(r[0]["r2"].get<double>()).epsilon(1e-12));
  CHECK(r[0]["r2"].get<double>() > 0.8);  // t^2 carries most of t over 0..31
  CHECK(r[0]["r2"].get<double>() < 1.0);
}

TEST_CASE("position probe: the char LM's reads every state of a checkpoint, trained and initial") {
  json cfg = default_config("charlm");
  cfg["corpus"] = std::string(PEBENCH_SOURCE_DIR) + "/data/timemachine.txt";
  cfg["train_length"] = 64;  // not the checkpoint's 128: length 0 must take the checkpoint's
  const ExperimentConfig e = ExperimentConfig::from_json(cfg);
  const std::string cp =
      std::string(PEBENCH_SOURCE_DIR) + "/results/charlm-quick/runs/charlm/rope/seed0/checkpoint.json";
  const json trained = charlm_position_probe(cp, 64, 8, false, e), initial = charlm_position_probe(cp, 64, 8, true, e);
  CHECK(trained["weights"] == "trained");
  CHECK(initial["weights"] == "initial");
  REQUIRE(trained["states"].size() == 3);  // the embedding and two blocks
  // the embedding holds no position (RoPE adds none there), trained or not: both score about 0
  for (const json* r : {&trained, &initial}) CHECK((*r)["states"][0]["r2"].get<double>() < 0.05);
  CHECK(trained["states"][2] != initial["states"][2]);
  CHECK(charlm_position_probe(cp, 64, 8, false, e) == trained);  // the same bits again
  // length 0: the length the checkpoint was trained at (read from it, not the task's default)
  CHECK(charlm_position_probe(cp, 0, 2, false, e)["length"] == json::parse(read_file(cp))["training"]["train_length"]);
}
