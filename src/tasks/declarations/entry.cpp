// The declarations probe as a registry entry (harness/probe_task.h): its sequences (tasks/declarations/sequences.h) on
// the shared probe task.
#include "tasks/declarations/sequences.h"

namespace pe {

const Task& declarations_task() {
  static const std::unique_ptr<Task> t = make_probe_task(declarations_kind());
  return *t;
}

}  // namespace pe
