// The position probe on the char LM (models/position_probe.h; pe-bench analyze probe): a checkpoint's
// residual streams at `length` (0: its training length) fitted on `windows` non-overlapping windows of the training
// text (starts 0, T, 2T, ...) and scored on as many of the validation text (val_start, val_start + T, ...), every
// window at positions 0 .. T-1. initial: the same model at the weights its training started from (its seed's init).
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "harness/config.h"

namespace pe {

nlohmann::json charlm_position_probe(const std::string& checkpoint, int length, int windows, bool initial,
                                     const ExperimentConfig& e);

}  // namespace pe
