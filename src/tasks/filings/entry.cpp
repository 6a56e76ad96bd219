// The filings case study as a registry entry (harness/task.h): "which company was named last?" on
// pe-bench's synthetic company filings (tasks/filings/corpus.h). The tournament's single head in its
// causal form (models/cue_head.h, every_position) is trained on 32-token windows of the training
// documents by the cue head's trainer (models/cue_head_trainer.h, through harness/head_loop.h) and
// read on whole held-out documents in one pass; RoPE also through the maps at kappa = document length / 32.
#include <fmt/format.h>

#include <filesystem>

#include "core/errors.h"
#include "core/files.h"
#include "harness/task.h"
#include "tasks/cue/checkpoint.h"
#include "tasks/filings/evaluation.h"
#include "tasks/filings/gradcheck.h"
#include "tasks/filings/tools.h"
#include "tasks/filings/training.h"

namespace pe {

namespace {

FilingsSettings settings_of(const ExperimentConfig& e) {
  return FilingsSettings{e.value("corpus_seed").get<uint64_t>(), e.value("corpus_version").get<int>(), e.maps, 32,
                         e.value("horizon_cue_runs")};
}

class FilingsTrainer final : public TaskTrainer {
 public:
  bool parallel_runs() const override { return true; }
  TrainedRun train(const ExperimentConfig& e, const nlohmann::json& resolved, const std::string& scheme, int seed,
                   Progress& progress) const override {
    const auto report = [&](int step, int steps, double loss, double acc) {
      progress.update(fmt::format("[train filings {} seed {}] step {}/{} loss {:.4f} acc {:.3f}", scheme, seed, step,
                                  steps, loss, acc));
    };
    const auto out =
        train_head_run(e, resolved, scheme, seed, filings_model_config(e, scheme), filings_windows(e, seed), report);
    return head_task_run(out, scheme, seed, "window");
  }
  std::vector<GradCheckRow> gradcheck(const std::string& scheme) const override {
    return gradcheck_head_every_position(scheme);
  }
};

class FilingsReader final : public TaskReader {
 public:
  nlohmann::json evaluate(const std::vector<std::string>& checkpoints, const ExperimentConfig& e,
                          bool progress) const override {
    nlohmann::json results = evaluate_filings(checkpoints, settings_of(e), progress);
    results["experiment"] = e.resolved;
    return results;
  }
  void check_checkpoint(const std::string& checkpoint) const override {
    load_checkpoint(checkpoint, "filings", HeadInput{false, kFilingsSymbols});
  }
  std::unique_ptr<DoctorModel> doctor_model(const std::string& checkpoint) const override {
    return doctor_head(load_checkpoint(checkpoint, "filings", HeadInput{false, kFilingsSymbols}));
  }
  // The head answers at every position (no query token), with a map at kappa = length / training length.
  CheckBatch check_batch(const std::string& checkpoint, const MapSpec& map, int length, uint64_t seed,
                         const std::string& mode) const override {
    return check_head_checkpoint(checkpoint, "filings", HeadInput{false, kFilingsSymbols}, map, length, seed, true,
                                 mode);
  }
};

class FilingsReporter final : public TaskReporter {
 public:
  // One held-out document read whole by every reader: <out_dir>/document.json (scripts/plot.py draws it).
  Analysis analyze(const std::vector<std::string>& checkpoints, const ExperimentConfig& e) const override {
    const nlohmann::json doc = filings_document_json(checkpoints, settings_of(e));
    const nlohmann::json lab = lab_filing_json(checkpoints, settings_of(e));
    Analysis a;
    a.files = {{"document.json", json_text(doc)}, {"lab_filing.json", json_text(lab)}};
    a.text = fmt::format(
        "wrote {}/document.json: document {} ({} tokens) read by {} readers; {}\n"
        "wrote {}/lab_filing.json: {}",
        e.out_dir, doc["document"]["id"].get<std::string>(), doc["document"]["words"].size(), doc["readers"].size(),
        doc["why"].get<std::string>(), e.out_dir, lab["why"].get<std::string>());
    return a;
  }
  std::vector<std::string> analysis_files() const override { return {"document.json", "lab_filing.json"}; }
  std::string compare(const nlohmann::json& results, const std::string& a, const std::string& b, int length,
                      const CompareSettings&) const override {
    if (length != 0) throw UsageError("--length does not apply to filings results (whole documents are read); drop it");
    return compare_filings_readers(results, a, b);
  }
  std::string table(const nlohmann::json& results) const override { return format_filings_table(results); }
  bool restate_intervals(nlohmann::json& results) const override {
    add_filings_intervals(results);
    return true;
  }
  std::string markdown(const nlohmann::json& results) const override { return format_filings_markdown(results); }
};

class FilingsTools final : public TaskTools {
 public:
  void add_tools(CLI::App& app) const override { cli::add_filings_tools(app); }
};

class FilingsTask final : public TaskOf<FilingsTrainer, FilingsReader, FilingsReporter, FilingsTools> {
 public:
  std::string name() const override { return "filings"; }
  std::string description() const override {
    return "which company was named last? the tournament's head on synthetic company filings";
  }
  // The tournament's head and recipe (its ALiBi slope too); 32-token windows; RoPE read with the maps.
  nlohmann::json defaults() const override {
    return {{"task", "filings"},
            {"alibi_slopes", {0.5}},
            {"maps", {"pi", "ntk", "yarn"}},
            {"batch_size", 64},
            {"steps", 1500}};
  }
  std::vector<std::string> leading_schemes() const override { return {"none", "sinusoidal", "rope", "alibi"}; }
  std::vector<KeySpec> keys() const override {
    return {
        {"corpus_seed", KeyType::Int, 1, "seed of the generated corpus (300 training, 100 held-out documents)", 0,
         kMaxSeed},
        {"corpus_version", KeyType::Int, kFilingsCorpusVersion,
         "the corpus generator's version: 1, the corpus of the first filings results; 2, calibrated to the published "
         "corpus statistics (tasks.md section 2)",
         1, kFilingsCorpusVersion},
        for_reading({"horizon_cue_runs", KeyType::String, "",
                     "the runs_dir of a cue experiment whose ALiBi heads the horizon table also reads on the held-out "
                     "documents "
                     "(empty: only the filings heads)"}),
    };
  }
  // whole documents are read, whatever their length
  std::vector<std::string> unread_keys() const override { return {"eval_lengths"}; }
  std::string why_not(const std::string& key) const override {
    return key == "visibility" ? "every position answers from the tokens before it: its heads read causally" : "";
  }
  // The cue runs the horizon table reads must be there before twelve heads are trained.
  void validate(const nlohmann::json& cfg) const override {
    const std::string dir = cfg.value("horizon_cue_runs", "");
    if (!dir.empty() && !std::filesystem::is_directory(dir))
      throw ConfigError(
          fmt::format("key 'horizon_cue_runs': {} is not a directory; train the tournament first "
                      "(make run) or set it to \"\"",
                      dir));
  }
  int n_heads(const ExperimentConfig&) const override { return 1; }
  int n_layers(const ExperimentConfig&) const override { return 1; }
};

}  // namespace

const Task& filings_task() {
  static const FilingsTask t;
  return t;
}

}  // namespace pe
