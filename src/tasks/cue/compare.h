// Paired comparisons of two readers of a cue results file (pe-bench compare): across seeds, the
// paired t interval of the mean accuracy difference; within each seed's checkpoints, re-read on the
// results' own test sequences, a paired bootstrap interval and the exact McNemar test.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "harness/task.h"
#include "tasks/cue/evaluation.h"

namespace pe {

// stream: how the results' checkpoints are loaded and their test sequences drawn (the cue task's by default).
std::string compare_cue_readers(const nlohmann::json& results, const std::string& a, const std::string& b, int length,
                                const CompareSettings& settings, const HeadTestStream& stream = {});

// "+0.012 [-0.004, +0.028]"
std::string signed_interval(double mean, double lo, double hi, int decimals = 3);

}  // namespace pe
