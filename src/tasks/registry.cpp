// The task registry: adding a task means its folder and one line here.
#include "harness/task.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/errors.h"

namespace pe {

const Task& cue_task();     // tasks/cue/entry.cpp
const Task& charlm_task();  // tasks/charlm/entry.cpp
const Task& filings_task();  // tasks/filings/entry.cpp
const Task& passkey_task();  // tasks/passkey/entry.cpp

const std::vector<const Task*>& task_list() {
  static const std::vector<const Task*> list = {&cue_task(), &filings_task(), &charlm_task(), &passkey_task()};
  return list;
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
