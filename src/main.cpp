// pe-bench: positional encodings in attention, trained and read past their training length.
// main() is a registry of subcommands; library errors become one line and an exit code.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>

#include "cli/common.h"
#include "core/allocator.h"
#include "core/errors.h"

int main(int argc, char** argv) {
  pe::keep_freed_memory();
  CLI::App app{"pe-bench: train tiny attention models with each positional scheme and read them past their "
               "training length.\nExample: pe-bench run experiments/tournament.json"};
  app.require_subcommand(1);
  // CLI11's own parse errors, also on one line.
  app.failure_message([](const CLI::App* a, const CLI::Error& e) {
    return fmt::format("pe-bench: error: {} (see pe-bench {}--help)\n", e.what(),
                       a && a->get_parent() ? a->get_name() + " " : std::string());
  });
  const pe::cli::Register commands[] = {pe::cli::register_train, pe::cli::register_eval, pe::cli::register_run,
                                        pe::cli::register_gradcheck, pe::cli::register_schemes,
                                        pe::cli::register_analyze, pe::cli::register_census,
                                        pe::cli::register_finetune, pe::cli::register_sample,
                                        pe::cli::register_table};
  for (auto reg : commands) reg(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const pe::Error& e) {
    fmt::print(stderr, "pe-bench: error: {}\n", e.what());
    return e.exit_code();
  } catch (const std::exception& e) {
    fmt::print(stderr, "pe-bench: internal error: {}\n", e.what());
    return 70;
  }
  return 0;
}
