// pe-bench gradcheck: every hand-written gradient against central differences, in double.
#include <fmt/format.h>

#include "cli/common.h"
#include "core/errors.h"
#include "harness/task.h"
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
      }
    }
    fmt::print("tolerance: |a-n| <= {:.0e} or relative error <= {:.0e}\n", kGradAbsTol, kGradRelTol);
    if (failed) throw GradCheckFailed(fmt::format("{} tensors failed the gradient check", failed));
  });
}

}  // namespace pe::cli
