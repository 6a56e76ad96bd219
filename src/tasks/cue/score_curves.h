// A trained cue head's attention score as the laboratory draws it (docs/lab.md): the score of the
// query token for a marked key against the key's age, and against the query's absolute position at a
// fixed age. The scores are the head's own, before the softmax (CueHead::scores: content, position
// and the scheme's score terms), averaged over the marked symbols.
#pragma once
#include <optional>
#include <vector>

#include "models/cue_head.h"

namespace pe {

// The query token at position length-1 and a marked key r back, r = 1..length-1: [length] entries,
// entry 0 unset (the query's own position holds the query token). The longest length the head can
// read is used when it cannot read `length` (a learned table: its last row); `read` gets it.
std::vector<std::optional<double>> score_by_age(const CueHead<float>& model, int length, int* read);

// The query token at row query_row of a sequence of `length` tokens (positions 0 .. length-1) and a
// marked key at every other row: [length] entries, entry t the score of the key at row t (signed offset
// t - query_row; the query's own row holds the query token's score; -infinity where the head cannot see
// the key). Empty when the head cannot read position length - 1.
std::vector<double> score_by_offset(const CueHead<float>& model, int length, int query_row);

// The query token at position p and a marked key `age` back, for p = age..last: [last - age + 1]
// entries (a relative scheme's are flat; an absolute code's drift). Empty when the head cannot read
// position `last`.
std::vector<double> score_by_position(const CueHead<float>& model, int age, int last);

}  // namespace pe
