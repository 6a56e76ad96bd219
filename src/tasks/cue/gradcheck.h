#pragma once
#include "models/gradcheck.h"

namespace pe {
// The cue model with `scheme`, every parameter element (small batch, short sequences).
std::vector<GradCheckRow> gradcheck_cue(const std::string& scheme);
}  // namespace pe
