// Reading direction heads: accuracy on the shared test sets (the cue task's evaluation, with this task's
// sequences and query rows: tasks/cue/evaluation.h), the exact readers beside them, each head's score
// against the signed offset of a key from its query, the tables and `compare`.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/config.h"
#include "harness/task.h"
#include "tasks/cue/evaluation.h"

namespace pe {

// The direction task's test sets and checkpoints, as the cue evaluation reads them.
HeadTestStream direction_stream();

// The results JSON (docs/results-format.md, the cue task's layout with "task": "direction"): accuracy per
// scheme, seed and length with intervals; "direction_rule"; per length the bag reader's and the
// unsigned-distance reader's accuracy on the test sequences (tasks/direction/data.h); and "geometry":
// every head's score against signed offset (score_by_offset, tasks/cue/score_curves.h) with the query at
// the middle of the training window and of a 129-token sequence.
nlohmann::json evaluate_direction(const std::vector<std::string>& checkpoints, const ExperimentConfig& e,
                                  bool progress);

std::string format_direction_table(const nlohmann::json& results);
std::string format_direction_markdown(const nlohmann::json& results);

}  // namespace pe
