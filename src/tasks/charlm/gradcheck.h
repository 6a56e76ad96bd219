#pragma once
#include "models/gradcheck.h"

namespace pe {
// The character LM (small: vocab 7, width 8, 2 heads, 2 blocks, batch 2, length 6, positions from 3).
std::vector<GradCheckRow> gradcheck_charlm(const std::string& scheme);
}  // namespace pe
