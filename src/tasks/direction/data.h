// The direction task (tasks.md, "Direction"): the cue task's question asked of an encoder. A sequence of
// length n (n >= 5) is n - 1 content tokens with the query token at a row r of its own, drawn uniformly
// from 2 .. n-3 (so at least two content tokens on each side):
//   content token id = symbol + alphabet * marked (0 .. 2A-1), symbol uniform, marked with mark_prob;
//   the query token id is 2A, at row r (CueBatch::query_rows[b] = r); positions are the rows 0 .. n-1.
// The draw then makes sure of three things, each step symmetric under reflecting the sequence:
//   1. a mark before the query: with none, one content token of rows 0 .. r-1 chosen uniformly is marked;
//   2. a mark after it: with none, one of rows r+1 .. n-1 likewise;
//   3. no tie: when the nearest mark before and the nearest after are at the same distance d, a coin
//      picks a side and its nearest mark is unmarked; a side left without a mark gets one at a row of
//      its own chosen uniformly among those not at distance d.
// So the nearest mark before the query and the nearest after it exist and are at different distances.
// The answer's rule (the `direction_rule` key, recorded in the checkpoint as the head's rule):
//   before  — the symbol of the nearest marked token before the query (signed: needs the side);
//   nearest — the symbol of the nearest marked token on either side (unsigned: distances suffice).
#pragma once
#include <cstdint>
#include <string>

#include "models/cue_head.h"  // CueTaskConfig, CueBatch

namespace pe {

inline constexpr int kDirectionMinLength = 5;

// One sequence of length n drawn from the stream named by `key`; tokens: [n]; *query_row: r.
// `rule` (cfg.rule): "before" or "nearest".
void direction_sequence(const CueTaskConfig& cfg, uint64_t key, int n, int* tokens, int* target, int* query_row);

// The rows of the nearest mark before and after the query row of one sequence (-1 where there is none).
struct NearestMarks {
  int before = -1, after = -1;
};
NearestMarks nearest_marks(const CueTaskConfig& cfg, const int* tokens, int n, int query_row);

// Training batch for (seed, step) and the test set at length n (the same for every scheme and seed),
// with their query rows.
CueBatch direction_train_batch(const CueTaskConfig& cfg, uint64_t seed, int step, int B, int T);
CueBatch direction_test_set(const CueTaskConfig& cfg, uint64_t test_seed, int n, int count);

// The exact readers, each rule applied to these very sequences (paired with the heads):
// the bag reader (no positions: it sees the multiset of tokens) guesses the most frequent marked
// symbol, ties split evenly — the cue task's rule, cue_bag_reader_accuracy (tasks/cue/data.h);
// the unsigned-distance reader sees each token with |its offset from the query| but not its side, and
// answers the symbol of the nearest mark. For `nearest` that is the answer (1.0). For `before` it is the
// Bayes rule: the draw is symmetric under reflection, which keeps every distance and swaps every side, so
// given what this reader sees the nearest mark is before the query with probability exactly 1/2, and the
// nearest mark's symbol has posterior at least 1/2 while any other symbol's is at most 1/2.
double direction_distance_reader_accuracy(const CueTaskConfig& cfg, const CueBatch& batch);

}  // namespace pe
