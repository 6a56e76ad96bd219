// The filings task's token streams (tasks.md section 2) for the single head of the tournament in
// its causal form (models/cue_head.h, every_position): token id = symbol + 8 * marked (16 ids, no
// query token), one target per position (the company named last at or before it, -1 before a
// first mention: not a query).
#pragma once
#include <array>
#include <cstdint>
#include <vector>

#include "models/cue_head.h"  // CueTaskConfig, CueBatch
#include "tasks/filings/corpus.h"

namespace pe {

// The head's task settings: 8 classes, no query token.
CueTaskConfig filings_head_task();

// A document's tokens: [n].
std::vector<int> filings_tokens(const FilingsDocument& d);

// Where a training window came from.
struct FilingsWindow {
  int document = 0, start = 0;
};

// Training batch for (seed, step): B windows of T tokens, each inside one training document
// (a document and a start drawn uniformly; never across a boundary), every position from the
// window's first mention on a target (the company named last at or before it, within the window).
// windows (optional): where each came from. Documents shorter than T are never drawn.
CueBatch filings_train_batch(const std::vector<FilingsDocument>& docs, uint64_t seed, int step, int B, int T,
                             std::vector<FilingsWindow>* windows = nullptr);

// Every position of a document's answer's age at each position: position - position of the last
// mention at or before it; -1 before the first mention.
std::vector<int> filings_answer_ages(const FilingsDocument& d);

// The company named most often so far, as an answer (ties split evenly: its expected accuracy) — a
// rule that needs no positions — on every query and on the queries whose answer is more than `far`
// tokens back.
std::array<double, 2> most_named_so_far_accuracy(const std::vector<FilingsDocument>& docs, int far = 32);

}  // namespace pe
