// The relative-order probe's sequences (docs/tasks.md, "Relative order"). Two marked tokens MARK a and MARK b
// (distinct symbols of order_alphabet) anywhere in a filler of random words, then a question, as tokens
// t[0..n] (t[n] is only a target):
//   filler ... MARK a ... MARK b ... FIRST    answer: a (the earlier mark's symbol)
//   filler ... MARK a ... MARK b ... SECOND   answer: b (the later one's)
// Filler: F = n - 5 words; g of them lie between the marks. The cells are the question with the gap's class:
// near (g <= F/8), middle (F/8 < g <= F/2) and far (g > F/2), g drawn uniformly in its class and the first mark's
// place uniformly where the pair fits; training draws the question and the class uniformly. FIRST needs order,
// not recency: the tournament asks only for the later mark. Vocabulary: filler words 0..W-1, symbols
// W..W+A-1, MARK, FIRST, SECOND.
#pragma once

#include "harness/probe_task.h"

namespace pe {

ProbeKind order_kind();

}  // namespace pe
