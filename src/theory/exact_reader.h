// The exact accuracy of the best cue-task reader that sees no positions (tasks.md section 1,
// docs/analyses.md "Exact baselines"): it sees the bag of tokens and guesses the most frequent marked
// symbol, breaking ties uniformly. Computed by counting, not by sampling.
#pragma once

namespace pe {

// Sequence length n: n-1 content tokens, each marked with probability mark_prob, symbols uniform
// over `alphabet`; a sequence with no mark gets one forced mark.
double cue_best_reader_without_positions(int n, int alphabet = 8, double mark_prob = 0.1);

// E[max count] / K for K iid uniform draws over `alphabet` symbols: the reader's accuracy given K
// marks (exchangeability: the last mark's symbol is at the mode with probability max/K).
double cue_accuracy_given_marks(int K, int alphabet = 8);

}  // namespace pe
