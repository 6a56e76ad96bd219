#pragma once
#include <CLI/CLI.hpp>

namespace pe::cli {
// corpus filings (tasks/filings/tools.cpp)
void add_filings_tools(CLI::App& app);
}  // namespace pe::cli
