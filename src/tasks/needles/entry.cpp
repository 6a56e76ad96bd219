// The multi-needle probe as a registry entry (harness/probe_task.h): its sequences (tasks/needles/sequences.h)
// on the shared probe task.
#include "tasks/needles/sequences.h"

namespace pe {

const Task& needles_task() {
  static const std::unique_ptr<Task> t = make_probe_task(needles_kind());
  return *t;
}

}  // namespace pe
