// The table of tasks (harness/task_registry.h): filled by registration, read by the harness, the CLI
// and the tasks through the functions declared at the end of harness/task.h.
#include "harness/task_registry.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "core/errors.h"

namespace pe {

namespace {

std::vector<const Task*>& table() {
  static std::vector<const Task*> list;
  return list;
}

}  // namespace

void register_task(const Task& task) {
  for (const Task* t : table()) {
    if (t == &task) return;
    if (t->name() == task.name()) throw std::logic_error("two tasks are registered as '" + task.name() + "'");
  }
  table().push_back(&task);
}

const std::vector<const Task*>& task_list() {
  // a program that never registered its tasks would see "unknown task" everywhere: say what is missing
  if (table().empty()) throw std::logic_error("no task is registered: main() calls pe::register_tasks() first");
  return table();
}

bool task_exists(const std::string& name) {
  for (auto* t : task_list())
    if (t->name() == name) return true;
  return false;
}

std::string known_tasks() {
  std::string s;
  for (auto* t : task_list()) s += (s.empty() ? "" : ", ") + t->name();
  return s;
}

const Task& find_task(const std::string& name) {
  for (auto* t : task_list())
    if (t->name() == name) return *t;
  throw UsageError(fmt::format("unknown task '{}' (known tasks: {})", name, known_tasks()));
}

std::string not_for_task(const Task& task, const std::string& key) {
  const std::string why = task.why_not(key);
  return fmt::format("key '{}' does not apply to the {} task ({}its keys: pe-bench run --help); drop it or set task",
                     key, task.name(), why.empty() ? "" : why + "; ");
}

bool Task::reads(const std::string& key) const {
  auto declares = [&](const Task& t) {
    for (auto& k : t.keys())
      if (k.key == key) return true;
    return false;
  };
  if (declares(*this)) return true;
  const auto unread = unread_keys();
  if (std::find(unread.begin(), unread.end(), key) != unread.end()) return false;
  for (auto* t : task_list())
    if (t != this && declares(*t)) return false;
  return true;
}

}  // namespace pe
