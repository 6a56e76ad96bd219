// The exercise table: one line per exercise (exercises.h).
#include <fmt/format.h>

#include "core/errors.h"
#include "exercises/exercises.h"

namespace pe::exercises {

const std::vector<Exercise>& exercise_list() {
  static const std::vector<Exercise> list = {prefix_permutation(), permutation_biases(), sinusoidal_codes(),
                                             rope_preference(),    rescaled_gap(),       shift_checks()};
  return list;
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
