// Exact baselines (docs/analyses.md "Exact baselines"): the best cue reader without positions, and the
// causal counter proposition computed with an actual causal uniform-attention average.
#pragma once
#include <nlohmann/json.hpp>
#include <vector>

namespace pe::theory {

// {"alphabet", "mark_prob", "rows": [{"n", "accuracy"}]} for n in {32, 64, 128, 256}
// (calls pe::cue_best_reader_without_positions).
nlohmann::json cue_baseline_report();

// Causal softmax attention over positions 0..len-1 with every score equal to `score`, values
// [len x width] row-major; returns the outputs [len x width] row-major (output t averages rows 0..t
// with the softmax weights, computed with max-subtraction as a real layer would).
std::vector<double> causal_attention_equal_scores(const std::vector<double>& values, int len, int width, double score);

// The proposition: value e (unit, `width` wide) at position 0 and zero elsewhere; report max |o_t - e/(t+1)|,
// max |(1/<o_t,e>) - 1 - t| and whether round(1/<o_t,e>) - 1 == t for every t < len.
nlohmann::json causal_counter_report(int len = 4096, int width = 4);

}  // namespace pe::theory
