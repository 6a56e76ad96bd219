// The distractor-retrieval probe as a registry entry (harness/probe_task.h): its sequences
// (tasks/distractors/sequences.h) on the shared probe task.
#include "tasks/distractors/sequences.h"

namespace pe {

const Task& distractors_task() {
  static const std::unique_ptr<Task> t = make_probe_task(distractors_kind());
  return *t;
}

}  // namespace pe
