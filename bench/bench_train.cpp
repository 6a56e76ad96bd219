// Benchmarks: training throughput of one cue head per scheme, evaluation, the whole tournament and
// the whole filings study.
// Run: make bench  (or build/pe_benchmarks --benchmark_filter=...)
#include <benchmark/benchmark.h>

#include <chrono>
#include <filesystem>

#include "core/parallel.h"
#include "harness/config.h"
#include "harness/experiment.h"
#include "schemes/scheme.h"
#include "tasks/cue/evaluation.h"
#include "tasks/cue/training.h"
#include "tasks/filings/corpus.h"

namespace {

// 200 training steps (batch 256, length 32) of one head, on one thread: reports steps/s. One
// benchmark per registered scheme that fits the one-layer cue head.
void BM_TrainSteps(benchmark::State& state, const std::string& scheme) {
  pe::set_threads(1);
  nlohmann::json cfg = pe::default_config();
  cfg["steps"] = 200;
  cfg["schemes"] = {scheme};
  pe::complete_config(cfg);
  const auto e = pe::ExperimentConfig::from_json(cfg);
  state.SetLabel(scheme);
  for (auto _ : state) {
    auto m = pe::train_cue_model(e, scheme, 0);
    benchmark::DoNotOptimize(m.params().data());
  }
  state.counters["steps/s"] = benchmark::Counter(double(e.steps), benchmark::Counter::kIsIterationInvariantRate);
}
const bool kRegistered = [] {
  for (auto& s : pe::scheme_list())
    if (s.min_layers == 1)
      benchmark::RegisterBenchmark(("BM_TrainSteps/" + s.name).c_str(), BM_TrainSteps, s.name)
          ->Unit(benchmark::kMillisecond);
  return true;
}();

// The whole tournament (every registered scheme x 3 seeds x 1,500 steps, evaluation at 32..256), on all cores.
void BM_Tournament(benchmark::State& state) {
  pe::set_threads(0);
  nlohmann::json cfg = pe::load_experiment("experiments/tournament.json");
  const std::string dir = (std::filesystem::temp_directory_path() / "pe-bench-bench").string();
  cfg["out_dir"] = dir;
  cfg["runs_dir"] = dir + "/runs";
  cfg["reference"] = "";
  long long steps = 0;
  for (auto _ : state) {
    auto out = pe::run_experiment(pe::find_task("cue"), cfg, pe::RunControl{true, 0, false});
    steps = out.total_steps;
    state.counters["train_s"] = out.train_seconds;
    state.counters["eval_s"] = out.eval_seconds;
  }
  state.counters["steps/s"] = benchmark::Counter(double(steps), benchmark::Counter::kIsIterationInvariantRate);
  std::filesystem::remove_all(dir);
}
BENCHMARK(BM_Tournament)->Unit(benchmark::kSecond)->Iterations(1)->UseRealTime();

// The filings study (experiments/filings.json: 4 schemes x 3 seeds on 32-token windows, every
// held-out position read in one pass with rope also under pi, ntk and yarn), on all cores; without
// the cue heads' horizon reading. gen_s: generating the corpus once.
void BM_Filings(benchmark::State& state) {
  pe::set_threads(0);
  nlohmann::json cfg = pe::load_experiment("experiments/filings.json");
  const std::string dir = (std::filesystem::temp_directory_path() / "pe-bench-bench-filings").string();
  cfg["out_dir"] = dir;
  cfg["runs_dir"] = dir + "/runs";
  cfg["reference"] = "";
  cfg["horizon_cue_runs"] = "";
  const auto g0 = std::chrono::steady_clock::now();
  benchmark::DoNotOptimize(pe::generate_filings(1).train.size());
  state.counters["gen_s"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - g0).count();
  for (auto _ : state) {
    auto out = pe::run_experiment(pe::find_task("filings"), cfg, pe::RunControl{true, 0, false});
    state.counters["train_s"] = out.train_seconds;
    state.counters["eval_s"] = out.eval_seconds;
  }
  std::filesystem::remove_all(dir);
}
BENCHMARK(BM_Filings)->Unit(benchmark::kSecond)->Iterations(1)->UseRealTime();

}  // namespace
