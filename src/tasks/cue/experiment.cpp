#include "tasks/cue/experiment.h"

#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <exception>

#include "core/errors.h"
#include "core/files.h"
#include "core/parallel.h"
#include "core/progress.h"
#include "harness/config.h"
#include "harness/reference.h"
#include "tasks/cue/evaluation.h"
#include "tasks/cue/geometry.h"
#include "tasks/cue/training.h"

namespace pe {

using nlohmann::json;

ExperimentOutcome run_experiment(const json& resolved, bool quiet, int threads) {
  const ExperimentConfig e = ExperimentConfig::from_json(resolved);
  set_threads(threads);
  const json reference = load_reference(e.reference);  // published figures, optional
  struct Job {
    std::string scheme;
    int seed;
  };
  std::vector<Job> jobs;
  for (auto& s : e.schemes)
    for (int seed : e.seeds) jobs.push_back({s, seed});
  std::vector<std::string> checkpoints(jobs.size());
  std::vector<std::exception_ptr> errors(jobs.size());
  Progress progress(quiet);
  std::atomic<int> done{0};
  const auto t0 = std::chrono::steady_clock::now();
#pragma omp parallel for schedule(dynamic, 1)
  for (size_t i = 0; i < jobs.size(); ++i) {
    try {
      checkpoints[i] = train_cue(e, resolved, jobs[i].scheme, jobs[i].seed).checkpoint;
    } catch (...) {
      errors[i] = std::current_exception();
    }
    const int d = ++done;
    progress.update(fmt::format("[{}] trained {}/{} runs (last: {} seed {})", e.name, d, jobs.size(), jobs[i].scheme,
                                jobs[i].seed));
  }
  for (auto& err : errors)
    if (err) std::rethrow_exception(err);
  ExperimentOutcome out;
  out.train_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  out.runs = int(jobs.size());
  out.total_steps = (long long)jobs.size() * e.steps;
  progress.done();
  const auto t1 = std::chrono::steady_clock::now();
  const EvalSettings settings{e.eval_lengths, e.test_size, e.test_seed, e.rescale};
  out.results = results_json(evaluate_checkpoints(checkpoints, settings, !quiet), settings);
  out.results["experiment"] = resolved;
  out.eval_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
  out.table = format_results_table(out.results);
  out.markdown = format_results_markdown(out.results, reference);
  write_json_atomic(e.out_dir + "/results.json", out.results);
  write_file_atomic(e.out_dir + "/table.md", out.markdown);
  if (e.analyze) {
    std::vector<int> past;
    for (int n : e.eval_lengths)
      if (n > e.train_length) past.push_back(n);
    const json g = analyze_checkpoints(checkpoints, EvalSettings{past, e.test_size, e.test_seed, {}});
    write_json_atomic(e.out_dir + "/geometry.json", g);
    out.geometry = format_geometry(g);
  }
  return out;
}

}  // namespace pe
