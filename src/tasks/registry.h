// The tasks' registration: one call puts every task of src/tasks/ into the harness's table
// (harness/task_registry.h), in the order the CLI lists them (the first is the default task).
#pragma once

namespace pe {

// Registers every task; calling it again changes nothing. Every program's main calls it first
// (src/main.cpp, tests/main.cpp, bench/tasks.cpp).
void register_tasks();

}  // namespace pe
