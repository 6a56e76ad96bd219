#include "harness/cli_options.h"

#include <fmt/format.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "core/errors.h"
#include "core/files.h"
#include "harness/config.h"
#include "harness/task.h"

namespace pe::cli {

nlohmann::json resolve_config(const std::string& experiment, const std::vector<std::string>& sets) {
  nlohmann::json cfg = experiment.empty() ? default_config(task_of({}, sets)) : load_experiment(experiment, sets);
  for (auto& s : sets) apply_override(cfg, s);
  complete_config(cfg);
  validate_config(cfg);
  // a key the file or a --set gives must be one the task reads
  std::vector<std::pair<std::string, std::string>> given;  // key, where
  if (!experiment.empty()) {
    const nlohmann::json file = read_experiment_file(experiment);
    for (auto& [k, v] : file.items()) given.push_back({k, experiment});
  }
  for (auto& s : sets) given.push_back({s.substr(0, s.find('=')), "--set"});
  const Task& task = find_task(cfg.at("task"));
  for (auto& [key, where] : given)
    if (key != "description" && !task.reads(key))
      throw ConfigError(fmt::format("{}: {}", where, not_for_task(task, key)));
  return cfg;
}

nlohmann::json Overrides::resolve(const std::string& experiment, const std::vector<std::string>& user_sets) const {
  std::vector<std::string> all = sets;
  all.insert(all.end(), user_sets.begin(), user_sets.end());
  return resolve_config(experiment, all);
}

std::string Overrides::format_number(double v) {
  // integers as integers (an Int key refuses "1e+06"); other numbers to the last digit
  if (v == std::floor(v) && std::fabs(v) < 9e15) return fmt::format("{}", (long long)v);
  return fmt::format("{}", v);
}

void add_run_options(CLI::App* sub, RunOptions& o) {
  sub->add_option("--threads", o.threads, "OpenMP threads (0: all cores); results do not depend on it")
      ->check(CLI::Range(0, 1024));
  sub->add_flag("--quiet,-q", o.quiet, "no progress line");
}

nlohmann::json read_results_file(const std::string& path) {
  nlohmann::json r;
  try {
    r = parse_json(read_file(path));  // core/files.h: a key twice and a number past a double refused too
  } catch (const nlohmann::json::exception& e) {
    throw DataError(fmt::format("{} is not valid JSON ({})", path, e.what()));
  }
  if (!r.is_object() || !r.contains("task") || !r.contains("rows"))
    throw DataError(fmt::format("{} is not a pe-bench results file (no task or rows)", path));
  // readings per length (cue, charlm) or per column of whole documents (filings: all, far)
  const bool by_columns = r.contains("columns") && !r.contains("lengths");
  const char* axis = by_columns ? "columns" : "lengths";
  bool axis_ok = r.contains(axis) && r[axis].is_array() && !r[axis].empty();
  if (axis_ok)
    for (auto& n : r[axis]) axis_ok = axis_ok && (by_columns ? n.is_string() : n.is_number_integer());
  if (!axis_ok || !r["rows"].is_array())
    throw DataError(fmt::format("{} is malformed: '{}' must be a non-empty list of {} and 'rows' a list", path, axis,
                                by_columns ? "names" : "integers"));
  if (!r["task"].is_string() || !task_exists(r["task"]))
    throw DataError(fmt::format("{} holds results of task {}, which this build does not know (known: {})", path,
                                r["task"].dump(), known_tasks()));
  return r;
}

void add_resume_option(CLI::App* sub, bool& resume) {
  sub->add_flag("--resume", resume,
                "continue a run stopped by SIGINT/SIGTERM (or killed after a periodic save) from the state it "
                "saved, <run dir>.state.json, when its config is this run's; keep a complete run directory whose "
                "config.json is this run's instead of training it again; train the rest from scratch. The result "
                "is byte-identical to an uninterrupted run");
}

void reject_unread(bool given, const std::string& option, const std::string& key, const std::string& task) {
  if (given && !find_task(task).reads(key))
    throw UsageError(
        fmt::format("{} does not apply to --task {} (its model does not read {}); drop it or choose "
                    "another task",
                    option, task, key));
}

namespace {
// What is wrong with `text` as the value of option `name` of CLI11 type `type` ("" when nothing this
// check owns: a value that is not a number at all is left to CLI11's own conversion error).
std::string value_problem(const std::string& name, const std::string& type, const std::string& text) {
  if (text.empty())
    return fmt::format("{} must not be empty: give a value, or leave the option out for its default", name);
  const auto is = [&](const char* kind) { return type.rfind(kind, 0) == 0; };
  const char* begin = text.c_str();
  char* end = nullptr;
  errno = 0;
  if (is("FLOAT")) {
    const double v = std::strtod(begin, &end);
    if (end == begin + text.size() && !std::isfinite(v))  // nan, inf, or an overflow to inf
      return fmt::format("{} {}: not a finite number (a double's range ends near 1.8e308)", name, text);
  } else if (is("UINT")) {
    if (text.find('-') != std::string::npos)
      return fmt::format("{} {}: negative; give a whole number >= 0", name, text);
    std::strtoull(begin, &end, 0);
    if (end == begin + text.size() && errno == ERANGE)
      return fmt::format("{} {}: out of range (above 2^64 - 1)", name, text);
  } else if (is("INT")) {
    std::strtoll(begin, &end, 0);
    if (end == begin + text.size() && errno == ERANGE)
      return fmt::format("{} {}: out of range for a whole number", name, text);
  }
  return "";
}

void add_value_checks(CLI::App& app) {
  for (CLI::Option* opt : app.get_options([](CLI::Option*) { return true; })) {
    if (opt->get_expected_max() == 0 || opt->get_type_size_max() == 0) continue;  // a flag takes no value
    if (opt->get_group().empty()) continue;  // a renamed spelling: its own error names the new one
    const std::string type = opt->get_type_name(), name = opt->get_name();
    // first, before the option's own checks (a Range would call "" or "nan" something else); thrown as
    // the harness's UsageError, so that the line is ours: "--decode must not be empty: ..."
    opt->transform(CLI::Validator(
        [type, name](std::string& v) {
          const std::string problem = value_problem(name, type, v);
          if (!problem.empty()) throw UsageError(problem);
          return std::string();
        },
        "", "pe-values"));
  }
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) add_value_checks(*sub);
}
}  // namespace

void check_option_values(CLI::App& root) {
  CLI::App* top = &root;
  while (top->get_parent()) top = top->get_parent();
  top->preparse_callback([top](std::size_t) { add_value_checks(*top); });
  const std::string rule =
      "Every option: an empty value is an error (leave the option out for its default) and a number must be finite; "
      "sizes that decide memory (sample --context, a census, a char LM's batch and length) are checked against this "
      "machine's memory before any work (exit 2).";
  if (top->get_footer().find(rule) == std::string::npos)
    top->footer(top->get_footer().empty() ? rule : top->get_footer() + "\n" + rule);
}

void add_renamed_option(CLI::App* sub, const std::string& old_name, const std::string& new_name) {
  sub->add_option_function<std::string>(old_name,
                                        [=](const std::string&) {
                                          throw UsageError(fmt::format("{} {} was renamed {}; write {}",
                                                                       sub->get_name(), old_name, new_name, new_name));
                                        })
      ->group("")
      ->allow_extra_args(false);
}

}  // namespace pe::cli
