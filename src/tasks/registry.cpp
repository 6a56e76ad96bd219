// The task registry: adding a task means its folder and one line here.
#include "tasks/registry.h"

#include "harness/task_registry.h"

namespace pe {

const Task& cue_task();      // tasks/cue/entry.cpp
const Task& charlm_task();   // tasks/charlm/entry.cpp
const Task& filings_task();  // tasks/filings/entry.cpp
const Task& passkey_task();  // tasks/passkey/entry.cpp

const Task& direction_task();  // tasks/direction/entry.cpp

void register_tasks() {
  register_task(cue_task());
  register_task(filings_task());
  register_task(charlm_task());
  register_task(passkey_task());
  register_task(direction_task());
}

}  // namespace pe
