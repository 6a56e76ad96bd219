#pragma once
#include <string>
#include <vector>

#include "models/gradcheck.h"

namespace pe {
// The direction head with `scheme` (bidirectional, width 8, alphabet 4) on three direction sequences of
// length 9 under each rule, read at their own query rows: rows "direction <rule>/<scheme>/<tensor>".
std::vector<GradCheckRow> gradcheck_direction(const std::string& scheme);
}  // namespace pe
