// The distractor-retrieval probe's sequences (docs/tasks.md, "Distractors"). Pairs KEY k_1 .. k_m v (a key of
// m = key_symbols symbols of key_alphabet, a value of value_alphabet) spread through a filler of random words
// (spread_gaps, harness/probe_task.h), then QUERY k_1 .. k_m, whose answer (at k_m) is the queried key's value:
//   filler and c + 1 pairs ... QUERY k_1 .. k_m      answer: v of the pair whose key is k_1 .. k_m
// One pair holds the queried key (its place among the pairs drawn uniformly); the c distractors each share
// exactly j of its m symbols, in place (the j places drawn, every other symbol another than the key's), and
// have values other than its value. Filler: F = n - (c + 1)(m + 2) - m - 1 words. The cells are each count c
// of distractor_counts with each j in 0 .. m - 1; training draws c and j uniformly. Vocabulary: filler words
// 0..W-1, key symbols, values, KEY, QUERY.
#pragma once

#include "harness/probe_task.h"

namespace pe {

ProbeKind distractors_kind();

}  // namespace pe
