// The context-extension readers end to end on a trained char LM (the committed charlm-quick RoPE
// checkpoint): cached decoding gives the full forward's perplexities, a length-dependent map reads
// each length with its own plan, the rope_scaling key adds its written map, base runs are kept
// whatever their follow-ups' settings; and the attention statistics.
#include <doctest/doctest.h>

#include <tuple>

#include <cmath>

#include "core/rng.h"
#include "harness/config.h"
#include "models/attention.h"
#include "models/attention_stats.h"
#include "models/block_stack.h"
#include "models/cue_head.h"
#include "tasks/charlm/checkpoint.h"
#include "tasks/charlm/training.h"
#include "tasks/cue/data.h"

using namespace pe;
using nlohmann::json;

namespace {
const std::string kQuickRope =
    std::string(PEBENCH_SOURCE_DIR) + "/results/charlm-quick/runs/charlm/rope/seed0/checkpoint.json";

ExperimentConfig quick_reading(int windows) {
  json cfg = default_config("charlm");
  cfg["val_windows"] = windows;
  cfg["corpus"] = std::string(PEBENCH_SOURCE_DIR) + "/data/timemachine.txt";
  cfg["eval_lengths"] = {64, 256};
  complete_config(cfg);
  return ExperimentConfig::from_json(cfg);
}
}  // namespace

TEST_CASE("cached decoding gives the full forward's perplexities; dynamic's cache does not past the original length") {
  const ExperimentConfig e = quick_reading(6);
  const CharCorpus corpus = load_experiment_corpus(e);
  const CharLMSettings s = charlm_settings(e);
  auto load = [] { return std::move(load_charlm_checkpoint(kQuickRope).model); };
  auto full_model = load();
  full_model->scheme().read_with(identity_spec(), 128, 256);
  const auto full = charlm_perplexities(*full_model, corpus, {64, 256}, s.val_start, 6, 4);
  const auto cached =
      charlm_cached_perplexities(load, identity_spec(), 128, 256, corpus, {64, 256}, s.val_start, 6, 4, 0);
  for (int i = 0; i < 2; ++i) {
    INFO("length ", full[i].length);
    CHECK(cached[i].loss == doctest::Approx(full[i].loss).epsilon(1e-6));
    for (size_t t = 0; t < full[i].position_loss.size(); ++t)
      CHECK(cached[i].position_loss[t] == doctest::Approx(full[i].position_loss[t]).epsilon(1e-5));
  }
  // dynamic: within the original length (128) the same; at 256 the cached keys keep older bases
  full_model->scheme().read_with(parse_map("dynamic"), 128, 256, 256);
  const auto dyn_full = charlm_perplexity(*full_model, corpus, 256, s.val_start, 6, 4);
  const auto dyn_cached =
      charlm_cached_perplexities(load, parse_map("dynamic"), 128, 256, corpus, {64, 256}, s.val_start, 6, 4, 0);
  CHECK(dyn_cached[0].loss == doctest::Approx(full[0].loss).epsilon(1e-6));
  CHECK(std::abs(dyn_cached[1].loss - dyn_full.loss) > 1e-4);
  // and dynamic read in full at 64 is plain RoPE (the base changes only past 128)
  full_model->scheme().read_with(parse_map("dynamic"), 128, 256, 64);
  CHECK(charlm_perplexity(*full_model, corpus, 64, s.val_start, 6, 4).loss == full[0].loss);
}

TEST_CASE("the rope_scaling key reads one more map, written out; base runs are kept whatever their follow-ups") {
  json cfg = default_config("charlm");
  cfg["maps"] = {"pi"};
  cfg["rope_scaling"] = R"({"rope_type":"yarn","factor":4,"original_max_position_embeddings":128})";
  complete_config(cfg);
  const ExperimentConfig e = ExperimentConfig::from_json(cfg);
  REQUIRE(e.maps.size() == 2);
  CHECK(e.maps[1] == "yarn-hf:factor=4:original_max_position_embeddings=128");
  // a run does not depend on its fine-tunes' settings; a fine-tune does
  json a = run_config(cfg, "rope", 0), b = a;
  b["finetune_steps"] = 500;
  CHECK(same_run(a, b));
  a["finetune_from"] = "x", b["finetune_from"] = "x";
  CHECK(!same_run(a, b));
  b["finetune_steps"] = a["finetune_steps"];
  b["decode"] = "cached";  // a reading key
  CHECK(same_run(a, b));
}

TEST_CASE("attention statistics: each row's mass is whole, the sink and the beyond-training share are where they are") {
  AttentionStats st(1, 1, 4, 16);
  const int kpos[6] = {0, 1, 2, 3, 4, 5};
  const float p[6] = {0.5f, 0.1f, 0.1f, 0.1f, 0.1f, 0.1f};
  st.add_row(0, 0, 5, kpos, p, 6);  // distances 5,4,3,2,1,0
  const json j = st.to_json()["layers"][0];
  double mass = 0;
  for (auto& b : j["distance_bins"]) mass += b["mass"].get<double>();
  CHECK(mass == doctest::Approx(1.0));
  CHECK(j["sink_mass"].get<double>() == doctest::Approx(0.5));
  CHECK(j["beyond_training_mass"].get<double>() == doctest::Approx(0.6));  // distances 4 and 5
  const double h = -(0.5 * std::log(0.5) + 5 * 0.1 * std::log(0.1));
  CHECK(j["entropy"].get<double>() == doctest::Approx(h).epsilon(1e-6));
  CHECK(j["entropy_ratio"].get<double>() == doctest::Approx(h / std::log(6.0)).epsilon(1e-6));
  CHECK(AttentionStats::bin_of(0) == 0);
  CHECK(AttentionStats::bin_of(1) == 1);
  CHECK(AttentionStats::bin_of(3) == 2);
  CHECK(AttentionStats::bin_of(4) == 3);
  // a model's rows: every row's mass sums to 1 over its visible keys, nothing beyond L inside it
  BlockStackConfig cfg;
  cfg.vocab = 28, cfg.d_model = 16, cfg.n_heads = 2, cfg.n_layers = 2;
  cfg.scheme.name = "rope";
  cfg.scheme.train_length = 32;
  BlockStack<float> m(cfg);
  m.init(1);
  std::vector<int> x(64);
  Rng rng(4);
  for (auto& v : x) v = rng.below(28);
  m.prepare(64);
  AttentionStats inside(2, 2, 32, 32), past(2, 2, 32, 64);
  add_block_stack_rows(m, x.data(), 1, 32, 0, Visibility{}, inside);
  add_block_stack_rows(m, x.data(), 1, 64, 0, Visibility{}, past);
  // Keep the documents alive: a range-for over a temporary's member dangles before C++23.
  const nlohmann::json inside_doc = inside.to_json(), past_doc = past.to_json();
  for (auto& l : inside_doc["layers"]) {
    double total = 0;
    for (auto& b : l["distance_bins"]) total += b["mass"].get<double>();
    CHECK(total == doctest::Approx(1.0).epsilon(1e-5));
    CHECK(l["beyond_training_mass"].get<double>() == 0.0);
    CHECK(l["rows"].get<double>() == 2 * 32);
  }
  for (auto& l : past_doc["layers"]) CHECK(l["beyond_training_mass"].get<double>() > 0.0);
}

TEST_CASE("attention statistics of a cue head: one query row per sequence, whole, inside the training length") {
  for (const char* scheme : {"rope", "alibi", "none"}) {
    CueModelConfig cfg;
    cfg.scheme.name = scheme;
    cfg.scheme.train_length = 32;
    CueHead<float> m(cfg);
    m.init(2);
    const int B = 5;
    for (int T : {24, 64}) {
      const CueBatch batch = cue_train_batch(cfg.task, 3, 1, B, T);
      m.prepare(T);
      AttentionStats st(1, 1, 32, T);
      add_cue_head_rows(m, batch.tokens.data(), B, T, st);
      const json doc = st.to_json();
      const json& l = doc["layers"][0];
      CHECK(l["rows"].get<double>() == B);
      double mass = 0;
      for (auto& b : l["distance_bins"]) mass += b["mass"].get<double>();
      CHECK(mass == doctest::Approx(1.0).epsilon(1e-5));
      CHECK(l["max_entropy"].get<double>() == doctest::Approx(std::log(double(T))));
      if (T <= 32)
        CHECK(l["beyond_training_mass"].get<double>() == 0.0);
      else
        CHECK(l["beyond_training_mass"].get<double>() > 0.0);
    }
  }
}

TEST_CASE("a run written before a key existed is the same run as one that states the key's default") {
  json cfg = default_config("charlm");
  complete_config(cfg);
  json now = run_config(cfg, "rope", 0), before = now;
  before.erase("train_order");
  CHECK(same_run(now, before));
  CHECK(same_run(before, now));
  now["train_order"] = "orders.json";  // not the default: another run
  CHECK(!same_run(now, before));
  // a scheme's own setting added later (shaw_values, sinusoidal_scale), at the default the task gives it
  for (const char* task : {"cue", "charlm"})
    for (const auto& [scheme, key, other] : {std::tuple<const char*, const char*, json>{"shaw", "shaw_values", false},
                                             {"sinusoidal", "sinusoidal_scale", 0.5},
                                             {"alibi", "alibi_slopes", json::array({0.25})}}) {
      json c = default_config(task);
      c["schemes"] = {scheme};
      complete_config(c);
      json with = run_config(c, scheme, 0), without = with;
      INFO(task, " ", scheme, " ", key);
      REQUIRE(with.contains(key));
      without.erase(key);
      CHECK(same_run(with, without));
      CHECK(same_run(without, with));
      with[key] = other;  // not the default: another run
      CHECK(!same_run(with, without));
    }
}
