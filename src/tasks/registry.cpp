// The task registry: adding a task means its folder and one line here.
#include "tasks/registry.h"

#include "exercises/exercises.h"
#include "harness/task_registry.h"

namespace pe {

const Task& cue_task();      // tasks/cue/entry.cpp
const Task& charlm_task();   // tasks/charlm/entry.cpp
const Task& filings_task();  // tasks/filings/entry.cpp
const Task& passkey_task();  // tasks/passkey/entry.cpp

const Task& direction_task();  // tasks/direction/entry.cpp
// the probes (harness/probe_task.h)
const Task& needles_task();       // tasks/needles/entry.cpp
const Task& distractors_task();   // tasks/distractors/entry.cpp
const Task& order_task();         // tasks/order/entry.cpp
const Task& declarations_task();  // tasks/declarations/entry.cpp
// the exercises that read a task's trained models (exercises/exercises.h)
exercises::Exercise charlm_learned_table_exercise();  // tasks/charlm/learned_table_exercise.cpp

void register_tasks() {
  register_task(cue_task());
  register_task(filings_task());
  register_task(charlm_task());
  register_task(passkey_task());
  register_task(direction_task());
  register_task(needles_task());
  register_task(distractors_task());
  register_task(order_task());
  register_task(declarations_task());
  exercises::register_exercise(charlm_learned_table_exercise());
}

}  // namespace pe
