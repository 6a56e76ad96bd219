#pragma once
#include <CLI/CLI.hpp>

namespace pe::cli {
// finetune and sample (tasks/charlm/tools.cpp)
void add_charlm_tools(CLI::App& app);
}  // namespace pe::cli
