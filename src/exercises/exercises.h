// The chapter's exercises that pe-bench answers by a computation it runs (docs/exercises.md): each one
// entry that owns its question, its method, the computation and how it prints. `pe-bench exercise ID`
// runs one and writes results/exercises/<ID>.json; the table of entries is exercise_list() (registry.cpp).
// An exercise that reads trained models registers from its task's folder (register_exercise); the
// exercises answered by analyses (analyze probe, analyze attention) are named in docs/exercises.md.
#pragma once
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace pe::exercises {

struct Exercise {
  // (id and title are given when the entry is made; the rest is filled in after)
  Exercise(std::string id_, std::string title_) : id(std::move(id_)), title(std::move(title_)) {}
  std::string id;                           // as the chapter numbers it: "1.3", "13.1"
  std::string title;                        // a few words
  std::string question;                     // the chapter's question, as pe-bench reads it
  std::string method;                       // how pe-bench answers it (what is computed, in what precision)
  std::function<nlohmann::json()> compute;  // the answer's numbers (deterministic)
  std::function<std::string(const nlohmann::json&)> print;  // the answer as the chapter prints it
};

// The built-in entries and those registered, ordered by id (numbers first, by value).
const std::vector<Exercise>& exercise_list();
// An exercise that reads a task's trained models lives in the task's folder and is registered here by the
// task registry (tasks/registry.cpp), before any command runs. Throws Error on an id already taken.
void register_exercise(Exercise e);
// Throws UsageError naming the known ids when `id` is not one.
const Exercise& find_exercise(const std::string& id);

// The entries (one file each).
Exercise prefix_permutation();  // 1.3  permuting a causal prefix (permutation.cpp)
Exercise permutation_biases();  // 2    biases that keep permutation symmetry (permutation.cpp)
Exercise sinusoidal_codes();    // 3    distinct codes and near-repeats (sinusoidal_codes.cpp)
Exercise rope_preference();     // 7    the query that puts half its weight on offset -1 (rope_offsets.cpp)
Exercise rescaled_gap();        // 13.1 the score gap at -1 under uniform and selective rescaling (rope_offsets.cpp)
Exercise shift_checks();        // the equivariance and joint-shift checks (rope_offsets.cpp)

}  // namespace pe::exercises
