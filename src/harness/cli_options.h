// The command-line pieces every subcommand shares, the core ones (src/cli/) and the tools a task adds
// (TaskTools::add_tools): experiment resolution with --set, options that set keys, --threads/--quiet,
// --resume, a results file, renamed options.
#pragma once
#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/progress.h"

namespace pe::cli {

// Loads the experiment file (or the defaults when empty) and applies --set overrides last.
nlohmann::json resolve_config(const std::string& experiment, const std::vector<std::string>& sets);

// Experiment keys set by a subcommand's own options, applied before the user's --set (which wins).
// An option left unset (an empty string, or a number at or below its `unset` value) adds nothing.
struct Overrides {
  std::vector<std::string> sets;
  Overrides& add(const std::string& key, const std::string& value) {
    if (!value.empty()) sets.push_back(key + "=" + value);
    return *this;
  }
  // An option the user gave sets its key (and meets the key's domain like any --set); one not
  // given leaves the experiment's value.
  template <class T>
  Overrides& add(const std::string& key, const std::optional<T>& value) {
    if (value) sets.push_back(key + "=" + format_number(double(*value)));
    return *this;
  }
  // A text option the user gave, even empty (the key's domain then refuses "" by name rather than
  // the default standing in silently).
  Overrides& add(const std::string& key, const std::optional<std::string>& value) {
    if (value) sets.push_back(key + "=" + *value);
    return *this;
  }
  // resolve_config(experiment, these, then `user_sets`)
  nlohmann::json resolve(const std::string& experiment, const std::vector<std::string>& user_sets) const;

 private:
  static std::string format_number(double v);
};

using pe::Progress;  // core/progress.h

// The options every long-running subcommand shares (train, eval, run, finetune), one name each:
// --threads N and --quiet/-q.
struct RunOptions {
  int threads = 0;
  bool quiet = false;
};
void add_run_options(CLI::App* sub, RunOptions& o);
// A results.json with a known task, lengths and rows (DataError naming the file otherwise).
nlohmann::json read_results_file(const std::string& path);

// --resume, with one meaning for train, finetune and run.
void add_resume_option(CLI::App* sub, bool& resume);

// An option given for a task that does not read its key: a UsageError naming the option and the task.
void reject_unread(bool given, const std::string& option, const std::string& key, const std::string& task);

// The rules every option value meets, whichever subcommand declares it (core or a task's tool), checked
// when the value is parsed, before the option's own checks, as a UsageError (exit 2) naming it:
//   - an empty value is refused ("--decode must not be empty": `--decode ''` is not "not given"; leave
//     the option out for its default);
//   - a number option (FLOAT) refuses nan, inf and values past double range (`1e400`);
//   - an integer option refuses values past its type's range, and an unsigned one a minus sign (`-1`
//     would otherwise wrap to 2^64 - 1).
// Installed on the root app and applied to every subcommand's options when parsing starts, so one call
// covers the subcommands registered after it too; each register function calls it (idempotent). The
// rules are stated in the footer of `pe-bench --help`.
void check_option_values(CLI::App& root);

// An option renamed: the old spelling, still accepted by the parser, fails with a UsageError naming the
// new one (hidden from --help).
void add_renamed_option(CLI::App* sub, const std::string& old_name, const std::string& new_name);

}  // namespace pe::cli
