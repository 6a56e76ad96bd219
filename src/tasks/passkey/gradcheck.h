#pragma once
#include "models/gradcheck.h"

namespace pe {
// The passkey model: the block stack (vocab of a 2-symbol passkey over 3 symbols and 2 filler words,
// width 8, 2 heads, 2 blocks) on two passkey sequences of length 9, scored only on the answer rows.
std::vector<GradCheckRow> gradcheck_passkey(const std::string& scheme);
}  // namespace pe
