// Shared pieces of the subcommands: the registry entry type, progress lines, --set handling.
#pragma once
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace pe::cli {

// Each subcommand file defines one of these; main.cpp lists them.
using Register = void (*)(CLI::App& app);

void register_train(CLI::App& app);
void register_eval(CLI::App& app);
void register_run(CLI::App& app);
void register_gradcheck(CLI::App& app);
void register_schemes(CLI::App& app);
void register_analyze(CLI::App& app);
void register_census(CLI::App& app);

// Loads the experiment file (or the defaults when empty) and applies --set overrides last.
nlohmann::json resolve_config(const std::string& experiment, const std::vector<std::string>& sets);

// Prints a progress line to stderr, overwritten in place, only when stderr is a terminal.
class Progress {
 public:
  explicit Progress(bool quiet);
  void update(const std::string& line);
  void done();  // clears the line
 private:
  bool on_ = false;
};

}  // namespace pe::cli
