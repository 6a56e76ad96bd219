// pe-bench diff: compare two output trees (or files) value by value, e.g. a fresh run against the
// committed results. Exit 0 when every number agrees, 6 when something differs.
#include <fmt/format.h>

#include "cli/common.h"
#include "core/errors.h"
#include "core/tree_diff.h"

namespace pe::cli {

void register_diff(CLI::App& app) {
  struct Opts {
    std::string a, b;
    int max_shown = 20;
  };
  auto o = std::make_shared<Opts>();
  auto* sub = app.add_subcommand(
      "diff", "Compare two results directories (or files) value by value; exit 0 if the same, 6 if not");
  sub->footer(
      "JSON is compared by value, JSON Lines line by line, other files byte for byte; each differing file is named "
      "with its first differing value. The `build` provenance (compiler, target, flags, numerics version) is reported "
      "as a note, not "
      "a difference.\nExample: pe-bench diff /tmp/mine/results/tournament results/tournament");
  sub->add_option("a", o->a, "first directory or file")->required();
  sub->add_option("b", o->b, "second directory or file")->required();
  sub->add_option("--max-shown", o->max_shown, "show at most this many differing files")->capture_default_str();
  sub->callback([o] {
    const TreeDiff d = diff_trees(o->a, o->b);
    for (size_t i = 0; i < d.differences.size() && int(i) < o->max_shown; ++i) fmt::print("{}\n", d.differences[i]);
    if (int(d.differences.size()) > o->max_shown)
      fmt::print("... and {} more differing files\n", d.differences.size() - o->max_shown);
    if (!d.notes.empty())
      fmt::print("note: {}{}\n", d.notes.front(),
                 d.notes.size() > 1 ? fmt::format(" (and in {} more files)", d.notes.size() - 1) : "");
    if (!d.same()) {
      long one_side = 0;  // "<file>: only in <tree>"
      for (auto& line : d.differences) one_side += line.find(": only in ") != std::string::npos;
      throw OutputsDiffer(fmt::format("{} of {} files in both trees differ between {} and {}{}",
                                      long(d.differences.size()) - one_side, d.files_compared, o->a, o->b,
                                      one_side ? fmt::format("; {} more only in one of them", one_side) : ""));
    }
    fmt::print("same: {} files, every value equal\n", d.files_compared);
  });
}

}  // namespace pe::cli
