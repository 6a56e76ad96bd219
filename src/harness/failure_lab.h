// The failure lab (`pe-bench failures`, docs/failures.md): each fault of harness/faults.h applied to the
// committed models of its task, its damage measured by length against the correct model (the difference
// per seed, a Student t interval over the seeds) and the doctor run on the faulty model and the correct one.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace pe {

struct FailureSettings {
  std::string results = "results";  // the results directory: a fault reads <results>/<its runs>/runs/<task>/
                                    // <scheme>/seed<k>/checkpoint.json
  bool quick = false;               // each fault's quick folder and its task's first three lengths
  std::vector<int> lengths;         // the lengths every fault is read at (empty: its task's, DamageProbe::lengths)
  int seeds = 3;                    // seeds 0 .. seeds-1 of every model
  int items = 0;                    // test items per length (0: its task's default)
  uint64_t test_seed = 777;         // the probe's test stream
  uint64_t doctor_seed = 0;         // the doctor's random sequences
  std::vector<std::string> only;    // fault names (empty: every fault)
  bool twin = true;                 // the doctor's twin row too (python3-torch; n/a without it)
};

// Runs the lab; progress(line) after each model. A scheme without checkpoints is listed as skipped, never read
// as another; when no fault finds any model, UsageError naming the results directory.
nlohmann::json run_failures(const FailureSettings& s, const std::function<void(const std::string&)>& progress = {});
// The damage table and the fault x invariant matrix, as markdown.
std::string failures_markdown(const nlohmann::json& results);

}  // namespace pe
