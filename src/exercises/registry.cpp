// The exercise table: one line per exercise (exercises.h).
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

#include "core/errors.h"
#include "exercises/exercises.h"

namespace pe::exercises {

namespace {
bool before(const Exercise& a, const Exercise& b);

// Kept in order: sorted when made and at each registration (all before any command runs).
std::vector<Exercise>& table() {
  static std::vector<Exercise> list = [] {
    std::vector<Exercise> l = {prefix_permutation(), permutation_biases(), sinusoidal_codes(),
                               rope_preference(),    rescaled_gap(),       shift_checks()};
    std::stable_sort(l.begin(), l.end(), before);
    return l;
  }();
  return list;
}

// "1.3" < "2" < "13.1" < "shift": numbers by value, then words
bool before(const Exercise& a, const Exercise& b) {
  auto key = [](const std::string& id) {
    char* end = nullptr;
    const double v = std::strtod(id.c_str(), &end);
    const bool number = end && *end == '\0' && !id.empty();
    return std::make_pair(number ? 0 : 1, number ? v : 0.0);
  };
  const auto ka = key(a.id), kb = key(b.id);
  return ka != kb ? ka < kb : a.id < b.id;
}
}  // namespace

const std::vector<Exercise>& exercise_list() { return table(); }

void register_exercise(Exercise e) {
  for (auto& x : table())
    if (x.id == e.id) throw Error(fmt::format("exercise '{}' registered twice", e.id));
  table().push_back(std::move(e));
  std::stable_sort(table().begin(), table().end(), before);
}

const Exercise& find_exercise(const std::string& id) {
  std::string known;
  for (auto& e : exercise_list()) {
    if (e.id == id) return e;
    known += (known.empty() ? "" : ", ") + e.id;
  }
  throw UsageError(fmt::format("no exercise '{}': pe-bench answers {} (pe-bench exercise --list)", id, known));
}

}  // namespace pe::exercises
