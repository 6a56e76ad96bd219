// The table of tasks the harness reads (task_list, find_task, ... in harness/task.h) is filled from
// above: the tasks layer registers each of its tasks (tasks/registry.h, register_tasks), and every
// program's main calls that before anything asks for a task. The harness names no task.
#pragma once
#include "harness/task.h"

namespace pe {

// Adds `task` at the end of the table (the first registered is the default task). The same task again
// is ignored; another task of a name already taken is a logic error. Call before threads start.
void register_task(const Task& task);

}  // namespace pe
