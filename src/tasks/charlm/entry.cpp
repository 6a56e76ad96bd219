// The character LM as a registry entry (harness/task.h): TinyCharLM (models/block_stack.h) on The
// Time Machine, validation perplexity at 128/256/512; RoPE also read through maps, fine-tuned and
// banded.
#include <fmt/format.h>

#include <algorithm>

#include "harness/random_positions.h"
#include "harness/task.h"
#include "models/attention_stats.h"
#include "models/block_stack_keys.h"
#include "tasks/charlm/checkpoint.h"
#include "tasks/charlm/damage.h"
#include "tasks/charlm/gradcheck.h"
#include "tasks/charlm/position_probe.h"
#include "tasks/charlm/tools.h"
#include "tasks/charlm/training.h"
#include "theory/alibi_bound.h"

namespace pe {

namespace {

class CharLMTrainer final : public TaskTrainer {
 public:
  bool parallel_runs() const override { return false; }  // a run takes minutes and uses every thread

  TrainedRun train(const ExperimentConfig& e, const nlohmann::json& resolved, const std::string& scheme, int seed,
                   Progress& progress) const override {
    TrainedRun run = train_charlm(e, resolved, scheme, seed, [&](int step, int steps, double loss) {
      progress.update(
          fmt::format("[charlm] training {} seed {}: step {}/{} loss {:.4f}", scheme, seed, step, steps, loss));
    });
    run.summary = run.kept
                      ? fmt::format("kept {} (complete, same config): {} seed {}, final loss {:.3f}", run.run_dir,
                                    scheme, seed, run.final_loss())
                      : fmt::format("trained {} seed {}: {} steps{} in {:.0f} s ({:.0f} ms/step), final loss {:.3f}",
                                    scheme, seed, run.trained(), resumed_note(run.resumed_at), run.seconds,
                                    1e3 * run.seconds / run.trained(), run.final_loss());
    run.record = {{"scheme", scheme}, {"seed", seed}, {"steps", run.steps}, {"final_loss", run.final_loss()}};
    return run;
  }
  // A scheme that reads its angles from a frequency plan is fine-tuned with each map (finetune_steps
  // steps at finetune_length), one run each, read after the map's reading of the run it started from.
  std::vector<std::string> follow_up_keys() const override {
    return {"finetune_steps", "finetune_length", "finetune_batch", "finetune_lr"};
  }
  bool is_follow_up(const nlohmann::json& run_config) const override { return run_config.contains("finetune_from"); }
  std::vector<TrainedRun> follow_ups(const ExperimentConfig& e, const nlohmann::json& resolved, const TrainedRun& run,
                                     Progress& progress) const override {
    std::vector<TrainedRun> out;
    if (charlm_settings(e).finetune_steps <= 0 ||
        !load_charlm_checkpoint(run.checkpoint).model->scheme().accepts_frequency_plan())
      return out;
    const std::string scheme = run.record.at("scheme");
    const int seed = run.record.at("seed");
    for (auto& map : e.maps) {
      if (map.scales_by_length()) continue;  // a reading only (logn): nothing to fine-tune under
      TrainedRun r = finetune_charlm(e, resolved, run.checkpoint, map, [&](int step, int steps, double loss) {
        progress.update(fmt::format("[charlm] fine-tuning {}+{} seed {} at {}: step {}/{} loss {:.4f}", scheme, map,
                                    seed, charlm_settings(e).finetune_length, step, steps, loss));
      });
      r.summary =
          fmt::format("{} {}+{} seed {} at {}: {} steps{} in {:.0f} s, final loss {:.3f}",
                      r.kept ? "kept fine-tune" : "fine-tuned", scheme, map, seed, charlm_settings(e).finetune_length,
                      r.trained(), resumed_note(r.resumed_at), r.seconds, r.final_loss());
      r.record = {{"scheme", scheme},
                  {"seed", seed},
                  {"finetune_map", map},
                  {"steps", r.steps},
                  {"final_loss", r.final_loss()}};
      out.push_back(std::move(r));
    }
    return out;
  }
  std::vector<GradCheckRow> gradcheck(const std::string& scheme) const override { return gradcheck_charlm(scheme); }
};

class CharLMReader final : public TaskReader {
 public:
  nlohmann::json evaluate(const std::vector<std::string>& checkpoints, const ExperimentConfig& e,
                          bool progress) const override {
    nlohmann::json results = evaluate_charlm(checkpoints, e, progress);
    results["experiment"] = e.resolved;
    return results;
  }
  // The validation windows val_start, val_start + val_stride, ... read at `length` (causal, no band).
  nlohmann::json attention_stats(const std::string& checkpoint, const MapSpec& map, int length, int sequences,
                                 const ExperimentConfig& e) const override {
    LoadedCharLM cp = load_charlm_checkpoint(checkpoint);
    const int train_len = cp.meta.at("training").at("train_length");
    if (!cp.plan_map)
      cp.model->scheme().read_with(map, train_len, length);
    else if (!map.is_identity())
      throw UsageError(
          fmt::format("{} was fine-tuned with {} and reads with that plan only", checkpoint, cp.plan_map->written));
    if (!cp.model->scheme().can_read(length - 1)) return {{"readable", false}};  // past its table
    const CharCorpus corpus = load_experiment_corpus(e);
    AttentionStats stats(cp.model->config().n_layers, cp.model->config().n_heads, train_len, length);
    cp.model->prepare(length);
    std::vector<int> x(length), y(length);
    for (int w = 0; w < sequences; ++w) {
      char_window(corpus, charlm_settings(e).val_start + w * charlm_settings(e).val_stride, length, x.data(), y.data());
      add_block_stack_rows(*cp.model, x.data(), 1, length, 0, Visibility{}, stats);
    }
    nlohmann::json j = stats.to_json();
    // a linear bias (ALiBi): beside each head's measured mass past the training length, the bias's alone
    // (every content score equal) over the same rows
    const PositionGeometry g = cp.model->scheme().geometry();
    if (g.kind == PositionGeometry::Kind::LinearBias)
      for (auto& h : j.at("heads"))
        if (h.contains("head") && h.at("head").get<int>() >= 0) {
          const double slope = g.slopes.at(h.at("head").get<size_t>());
          h["slope"] = slope;
          h["bias_only_beyond_training_mass"] = theory::alibi_mean_tail_mass(slope, length, train_len);
        }
    j["scheme"] = cp.model->scheme().name();
    j["seed"] = cp.meta.at("training").at("seed");
    return j;
  }
  nlohmann::json position_probe(const std::string& checkpoint, int length, int windows, bool initial,
                                const ExperimentConfig& e) const override {
    return charlm_position_probe(checkpoint, length, windows, initial, e);
  }
  void check_checkpoint(const std::string& checkpoint) const override { load_charlm_checkpoint(checkpoint); }
  std::unique_ptr<DoctorModel> doctor_model(const std::string& checkpoint) const override {
    LoadedCharLM l = load_charlm_checkpoint(checkpoint);  // with a fine-tune's plan applied
    const int train = l.meta.at("training").value("train_length", 0);
    return doctor_block_stack(std::move(l.model), train);
  }
  FaultHosting fault_hosting() const override { return charlm_fault_hosting(); }
  std::unique_ptr<DamageProbe> damage_probe(const std::string& checkpoint, int items, uint64_t) const override {
    return charlm_damage_probe(load_charlm_checkpoint(checkpoint).vocab, items);
  }
  // A fine-tuned checkpoint reads with the plan it was tuned under (for its lengths), and no other map.
  CheckBatch check_batch(const std::string& checkpoint, const MapSpec& map, int length, uint64_t seed,
                         const std::string& mode) const override {
    LoadedCharLM cp = load_charlm_checkpoint(checkpoint);
    const int train_len = cp.meta.at("training").at("train_length");
    if (length <= 0) length = train_len;
    nlohmann::json reading;
    if (!cp.plan_map) {
      reading = read_for_check(cp.model->scheme(), map, train_len, length, length);
    } else {
      if (!map.is_identity())
        throw UsageError(fmt::format("{} was fine-tuned with {} and reads with that plan only; leave --map out",
                                     checkpoint, cp.plan_map->written));
      reading = read_for_check(cp.model->scheme(), *cp.plan_map, cp.plan_train_length, cp.plan_read_length, length);
    }
    CheckBatch c = check_block_stack(*cp.model, 4, length, seed, mode);
    c.reading = reading;
    return c;
  }
};

class CharLMReporter final : public TaskReporter {
 public:
  std::string compare(const nlohmann::json& results, const std::string& a, const std::string& b, int length,
                      const CompareSettings&) const override {
    return compare_charlm_readers(results, a, b, length);
  }
  std::string table(const nlohmann::json& results) const override { return format_charlm_table(results); }
  std::string reader_of(const nlohmann::json& row) const override { return charlm_reading_label(row); }
  std::string markdown(const nlohmann::json& results) const override { return format_charlm_markdown(results); }
};

class CharLMTools final : public TaskTools {
 public:
  void add_tools(CLI::App& app) const override { cli::add_charlm_tools(app); }
};

class CharLMTask final : public TaskOf<CharLMTrainer, CharLMReader, CharLMReporter, CharLMTools> {
 public:
  std::string name() const override { return "charlm"; }
  std::string description() const override {
    return "a 2-block attention-only character LM on The Time Machine, perplexity at 128/256/512";
  }
  // tasks.md section 3: TinyCharLM on The Time Machine; the published table's schemes first.
  nlohmann::json defaults() const override {
    return {{"task", "charlm"},
            {"seeds", {0}},
            {"steps", 3000},
            {"batch_size", 64},
            {"lr", 1e-3},
            {"train_length", 128},
            {"eval_lengths", {128, 256, 512}},
            {"d_model", 128},
            {"n_heads", 4},
            {"n_layers", 2},
            {"embed_init_std", 0.02},
            {"learned_rows", 512},
            {"alibi_slopes", nlohmann::json::array()},
            {"maps", {"pi", "selective"}},
            {"finetune_steps", 300},
            {"checkpoint_every", 500}};
  }
  std::vector<std::string> leading_schemes() const override {
    return {"learned", "sinusoidal", "rope", "alibi", "none"};
  }
  std::vector<KeySpec> keys() const override { return charlm_keys(); }
  std::string why_not(const std::string& key) const override {
    if (key == "visibility")
      return "a next-token model that saw later keys would see the token it predicts: it reads causally";
    if (key == "doc_min_length" || key == "packed_windows")
      return "its documents are the paragraphs of its text, with the lengths they have (packing and read_layouts: "
             "docs/tasks.md, Packing)";
    return "";
  }
  // The block stack's width splits into heads of even width (planes are coordinate pairs).
  void validate(const nlohmann::json& cfg) const override {
    check_block_stack_shape(cfg);
    const Packing packing = packing_from_name(cfg.value("packing", "none"));
    if (packing != Packing::None && packing != Packing::Packed &&
        (cfg.value("mem_len", 0) > 0 || !cfg.value("train_order", std::string()).empty()))
      throw ConfigError(fmt::format(
          "packing: '{}' lays paragraphs into windows of its own, but {} gives the windows; give packing none or "
          "packed, or leave {} out",
          packing_name(packing), cfg.value("mem_len", 0) > 0 ? "mem_len" : "train_order",
          cfg.value("mem_len", 0) > 0 ? "mem_len" : "train_order"));
    const auto layouts = cfg.value("read_layouts", std::vector<std::string>{});
    for (size_t i = 0; i < layouts.size(); ++i)
      if (std::find(layouts.begin(), layouts.begin() + long(i), layouts[i]) != layouts.begin() + long(i))
        throw ConfigError(fmt::format("read_layouts: '{}' is given twice; give each layout once", layouts[i]));
    for (const std::string& l : layouts)
      if (std::find(charlm_read_layouts().begin(), charlm_read_layouts().end(), l) == charlm_read_layouts().end())
        throw ConfigError(
            fmt::format("read_layouts: '{}' is not a layout (isolated-reset, isolated-global, documents)", l));
    const std::string decode = cfg.value("decode", "full");
    if (decode != "full" && decode != "cached")
      throw ConfigError(fmt::format("decode: '{}' is not full or cached", decode));
    check_random_positions(cfg);
    if (cfg.value("random_positions", 0) > 0)
      check_charlm_random_positions_readings(cfg.value("random_positions", 0), cfg, "key 'random_positions'");
    try {
      parse_maps(cfg.value("cached_maps", std::vector<std::string>{}), "cached_maps");
    } catch (const ConfigError&) {
      throw;
    } catch (const UsageError& e) {
      throw ConfigError(e.what());
    }
  }
  int n_heads(const ExperimentConfig& e) const override { return charlm_settings(e).n_heads; }
  int n_layers(const ExperimentConfig& e) const override { return charlm_settings(e).n_layers; }
};

}  // namespace

const Task& charlm_task() {
  static const CharLMTask t;
  return t;
}

}  // namespace pe
