// pe-bench analyze: the geometry behind the results.
//   pe-bench analyze theory   everything in analysis.md that needs no trained model
#include <fmt/format.h>

#include <chrono>

#include "cli/common.h"
#include "core/files.h"
#include "theory/theory.h"

namespace pe::cli {

void register_analyze(CLI::App& app) {
  auto* sub = app.add_subcommand("analyze", "Compute the geometry behind the results (see `analyze theory --help`)");
  sub->require_subcommand(1);
  auto out = std::make_shared<std::string>("results/theory.json");
  auto* th = sub->add_subcommand(
      "theory",
      "The analyses that need no trained model (exact baselines, the sinusoidal kernel and log ruler, window "
      "conditioning in 700-bit arithmetic, relativity defect, T5 buckets, ALiBi bound, RoPE identities and decay, "
      "the wavelength census, the interpolation bound, finite precision); writes JSON and prints tables");
  th->add_option("--out", *out, "JSON file to write (atomically)")->capture_default_str();
  th->callback([out] {
    const auto t0 = std::chrono::steady_clock::now();
    const nlohmann::json all = theory::compute_all();
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    write_json_atomic(*out, all);
    fmt::print("{}", theory::format_tables(all));
    fmt::print("computed in {:.1f} s; written to {}\n", secs, *out);
  });
}

}  // namespace pe::cli
