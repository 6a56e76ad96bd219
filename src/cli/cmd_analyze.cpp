// pe-bench analyze: the geometry behind the results.
//   pe-bench analyze theory   everything in docs/analyses.md that needs no trained model
#include <fmt/format.h>

#include <chrono>

#include "cli/common.h"
#include "harness/checkpoint.h"
#include "core/files.h"
#include "theory/theory.h"
#include "core/errors.h"
#include "harness/config.h"
#include "tasks/cue/geometry.h"

namespace pe::cli {

void register_analyze(CLI::App& app) {
  struct Opts {
    std::string runs, out = "results/geometry.json", lengths = "64,128,256";
    std::vector<std::string> sets;
  };
  auto o = std::make_shared<Opts>();
  auto* sub = app.add_subcommand(
      "analyze",
      "Read trained heads (--runs-dir DIR): RoPE offset curves, the sinusoidal relativity defect and its offset-only "
      "projection, ALiBi widths and horizons; or `analyze theory` for the analyses that need no model");
  sub->require_subcommand(0, 1);
  sub->add_option("--runs-dir", o->runs, "analyse every checkpoint.json below this directory, e.g. results/tournament/runs/cue");
  sub->add_option("--out", o->out, "geometry JSON to write (atomically)")->capture_default_str();
  sub->add_option("--lengths", o->lengths, "test lengths for the accuracies")->capture_default_str();
  sub->add_option("--set", o->sets, "test settings: --set test_sequences=N, --set test_seed=N");
  sub->callback([o, sub] {
    if (sub->got_subcommand("theory")) return;
    if (o->runs.empty()) throw UsageError("analyze: give --runs-dir DIR (trained heads) or the subcommand `theory`");
    const auto cfg = resolve_config("", o->sets);
    const EvalSettings s{parse_length_list(o->lengths, "--lengths"), cfg["test_sequences"], cfg["test_seed"], {}};
    const nlohmann::json g = analyze_checkpoints(find_checkpoints(o->runs, "cue"), s);
    write_json_atomic(o->out, g);
    fmt::print("{}", format_geometry(g));
    fmt::print("written to {}\n", o->out);
  });
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
