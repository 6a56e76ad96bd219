// pe-bench gradcheck: every hand-written gradient against central differences, in double.
#include <algorithm>

#include <fmt/format.h>

#include "cli/common.h"
#include "core/errors.h"
#include "harness/task.h"
#include "models/coordinate_cases.h"
#include "models/gradcheck.h"
#include "schemes/scheme.h"

namespace pe::cli {

struct GradCheckFailed : Error {
  using Error::Error;
};

void register_gradcheck(CLI::App& app) {
  auto scheme = std::make_shared<std::string>("all");
  auto* sub =
      app.add_subcommand("gradcheck",
                         "Check every hand-written gradient against central differences in double: for every scheme, "
                         "the multi-head attention layer and every task's model; prints the worst relative error per "
                         "tensor; non-zero exit on failure");
  sub->add_option("--scheme", *scheme, "one scheme, or all")->capture_default_str();
  sub->callback([scheme] {
    std::vector<std::string> names;
    if (*scheme == "all")
      for (auto& s : scheme_list()) names.push_back(s.name);
    else if (scheme_exists(*scheme))
      names.push_back(*scheme);
    else {
      SchemeConfig c;
      c.name = *scheme;
      make_scheme<double>(c);  // throws the unknown-scheme error
    }
    fmt::print("{:<40} {:<10} {:>6} {:>12} {:>12}  {}\n", "model/scheme", "tensor", "n", "worst rel", "worst abs", "");
    int failed = 0;
    // the batch modes (models/coordinate_cases.h) and the rows checked under each (GradCheckRow::mode)
    std::vector<std::string> modes;
    for (const CoordinateCase& c : coordinate_cases()) modes.push_back(c.mode);
    std::vector<double> mode_worst(modes.size(), 0.0), mode_abs(modes.size(), 0.0);
    std::vector<int> mode_rows(modes.size(), 0);
    for (auto& n : names) {
      // the attention layer, then every task's model
      auto rows = gradcheck_attention(n);
      for (auto* task : task_list()) {
        auto more = task->trainer().gradcheck(n);
        rows.insert(rows.end(), more.begin(), more.end());
      }
      for (auto& r : rows) {
        fmt::print("{:<40} {:<10} {:>6} {:>12.2e} {:>12.2e}  {}\n", r.what, r.tensor, r.count, r.max_rel, r.max_abs,
                   r.ok ? "ok" : "FAIL");
        failed += !r.ok;
        if (r.mode.empty()) continue;
        // a mode of a task's own (the cue head's query-row) after the batch modes
        const size_t m = std::find(modes.begin(), modes.end(), r.mode) - modes.begin();
        if (m == modes.size())
          modes.push_back(r.mode), mode_worst.push_back(0), mode_abs.push_back(0), mode_rows.push_back(0);
        mode_worst[m] = std::max(mode_worst[m], r.max_rel), mode_abs[m] = std::max(mode_abs[m], r.max_abs),
        ++mode_rows[m];
      }
    }
    fmt::print("batch modes covered (tensors checked, worst relative error, worst absolute error):");
    for (size_t m = 0; m < modes.size(); ++m)
      fmt::print("{} {} ({}, {:.1e}, {:.1e})", m ? "," : "", modes[m], mode_rows[m], mode_worst[m], mode_abs[m]);
    fmt::print("\n");
    fmt::print("tolerance: |a-n| <= {:.0e} or relative error <= {:.0e}\n", kGradAbsTol, kGradRelTol);
    if (failed) throw GradCheckFailed(fmt::format("{} tensors failed the gradient check", failed));
  });
}

}  // namespace pe::cli
