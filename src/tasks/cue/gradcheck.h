#pragma once
#include <string>
#include <vector>

#include "models/cue_head.h"
#include "models/gradcheck.h"

namespace pe {
std::vector<GradCheckRow> gradcheck_cue(const std::string& scheme);
// The head made from `cfg` (initialised with seed 7, in double) on `batch`, read at its query rows
// (CueBatch::query_rows; none: the last row), against central differences: one row per tensor, named
// name/tensor.
std::vector<GradCheckRow> gradcheck_head(const std::string& name, const CueModelConfig& cfg, const CueBatch& batch);
}  // namespace pe
