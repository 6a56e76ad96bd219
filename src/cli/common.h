// Shared pieces of the subcommands: the registry entry type, progress lines, --set handling.
#pragma once
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/progress.h"

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
void register_finetune(CLI::App& app);
void register_sample(CLI::App& app);
void register_table(CLI::App& app);

// Loads the experiment file (or the defaults when empty) and applies --set overrides last.
nlohmann::json resolve_config(const std::string& experiment, const std::vector<std::string>& sets);

using pe::Progress;  // core/progress.h

}  // namespace pe::cli
