// The subcommands main.cpp registers (the tasks add their own tools: TaskTools::add_tools); the option
// helpers they share are harness/cli_options.h.
#pragma once
#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/progress.h"
#include "harness/cli_options.h"

namespace pe::cli {

// Each subcommand file defines one of these; main.cpp lists them.
using Register = void (*)(CLI::App& app);

void register_train(CLI::App& app);
void register_eval(CLI::App& app);
void register_run(CLI::App& app);
void register_gradcheck(CLI::App& app);
void register_schemes(CLI::App& app);
void register_analyze(CLI::App& app);
void register_analyze_probe(CLI::App* analyze);  // its subcommand probe
void register_census(CLI::App& app);
void register_table(CLI::App& app);
void register_compare(CLI::App& app);
void register_diff(CLI::App& app);
void register_lab(CLI::App& app);
void register_export(CLI::App& app);
void register_import(CLI::App& app);
void register_doctor(CLI::App& app);
void register_failures(CLI::App& app);
void register_exercise(CLI::App& app);

}  // namespace pe::cli
