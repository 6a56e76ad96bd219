// Randomised positions (harness/random_positions.h, Ruoss et al. 2023): the sampler draws sorted distinct
// positions of [0, L), every position about equally often; the passkey task checks the key against the
// lengths, packing and a learned table, records it in the checkpoint and reads at the same kind of positions;
// a scheme that reads no position (NoPE) is untouched by it, an absolute one is moved.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <vector>

#include "core/errors.h"
#include "core/files.h"
#include "harness/config.h"
#include "harness/random_positions.h"
#include "scratch.h"
#include "tasks/passkey/data.h"
#include "tasks/passkey/evaluation.h"
#include "tasks/passkey/training.h"

using namespace pe;
using nlohmann::json;
namespace fs = std::filesystem;

namespace random_positions_test {

json small_config(const std::string& runs, int range) {
  json c = default_config("passkey");
  c["runs_dir"] = runs;
  c["steps"] = 8;
  c["batch_size"] = 4;
  c["log_every"] = 4;
  c["d_model"] = 32;
  c["train_length"] = 32;
  c["eval_lengths"] = {32, 64};
  c["depths"] = 2;
  c["cell_sequences"] = 4;
  c["random_positions"] = range;
  return c;
}

}  // namespace random_positions_test

TEST_CASE("random positions: sorted, distinct, in range, a function of the key, every position equally likely") {
  const int n = 16, range = 64, draws = 20000;
  std::vector<int> pos(n), again(n);
  std::vector<long> count(range, 0);
  bool ordered = true;  // every draw: ascending (so distinct), in [0, range)
  for (int k = 0; k < draws; ++k) {
    sample_positions(uint64_t(k) * 7919 + 3, n, range, pos.data());
    for (int i = 0; i < n; ++i) {
      ordered = ordered && pos[i] >= 0 && pos[i] < range && (i == 0 || pos[i] > pos[i - 1]);
      if (pos[i] >= 0 && pos[i] < range) ++count[pos[i]];
    }
  }
  CHECK(ordered);
  // each position is kept with probability n / range: 5,000 of 20,000 draws, a binomial sd of about 61
  const double expected = double(draws) * n / range, sd = std::sqrt(expected * (1.0 - double(n) / range));
  for (int p = 0; p < range; ++p) {
    CAPTURE(p);
    CHECK(std::abs(count[p] - expected) < 5 * sd);
  }
  sample_positions(42, n, range, pos.data());
  sample_positions(42, n, range, again.data());
  CHECK(pos == again);
  sample_positions(43, n, range, again.data());
  CHECK(pos != again);
  // n == range: every position; n == 0: none; n > range: refused
  std::vector<int> all(range);
  sample_positions(5, range, range, all.data());
  for (int p = 0; p < range; ++p) CHECK(all[p] == p);
  CHECK_NOTHROW(sample_positions(5, 0, range, all.data()));
  CHECK_THROWS_AS(sample_positions(5, range + 1, range, all.data()), Error);
}

TEST_CASE("random positions: the passkey keys are checked, naming the key") {
  json c = random_positions_test::small_config("unused", 128);
  CHECK_NOTHROW(validate_config(c));
  c["random_positions"] = 0;
  CHECK_NOTHROW(validate_config(c));
  c["random_positions"] = 48;  // shorter than eval_lengths' 64
  CHECK_THROWS_WITH_AS(validate_config(c), doctest::Contains("key 'random_positions'"), ConfigError);
  c["random_positions"] = 16;  // shorter than the training length
  CHECK_THROWS_WITH_AS(validate_config(c), doctest::Contains("key 'random_positions'"), ConfigError);
  c["random_positions"] = -1;
  CHECK_THROWS_WITH_AS(validate_config(c), doctest::Contains("random_positions"), ConfigError);
  c["random_positions"] = 128;
  c["packing"] = "packed";
  CHECK_THROWS_WITH_AS(validate_config(c), doctest::Contains("'packing'"), ConfigError);
  c["packing"] = "none";
  c["packed_windows"] = 4;
  CHECK_THROWS_WITH_AS(validate_config(c), doctest::Contains("'packed_windows'"), ConfigError);
}

TEST_CASE("random positions: a passkey batch's positions are sorted draws below L, one per row") {
  std::vector<int> pos, again;
  passkey_random_positions(3, 5, 4, 32, 256, pos);
  REQUIRE(pos.size() == 4 * 32);
  for (int b = 0; b < 4; ++b)
    for (int t = 0; t < 32; ++t) {
      const int p = pos[size_t(b) * 32 + t];
      CHECK((p >= 0 && p < 256));
      if (t > 0) CHECK(p > pos[size_t(b) * 32 + t - 1]);
    }
  CHECK(std::vector<int>(pos.begin(), pos.begin() + 32) != std::vector<int>(pos.begin() + 32, pos.begin() + 64));
  passkey_random_positions(3, 5, 4, 32, 256, again);
  CHECK(pos == again);  // named by (seed, step): a resumed run draws the same
  passkey_random_positions(3, 6, 4, 32, 256, again);
  CHECK(pos != again);
}

TEST_CASE("random positions: NoPE reads no position (the same logits); an absolute code is moved") {
  json c = random_positions_test::small_config("unused", 512);
  const ExperimentConfig e = ExperimentConfig::from_json(c);
  const int T = 32;
  std::vector<int> x(T), y(T), pos(T);
  passkey_test_sequence(PasskeySpec{}, 777, T, 0, 0.5, 0, x.data(), y.data());
  passkey_test_positions(777, T, 0, 0, 512, pos.data());
  REQUIRE(pos.back() >= T);  // 32 of 512: the last is past 31 but for a draw of odds 1 in 10^33
  for (const std::string scheme : {"none", "sinusoidal", "rope"}) {
    CAPTURE(scheme);
    BlockStack<float> model(passkey_model_config(e, scheme));
    model.init(4);
    model.prepare(512);
    BlockStackCache<float> cache;
    model.forward(x.data(), y.data(), 1, T, cache);
    const std::vector<float> plain = cache.logits;
    const TokenCoordinates at{pos.data(), nullptr};
    model.forward(x.data(), y.data(), 1, T, cache, 0, Visibility{}, nullptr, &at);
    double gap = 0;
    for (size_t i = 0; i < plain.size(); ++i) gap = std::max(gap, double(std::abs(plain[i] - cache.logits[i])));
    if (scheme == "none")
      CHECK(gap == 0);
    else
      CHECK(gap > 1e-4);  // sinusoidal: other rows of the code; rope: other offsets between the tokens
  }
}

TEST_CASE("random positions: a passkey run records L, reads at drawn positions and refuses what it cannot read") {
  const std::string dir = pe::test::fresh_scratch_dir("random-positions-runs");
  json cfg = random_positions_test::small_config(dir + "/runs", 128);
  const ExperimentConfig e = ExperimentConfig::from_json(cfg);
  const TrainedRun run = train_passkey(e, cfg, "rope", 0);
  CHECK(run.steps == 8);
  CHECK(std::isfinite(run.final_loss()));
  const std::string text = read_file(run.checkpoint);
  CHECK(json::parse(text)["training"]["random_positions"] == 128);
  CHECK(load_passkey_checkpoint(run.checkpoint).random_positions == 128);
  fs::remove_all(run.run_dir);
  CHECK(read_file(train_passkey(e, cfg, "rope", 0).checkpoint) == text);  // the same bits again
  const json r = evaluate_passkey({run.checkpoint}, PasskeyReadSettings{{32, 128}, {}, 2, 4, 5}, false);
  for (auto& a : r["rows"][0]["accuracy"]) CHECK((a.get<double>() >= 0 && a.get<double>() <= 1));
  // longer than the range: no test sequence fits it
  CHECK_THROWS_WITH_AS(evaluate_passkey({run.checkpoint}, PasskeyReadSettings{{256}, {}, 2, 4, 5}, false),
                       doctest::Contains("random_positions 128"), UsageError);
  CHECK_THROWS_WITH_AS(evaluate_passkey({run.checkpoint}, PasskeyReadSettings{{32}, {}, 2, 4, 5, 6, 12}, false),
                       doctest::Contains("packed"), UsageError);
  // a learned table must hold every position drawn
  cfg["learned_rows"] = 64;
  CHECK_THROWS_WITH_AS(train_passkey(ExperimentConfig::from_json(cfg), cfg, "learned", 0),
                       doctest::Contains("random_positions 128"), ConfigError);
  cfg["learned_rows"] = 128;
  CHECK(std::isfinite(train_passkey(ExperimentConfig::from_json(cfg), cfg, "learned", 0).final_loss()));
  fs::remove_all(dir);
}
