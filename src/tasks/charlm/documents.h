// The char LM's documents (docs/tasks.md, "Packing"): the paragraphs of the corpus
// (CharCorpus::doc_starts), and the windows a packing policy (harness/packing.h) trains and reads on.
//   none, packed     windows of the running text at any start, paragraphs running into each other,
//                    positions 0 .. T-1 (the char LM as it always read: the same bits under both)
//   isolated-reset   the same windows, each piece of a paragraph inside it seeing only itself, its
//                    positions from 0 (a piece cut at the window's start too)
//   isolated-global  the same windows and isolation, positions the window's rows
//   padded           one paragraph per window: each paragraph cut into pieces of at most T from its
//                    start, one piece per window, PAD rows after it (no loss, invisible)
// Every content row keeps the running text's target, the next character (a paragraph's last row,
// the space its gap became, predicts the next paragraph's first letter under every policy).
#pragma once
#include <vector>

#include "harness/packing.h"
#include "tasks/charlm/corpus.h"

namespace pe {

// The windows of T tokens one policy trains on: starts (and, for padded, how many rows of each are
// content). Every other policy: the starts 0 .. n_windows-1 and full windows; padded: the pieces
// (cut from each paragraph's start) that themselves start before n_windows.
struct TrainingWindows {
  std::vector<int> start, content;
  int size() const { return int(start.size()); }
};
TrainingWindows charlm_training_windows(const CharCorpus& c, Packing p, int n_windows, int T);

// The window at `start` with `content` rows of content (T: all) as the policy lays it out: x, y [T]
// (PAD rows: token 0, target -1) and its coordinates appended to `at` (nothing for none and packed).
void charlm_window(const CharCorpus& c, Packing p, int start, int content, int T, int* x, int* y, BatchCoordinates& at);

// The lengths of the pieces of paragraphs in the window [start, start + T), in order.
std::vector<int> window_pieces(const CharCorpus& c, long start, int T);

// The largest position the first L rows of the window at `start` read under `layout`.
int window_max_position(const CharCorpus& c, Packing layout, long start, int L);

}  // namespace pe
