// The multi-needle probe's sequences (docs/tasks.md, "Multi-needle"). k needles NEEDLE s_j (k from
// needle_counts, symbols distinct, from needle_alphabet) spread over filler words: needle j in the j-th of k
// near-equal segments of the filler, at an offset drawn in it (spread_gaps, harness/probe_task.h). Then a
// question of one of two forms, as tokens t[0..n] (t[n] is only a target):
//   all:   filler and needles ... QUERY s_1 .. s_k    answers: at QUERY s_1, at each copied s_j the next one
//   i-th:  filler and needles ... ASK I_i             answer: s_i (the i-th needle from the start)
// Filler: F = n - 3k words (all) or n - 2k - 2 (i-th). Cells: each count with each form; answer slot j: the
// j-th needle. Vocabulary: filler words 0..W-1, symbols W..W+A-1, NEEDLE, QUERY, ASK, I_1 .. I_K (K the
// largest count).
#pragma once
#include <memory>

#include "harness/probe_task.h"

namespace pe {

ProbeKind needles_kind();

}  // namespace pe
