#pragma once
#include "models/gradcheck.h"

namespace pe {
// The head in its causal form, answering at every position (the filings task's): no query token,
// several positions without a target.
std::vector<GradCheckRow> gradcheck_head_every_position(const std::string& scheme);
}  // namespace pe
