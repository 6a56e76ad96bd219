// The benchmarks' main is Google Benchmark's (benchmark_main), so the tasks are registered here, as
// the program starts (pe-bench's main calls register_tasks itself): the benchmarks read configs
// (default_config, run_experiment), which look tasks up. This file is linked as an object, never
// dropped, and no other static initialiser of the benchmarks asks for a task.
#include "tasks/registry.h"

namespace {

const bool kTasksRegistered = (pe::register_tasks(), true);

}  // namespace
