// pe-bench: positional encodings in attention, trained and read past their training length.
// main() is a registry of subcommands; library errors become one line and an exit code.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>

#include "cli/common.h"
#include "core/allocator.h"
#include "core/build_info.h"
#include "core/eigen_blocking.h"
#include "core/errors.h"
#include "core/files.h"
#include "core/gemm.h"
#include "core/interrupt.h"
#include "harness/task.h"
#include "tasks/registry.h"

// The default build targets x86-64-v3; on an older CPU say so instead of dying on an illegal instruction.
bool cpu_can_run_this_build() {
#if defined(__x86_64__) && defined(__AVX2__) && defined(__FMA__)
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
  return true;
#endif
}

int main(int argc, char** argv) {
  if (!cpu_can_run_this_build()) {
    fmt::print(stderr,
               "pe-bench: error: this build targets {} (AVX2 and FMA), which this CPU lacks; rebuild for "
               "it with `make NATIVE=ON`\n",
               pe::build_info().target);
    return 2;
  }
  pe::keep_freed_memory();
  pe::fix_eigen_blocking();
  pe::register_tasks();  // the tasks into the harness's table, before any option or key names one
  CLI::App app{
      "pe-bench: train tiny attention models with each positional scheme and read them past their "
      "training length.\nExample: pe-bench run experiments/tournament.json"};
  app.require_subcommand(1);
  const pe::BuildInfo& build = pe::build_info();
  app.set_version_flag(
      "--version",
      fmt::format("pe-bench {} ({}, target {}, numerics {}; matrix kernel on this CPU: {})", build.commit,
                  build.compiler, build.target, pe::kNumericsVersion, pe::gemm_kernel_name(pe::gemm_kernel())),
      "the commit, compiler, instruction-set target and numerics version of this build, and the "
      "matrix-product kernel this CPU runs (avx512 or avx2: the same bits)");
  // CLI11's own parse errors, also on one line.
  app.failure_message([](const CLI::App* a, const CLI::Error& e) {
    return fmt::format("pe-bench: error: {} (see pe-bench {}--help)\n", e.what(),
                       a && a->get_parent() ? a->get_name() + " " : std::string());
  });
  const pe::cli::Register commands[] = {
      pe::cli::register_train,   pe::cli::register_eval,    pe::cli::register_run,      pe::cli::register_gradcheck,
      pe::cli::register_schemes, pe::cli::register_analyze, pe::cli::register_census,   pe::cli::register_table,
      pe::cli::register_compare, pe::cli::register_diff,    pe::cli::register_lab,      pe::cli::register_export,
      pe::cli::register_import,  pe::cli::register_doctor,  pe::cli::register_failures, pe::cli::register_exercise};
  for (auto reg : commands) reg(app);
  for (auto* task : pe::task_list()) task->tools().add_tools(app);  // each task's own subcommands
  // SIGINT/SIGTERM remove the temporary files in flight; during training they stop it at a step boundary
  pe::install_signal_handlers();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);  // --help and --version print and succeed; every usage error is exit 2
    return rc == 0 ? 0 : 2;
  } catch (const pe::Interrupted& e) {
    fmt::print(stderr, "pe-bench: {}\n", e.what());
    return e.exit_code();
  } catch (const pe::Error& e) {
    fmt::print(stderr, "pe-bench: error: {}\n", e.what());
    return e.exit_code();
  } catch (const std::exception& e) {
    fmt::print(stderr, "pe-bench: internal error: {}\n", e.what());
    return 70;
  }
  // a table lost to a full disk or a closed pipe is a failure, not success
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
    fmt::print(stderr, "pe-bench: error: writing to standard output failed (disk full or pipe closed)\n");
    return 5;
  }
  return 0;
}
