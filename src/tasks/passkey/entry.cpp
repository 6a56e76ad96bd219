// The passkey task as a registry entry (harness/task.h): a passkey hidden at a depth of random
// filler, asked for at the end; the block stack (models/block_stack.h) trained at one length and read
// on a grid of lengths x depths, RoPE also through the maps.
#include <fmt/format.h>

#include "harness/task.h"
#include "models/attention.h"
#include "models/attention_stats.h"
#include "tasks/passkey/damage.h"
#include "tasks/passkey/data.h"
#include "tasks/passkey/evaluation.h"
#include "tasks/passkey/gradcheck.h"
#include "tasks/passkey/training.h"

namespace pe {

namespace {

class PasskeyTrainer final : public TaskTrainer {
 public:
  bool parallel_runs() const override { return false; }  // a run uses every thread

  TrainedRun train(const ExperimentConfig& e, const nlohmann::json& resolved, const std::string& scheme, int seed,
                   Progress& progress) const override {
    TrainedRun run = train_passkey(e, resolved, scheme, seed, [&](int step, int steps, double loss) {
      progress.update(
          fmt::format("[passkey] training {} seed {}: step {}/{} loss {:.4f}", scheme, seed, step, steps, loss));
    });
    run.summary = run.kept
                      ? fmt::format("kept {} (complete, same config): {} seed {}, final loss {:.4f}", run.run_dir,
                                    scheme, seed, run.final_loss())
                      : fmt::format("trained {} seed {}: {} steps{} in {:.0f} s, final answer loss {:.4f}", scheme,
                                    seed, run.trained(), resumed_note(run.resumed_at), run.seconds, run.final_loss());
    run.record = {{"scheme", scheme}, {"seed", seed}, {"steps", run.steps}, {"final_loss", run.final_loss()}};
    return run;
  }
  std::vector<GradCheckRow> gradcheck(const std::string& scheme) const override { return gradcheck_passkey(scheme); }
};

class PasskeyReader final : public TaskReader {
 public:
  nlohmann::json evaluate(const std::vector<std::string>& checkpoints, const ExperimentConfig& e,
                          bool progress) const override {
    const PasskeySettings s = passkey_settings(e);
    nlohmann::json results = evaluate_passkey(checkpoints,
                                              PasskeyReadSettings{e.eval_lengths, e.maps, s.depths, s.cell_sequences,
                                                                  s.test_seed, s.packed_windows, s.doc_min_length},
                                              progress);
    results["experiment"] = e.resolved;
    return results;
  }
  // Test sequences of the shared test stream at `length`, the passkey at middle depth (0.5).
  nlohmann::json attention_stats(const std::string& checkpoint, const MapSpec& map, int length, int sequences,
                                 const ExperimentConfig& e) const override {
    LoadedPasskey cp = load_passkey_checkpoint(checkpoint);
    cp.model->scheme().read_with(map, cp.train_length, length);
    if (!cp.model->scheme().can_read(length - 1)) return {{"readable", false}};  // past its table
    if (length < cp.spec.min_length())
      throw UsageError(fmt::format("length {} cannot hold a passkey of {} symbols", length, cp.spec.symbols));
    AttentionStats stats(cp.model->config().n_layers, cp.model->config().n_heads, cp.train_length, length);
    cp.model->prepare(length);
    std::vector<int> x(length), y(length);
    for (int i = 0; i < sequences; ++i) {
      passkey_test_sequence(cp.spec, passkey_settings(e).test_seed, length, 0, 0.5, i, x.data(), y.data());
      add_block_stack_rows(*cp.model, x.data(), 1, length, 0, Visibility{}, stats);
    }
    nlohmann::json j = stats.to_json();
    j["scheme"] = cp.model->scheme().name();
    j["seed"] = cp.seed;
    return j;
  }
  void check_checkpoint(const std::string& checkpoint) const override { load_passkey_checkpoint(checkpoint); }
  std::unique_ptr<DoctorModel> doctor_model(const std::string& checkpoint) const override {
    LoadedPasskey l = load_passkey_checkpoint(checkpoint);
    return doctor_block_stack(std::move(l.model), l.train_length);
  }
  FaultHosting fault_hosting() const override { return passkey_fault_hosting(); }
  std::unique_ptr<DamageProbe> damage_probe(const std::string& checkpoint, int items,
                                            uint64_t test_seed) const override {
    return passkey_damage_probe(load_passkey_checkpoint(checkpoint).spec, items, test_seed);
  }
  CheckBatch check_batch(const std::string& checkpoint, const MapSpec& map, int length, uint64_t seed,
                         const std::string& mode) const override {
    LoadedPasskey cp = load_passkey_checkpoint(checkpoint);
    if (length <= 0) length = cp.train_length;
    const nlohmann::json reading = read_for_check(cp.model->scheme(), map, cp.train_length, length, length);
    CheckBatch c = check_block_stack(*cp.model, 4, length, seed, mode);
    c.reading = reading;
    return c;
  }
};

class PasskeyReporter final : public TaskReporter {
 public:
  std::string compare(const nlohmann::json& results, const std::string& a, const std::string& b, int length,
                      const CompareSettings&) const override {
    return compare_passkey_readers(results, a, b, length);
  }
  std::string table(const nlohmann::json& results) const override { return format_passkey_table(results); }
  bool restate_intervals(nlohmann::json& results) const override {
    add_passkey_intervals(results);
    return true;
  }
  std::string markdown(const nlohmann::json& results) const override { return format_passkey_markdown(results); }
};

class PasskeyTask final : public TaskOf<PasskeyTrainer, PasskeyReader, PasskeyReporter> {
 public:
  std::string name() const override { return "passkey"; }
  std::string description() const override {
    return "passkey retrieval: a key hidden at a depth of random filler, asked for at the end";
  }
  // A 3-block stack of 4 heads of width 16, trained at 64 on 4-symbol passkeys, read to 1,024. Two
  // blocks learn one- and two-symbol passkeys but stall on four (docs/tasks.md, section 4); three
  // learn them. The hybrid is local RoPE (window 32) in two blocks under one global NoPE block.
  nlohmann::json defaults() const override {
    return {{"task", "passkey"},
            {"seeds", {0, 1, 2}},
            {"steps", 3000},
            {"batch_size", 64},
            {"lr", 3e-3},
            {"train_length", 64},
            {"eval_lengths", {64, 128, 256, 512, 1024}},
            {"d_model", 64},
            {"embed_init_std", 0.3},
            {"learned_rows", 0},
            {"alibi_slopes", nlohmann::json::array()},
            {"hybrid_layers", {"rope:32", "rope:32", "none"}},
            {"maps", {"pi", "ntk", "yarn", "selective"}}};
  }
  std::vector<std::string> leading_schemes() const override {
    return {"none", "sinusoidal", "learned", "rope", "alibi"};
  }
  std::vector<KeySpec> keys() const override { return passkey_keys(); }
  std::string why_not(const std::string& key) const override {
    return key == "visibility" ? "a next-token model that saw later keys would see the token it predicts: it reads "
                                 "causally"
                               : "";
  }
  void validate(const nlohmann::json& cfg) const override { check_passkey_config(cfg); }
  int n_heads(const ExperimentConfig& e) const override { return passkey_settings(e).n_heads; }
  int n_layers(const ExperimentConfig& e) const override { return passkey_settings(e).n_layers; }
};

}  // namespace

const Task& passkey_task() {
  static const PasskeyTask t;
  return t;
}

}  // namespace pe
