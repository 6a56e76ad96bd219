#include "harness/experiment.h"

#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <exception>
#include <optional>

#include "core/errors.h"
#include "core/files.h"
#include "core/interrupt.h"
#include "core/parallel.h"
#include "core/progress.h"
#include "harness/config.h"
#include "harness/reference.h"

namespace pe {

using nlohmann::json;

namespace {
double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}
// The first error that is not an interruption; else, when runs were interrupted, one line for all.
void rethrow_job_errors(const std::vector<std::exception_ptr>& errors) {
  int saved = 0, unstarted = 0;
  std::string first;
  for (auto& err : errors) {
    if (!err) continue;
    try {
      std::rethrow_exception(err);
    } catch (const Interrupted& i) {
      if (!saved && !unstarted) first = i.what();
      (i.saved_state ? saved : unstarted) += 1;
    } catch (...) {
      throw;
    }
  }
  if (saved + unstarted == 1) throw Interrupted(first, saved > 0);
  if (saved + unstarted > 1)
    throw Interrupted(
        fmt::format("interrupted by {}: {} of {} runs complete, {} stopped with their state saved "
                    "(<run dir>.state.json), {} not started; run the same command with --resume to "
                    "continue",
                    signal_name(stop_signal()), errors.size() - saved - unstarted, errors.size(), saved, unstarted),
        saved > 0);
}

}  // namespace

ExperimentReport run_experiment(const Task& task, const json& resolved, const RunControl& control) {
  ExperimentConfig e = ExperimentConfig::from_json(resolved);
  e.resume = control.resume;
  set_threads(control.threads);
  const json reference = load_reference(e.reference);  // published figures, optional
  struct Job {
    std::string scheme;
    int seed;
  };
  std::vector<Job> jobs;
  for (auto& s : e.schemes)
    for (int seed : e.seeds) jobs.push_back({s, seed});
  // runs[i]: job i's run, then its follow-ups
  std::vector<std::vector<TrainedRun>> runs(jobs.size());
  std::vector<std::exception_ptr> errors(jobs.size());
  Progress progress(control.quiet);
  // SIGINT/SIGTERM while training: every run stops at a step boundary with its state saved (outside
  // training, during evaluation, they end the process as usual)
  std::optional<StopScope> stoppable(std::in_place);
  const auto t0 = std::chrono::steady_clock::now();
  auto train_job = [&](size_t i, Progress& p) {
    runs[i].push_back(task.trainer().train(e, resolved, jobs[i].scheme, jobs[i].seed, p));
    if (!task.trainer().parallel_runs()) progress.note(runs[i].back().summary);
    for (auto& f : task.trainer().follow_ups(e, resolved, runs[i].front(), p)) {
      if (!task.trainer().parallel_runs()) progress.note(f.summary);
      runs[i].push_back(std::move(f));
    }
  };
  if (task.trainer().parallel_runs()) {
    // one run per thread; the runs' own step-by-step progress would interleave, so it is silent
    Progress silent(true);
    std::atomic<int> done{0};
#pragma omp parallel for schedule(dynamic, 1)
    for (size_t i = 0; i < jobs.size(); ++i) {
      try {
        train_job(i, silent);
      } catch (...) {
        errors[i] = std::current_exception();
      }
      progress.update(fmt::format("[{}] trained {}/{} runs (last: {} seed {})", e.name, ++done, jobs.size(),
                                  jobs[i].scheme, jobs[i].seed));
    }
    rethrow_job_errors(errors);
  } else {
    for (size_t i = 0; i < jobs.size(); ++i) train_job(i, progress);
  }
  progress.done();
  stoppable.reset();
  if (const int sig = stop_signal())  // it came between runs: every run is complete
    throw Interrupted(fmt::format("interrupted by {} after the last run finished training; every run is complete: "
                                  "run the same command with --resume to evaluate",
                                  signal_name(sig)),
                      false);
  ExperimentReport out;
  out.train_seconds = seconds_since(t0);
  std::vector<std::string> checkpoints;
  json training = json::array();
  for (auto& job : runs)
    for (auto& r : job) {
      checkpoints.push_back(r.checkpoint);
      training.push_back(r.record);
      out.total_steps += r.trained();
      ++out.runs;
      out.kept += r.kept;
      out.resumed += r.resumed_at > 0;
    }

  std::string resume_line;
  if (out.kept || out.resumed)
    resume_line = fmt::format(
        "--resume: kept {} complete run{}, continued {} from a saved state, trained {} from "
        "the start\n",
        out.kept, out.kept == 1 ? "" : "s", out.resumed, out.runs - out.kept - out.resumed);
  if (control.train_only) {
    out.text = resume_line + fmt::format("{} runs ({} training steps) in {:.1f} s; not evaluated (--train-only)\n",
                                         out.runs, out.total_steps, out.train_seconds);
    return out;
  }
  const auto t1 = std::chrono::steady_clock::now();
  out.results = task.reader().evaluate(checkpoints, e, !control.quiet);
  out.results["training"] = training;
  if (!reference.is_null()) out.results["reference"] = reference;
  out.eval_seconds = seconds_since(t1);
  out.text = task.reporter().table(out.results);
  // the output set, computed whole before any of it is written, then written as one unit (an
  // earlier run's analyses that this run does not make are removed with it)
  const TaskReporter::Analysis analysis = task.reporter().analyze(checkpoints, e);
  std::vector<std::pair<std::string, std::string>> files = {{"results.json", json_text(out.results)},
                                                            {"table.md", task.reporter().markdown(out.results)}};
  files.insert(files.end(), analysis.files.begin(), analysis.files.end());
  write_file_set(e.out_dir, files, task.reporter().analysis_files());
  if (!analysis.text.empty()) out.text += "\n" + analysis.text + "\n";
  out.text += resume_line + fmt::format("{} runs ({} training steps) in {:.1f} s; evaluation {:.1f} s\n", out.runs,
                                        out.total_steps, out.train_seconds, out.eval_seconds);
  return out;
}

}  // namespace pe
