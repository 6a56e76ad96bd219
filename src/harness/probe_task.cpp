#include "harness/probe_task.h"

#include <fmt/format.h>

#include "core/rng.h"
#include "harness/checkpoint.h"
#include "harness/key_table.h"
#include "harness/probe_reading.h"
#include "harness/token_loop.h"
#include "models/attention.h"
#include "models/attention_stats.h"
#include "models/block_stack_keys.h"

namespace pe {

using nlohmann::json;

namespace {

// The keys every probe shares (its shape keys join them).
struct ProbeSettings {
  int n_heads = 4, n_layers = 3, cell_sequences = 100;
  uint64_t test_seed = 777;
  double weight_decay = 0, lr_floor = 0.1;
};
const KeyTable<ProbeSettings>& probe_table() {
  static const KeyTable<ProbeSettings> table =
      KeyTable<ProbeSettings>()
          .field(for_reading({"cell_sequences", KeyType::Int, 100,
                              "test sequences per (length, cell) of the test grid (shared by every reader)", 1,
                              kMaxTestSequences}),
                 &ProbeSettings::cell_sequences)
          .field(for_reading({"test_seed", KeyType::Int, 777,
                              "seed of the test stream (shared by every scheme and seed)", 0, kMaxSeed}),
                 &ProbeSettings::test_seed)
          .field({"lr_floor", KeyType::Float, 0.1,
                  "the learning rate falls from lr to lr_floor * lr along a half cosine over the steps (1: constant)",
                  0, 1},
                 &ProbeSettings::lr_floor)
          .keys(block_stack_keys(4, 3))
          .bind("n_heads", &ProbeSettings::n_heads)
          .bind("n_layers", &ProbeSettings::n_layers)
          .bind("weight_decay", &ProbeSettings::weight_decay);
  return table;
}

BlockStackConfig probe_model_config(const ProbeKind& kind, const ExperimentConfig& e, const std::string& scheme) {
  const ProbeSettings s = probe_table().read(e);
  BlockStackConfig c;
  c.vocab = int(kind.make(probe_shape(kind, e))->token_names().size());
  c.d_model = e.d_model;
  c.n_heads = s.n_heads;
  c.n_layers = s.n_layers;
  c.embed_init_std = e.embed_init_std;
  c.scheme = scheme_config(e, scheme);
  return c;
}

// The training batches: sequence b of step s from the stream (seed, step, b), so a resumed run needs no
// stream position.
class ProbeBatches final : public TokenBatches {
 public:
  ProbeBatches(std::unique_ptr<ProbeSource> source, uint64_t seed, int B, int T)
      : source_(std::move(source)), seed_(seed), B_(B), T_(T), slot_(size_t(T)) {}
  void next(int step, std::vector<int>& x, std::vector<int>& y) override {
    x.resize(size_t(B_) * T_), y.resize(size_t(B_) * T_);
    for (int b = 0; b < B_; ++b)
      source_->sequence(stream_key({kTagTrain, seed_, uint64_t(step), uint64_t(b)}), T_, -1, &x[size_t(b) * T_],
                        &y[size_t(b) * T_], slot_.data());
  }

 private:
  std::unique_ptr<ProbeSource> source_;
  uint64_t seed_;
  int B_, T_;
  std::vector<int> slot_;
};

class ProbeTrainer final : public TaskTrainer {
 public:
  explicit ProbeTrainer(const ProbeKind& kind) : kind_(kind) {}
  bool parallel_runs() const override { return false; }  // a run uses every thread

  TrainedRun train(const ExperimentConfig& e, const json& resolved, const std::string& scheme, int seed,
                   Progress& progress) const override {
    const ProbeSettings s = probe_table().read(e);
    const json shape = probe_shape(kind_, e);
    auto model = std::make_shared<BlockStack<float>>(probe_model_config(kind_, e, scheme));
    if (!model->scheme().can_read(e.train_length - 1))
      throw ConfigError(fmt::format("{}: the learned table has {} rows, fewer than train_length {}", scheme,
                                    model->scheme().max_position() + 1, e.train_length));
    model->init(uint64_t(seed));
    auto batches = std::make_shared<ProbeBatches>(kind_.make(shape), uint64_t(seed), e.batch_size, e.train_length);
    TokenLoopSettings settings;
    settings.steps = e.steps, settings.batch = e.batch_size, settings.length = e.train_length;
    settings.log_every = e.log_every;
    settings.adam = AdamConfig{e.lr, e.beta1, e.beta2, e.eps, s.weight_decay};
    settings.progress = [&](int step, int steps, double loss) {
      progress.update(
          fmt::format("[{}] training {} seed {}: step {}/{} loss {:.4f}", kind_.name, scheme, seed, step, steps, loss));
    };
    settings.lr_at = half_cosine_lr(e.lr, s.lr_floor, e.steps);
    settings.training = {{"seed", seed}, {"batch_size", e.batch_size}, {"lr", e.lr}, {"train_length", e.train_length}};
    settings.checkpoint = [this, shape](const BlockStack<float>& m, const json& training) {
      return checkpoint_text(make_probe_checkpoint(kind_, m, shape, training));
    };
    const RunSpec spec =
        experiment_run(e, resolved, scheme, seed, fmt::format("{} {} seed {}", kind_.name, scheme, seed));
    TrainedRun run = train_run(spec, [&] { return std::make_unique<TokenLoop>(*model, *batches, settings); });
    run.summary = run.kept
                      ? fmt::format("kept {} (complete, same config): {} seed {}, final loss {:.4f}", run.run_dir,
                                    scheme, seed, run.final_loss())
                      : fmt::format("trained {} seed {}: {} steps{} in {:.0f} s, final answer loss {:.4f}", scheme,
                                    seed, run.trained(), resumed_note(run.resumed_at), run.seconds, run.final_loss());
    run.record = {{"scheme", scheme}, {"seed", seed}, {"steps", run.steps}, {"final_loss", run.final_loss()}};
    return run;
  }

  // The block stack (two blocks) on the probe's own small sequences: the loss counts only the answer rows.
  std::vector<GradCheckRow> gradcheck(const std::string& scheme) const override {
    const auto source = kind_.make(kind_.gradcheck_shape);
    BlockStackConfig cfg;
    cfg.vocab = int(source->token_names().size());
    cfg.d_model = 8;
    cfg.n_heads = 2;
    cfg.n_layers = 2;
    cfg.embed_init_std = 0.5;  // large enough that every path carries gradient
    cfg.scheme.name = scheme;
    cfg.scheme.train_length = 16;
    const int B = 2, T = kind_.gradcheck_length;
    std::vector<int> x(B * T), y(B * T), slot(T);
    for (int b = 0; b < B; ++b)
      source->sequence(stream_key({kTagCheck, 31, uint64_t(b)}), T, -1, &x[b * T], &y[b * T], slot.data());
    return gradcheck_block_stack(kind_.name, cfg, 6, x, y, B, T);
  }

 private:
  const ProbeKind& kind_;
};

class ProbeReader final : public TaskReader {
 public:
  explicit ProbeReader(const ProbeKind& kind) : kind_(kind) {}
  json evaluate(const std::vector<std::string>& checkpoints, const ExperimentConfig& e, bool progress) const override {
    const ProbeSettings s = probe_table().read(e);
    json results =
        evaluate_probe(kind_, checkpoints, {e.eval_lengths, e.maps, s.cell_sequences, s.test_seed}, progress);
    results["experiment"] = e.resolved;
    return results;
  }
  // Test sequences of the shared test stream at `length`, of the first cell.
  json attention_stats(const std::string& checkpoint, const MapSpec& map, int length, int sequences,
                       const ExperimentConfig& e) const override {
    LoadedProbe cp = load_probe_checkpoint(kind_, checkpoint);
    cp.model->scheme().read_with(map, cp.train_length, length);
    if (!cp.model->scheme().can_read(length - 1)) return {{"readable", false}};  // past its table
    if (length < cp.source->min_length())
      throw UsageError(
          fmt::format("length {} cannot hold this probe's sequences (at least {})", length, cp.source->min_length()));
    AttentionStats stats(cp.model->config().n_layers, cp.model->config().n_heads, cp.train_length, length);
    cp.model->prepare(length);
    std::vector<int> x(length), y(length), slot(length);
    const uint64_t test_seed = probe_table().read(e).test_seed;
    for (int i = 0; i < sequences; ++i) {
      probe_test_sequence(*cp.source, test_seed, length, 0, i, x.data(), y.data(), slot.data());
      add_block_stack_rows(*cp.model, x.data(), 1, length, 0, Visibility{}, stats);
    }
    json j = stats.to_json();
    j["scheme"] = cp.model->scheme().name();
    j["seed"] = cp.seed;
    return j;
  }
  void check_checkpoint(const std::string& checkpoint) const override { load_probe_checkpoint(kind_, checkpoint); }
  std::unique_ptr<DoctorModel> doctor_model(const std::string& checkpoint) const override {
    LoadedProbe l = load_probe_checkpoint(kind_, checkpoint);
    return doctor_block_stack(std::move(l.model), l.train_length);
  }
  CheckBatch check_batch(const std::string& checkpoint, const MapSpec& map, int length, uint64_t seed,
                         const std::string& mode) const override {
    LoadedProbe cp = load_probe_checkpoint(kind_, checkpoint);
    if (length <= 0) length = cp.train_length;
    const json reading = read_for_check(cp.model->scheme(), map, cp.train_length, length, length);
    CheckBatch c = check_block_stack(*cp.model, 4, length, seed, mode);
    c.reading = reading;
    return c;
  }

 private:
  const ProbeKind& kind_;
};

class ProbeReporter final : public TaskReporter {
 public:
  std::string compare(const json& results, const std::string& a, const std::string& b, int length,
                      const CompareSettings&) const override {
    return compare_probe_readers(results, a, b, length);
  }
  std::string table(const json& results) const override { return format_probe_table(results); }
  bool restate_intervals(json& results) const override {
    add_probe_intervals(results);
    return true;
  }
  std::string markdown(const json& results) const override { return format_probe_markdown(results); }
};

class ProbeTask final : public Task {
 public:
  explicit ProbeTask(ProbeKind kind) : kind_(std::move(kind)), trainer_(kind_), reader_(kind_) {}
  std::string name() const override { return kind_.name; }
  std::string description() const override { return kind_.description; }
  // As the passkey task: a 3-block stack of 4 heads of width 16, trained at 64 and read to 1,024; the hybrid is
  // local RoPE (window 32) in two blocks under one global NoPE block.
  json defaults() const override {
    return {{"task", kind_.name},
            {"seeds", {0, 1, 2}},
            {"steps", 3000},
            {"batch_size", 64},
            {"lr", 3e-3},
            {"train_length", 64},
            {"eval_lengths", {64, 128, 256, 512, 1024}},
            {"d_model", 64},
            {"embed_init_std", 0.3},
            {"learned_rows", 0},
            {"alibi_slopes", json::array()},
            {"hybrid_layers", {"rope:32", "rope:32", "none"}},
            {"maps", {"pi", "ntk", "yarn", "selective"}}};
  }
  std::vector<std::string> leading_schemes() const override {
    return {"none", "sinusoidal", "learned", "rope", "alibi"};
  }
  std::vector<KeySpec> keys() const override {
    std::vector<KeySpec> keys = kind_.shape_keys;
    for (auto& k : probe_table().specs()) keys.push_back(k);
    return keys;
  }
  std::string why_not(const std::string& key) const override {
    return key == "visibility" ? "a next-token model that saw later keys would see the token it predicts: it reads "
                                 "causally"
                               : "";
  }
  void validate(const json& cfg) const override {
    json shape = json::object();
    for (auto& k : kind_.shape_keys) shape[k.key] = cfg.at(k.key);
    const int least = kind_.make(shape)->min_length();
    auto check = [&](const std::string& key, int n) {
      if (n < least)
        throw ConfigError(fmt::format("key '{}': length {} cannot hold every cell of the {} probe (at least {})", key,
                                      n, kind_.name, least));
    };
    check("train_length", cfg.at("train_length"));
    for (auto& n : cfg.at("eval_lengths")) check("eval_lengths", n);
    check_block_stack_shape(cfg);
  }
  int n_heads(const ExperimentConfig& e) const override { return probe_table().read(e).n_heads; }
  int n_layers(const ExperimentConfig& e) const override { return probe_table().read(e).n_layers; }
  const TaskTrainer& trainer() const override { return trainer_; }
  const TaskReader& reader() const override { return reader_; }
  const TaskReporter& reporter() const override { return reporter_; }

 private:
  ProbeKind kind_;
  ProbeTrainer trainer_;
  ProbeReader reader_;
  ProbeReporter reporter_;
};

}  // namespace

std::unique_ptr<Task> make_probe_task(ProbeKind kind) { return std::make_unique<ProbeTask>(std::move(kind)); }

std::vector<int> spread_gaps(Rng& rng, int F, int k) {
  std::vector<int> gaps(k + 1, 0);
  for (int j = 0; j < k; ++j) {
    const int seg = int(long(F) * (j + 1) / k - long(F) * j / k), before = rng.below(seg + 1);
    gaps[j] += before;
    gaps[j + 1] += seg - before;
  }
  return gaps;
}

std::vector<int> distinct_draw(Rng& rng, int n, int k) {
  std::vector<int> pool(n);
  for (int i = 0; i < n; ++i) pool[i] = i;
  for (int i = 0; i < k; ++i) std::swap(pool[i], pool[i + rng.below(n - i)]);
  pool.resize(k);
  return pool;
}

}  // namespace pe
