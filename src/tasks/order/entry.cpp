// The relative-order probe as a registry entry (harness/probe_task.h): its sequences (tasks/order/sequences.h)
// on the shared probe task.
#include "tasks/order/sequences.h"

namespace pe {

const Task& order_task() {
  static const std::unique_ptr<Task> t = make_probe_task(order_kind());
  return *t;
}

}  // namespace pe
