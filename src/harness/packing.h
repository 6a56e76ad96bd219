// Packing documents into the fixed windows a block stack trains on (docs/tasks.md, "Packing"): the
// policies every pretraining pipeline chooses between, as data (TokenCoordinates, models/block_stack.h).
//   none             one document per window, filling it (every task's reading until documents came)
//   padded           one document per window, shorter than it, PAD after it (no loss, invisible)
//   packed           whole documents one after another, attending across each other, positions global
//   isolated-reset   the same windows, each document sees only itself, positions 0.. per document
//   isolated-global  the same windows, each document sees only itself, positions global (storage rows)
// A window of T tokens under a packing policy holds documents of lengths drawn uniformly in
// [min_length, T], whole: the last one takes the rest of the window when what would be left could
// not hold a document (window_document_lengths). PAD rows read the convention "positions over
// content": the content of a padded window sits at 0 .. L-1, as it would alone.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/rng.h"
#include "models/block_stack.h"

namespace pe {

enum class Packing { None, Padded, Packed, IsolatedReset, IsolatedGlobal };

// Each policy once: its key value and what it means (for --help, checks and tables).
struct PackingPolicy {
  Packing packing;
  const char* name;
  const char* help;
};
const std::vector<PackingPolicy>& packing_policies();
// "none, padded, ..." (for messages), and each with what it means (for --help).
std::string packing_names();
std::string packing_help();
// The policy named `name`; ConfigError naming the key 'packing' and the policies otherwise.
Packing packing_from_name(const std::string& name);
const char* packing_name(Packing p);
// The lengths of the documents of one window of T tokens under `p` (draws from rng): [T] for none;
// one length in [min_length, T] for padded; for the packing policies lengths in [min_length, T] that
// sum to T (each drawn uniformly over what is left, the last taking the rest when less than
// min_length would remain). Needs 1 <= min_length <= T.
std::vector<int> window_document_lengths(Packing p, Rng& rng, int T, int min_length);

// One window's coordinates: x, y [T] tokens and targets (filled by the caller, document after
// document); pos, doc [T] as the policy lays them out (empty when the policy needs none).
struct WindowCoordinates {
  std::vector<int> pos, doc;
};
// Lays the documents of `lengths` (summing to at most T) into one window under `p`: pos and doc of
// its T rows (PAD rows, past the documents: doc -1, position continuing the content's count), or
// empty vectors when the default coordinates hold (none, packed).
WindowCoordinates lay_out_window(Packing p, const std::vector<int>& lengths, int T);

// A batch of B windows' coordinates ([B, T] each, or empty), and the view the block stack reads.
struct BatchCoordinates {
  std::vector<int> pos, doc;
  void clear() { pos.clear(), doc.clear(); }
  // Appends one window's (all windows of a batch are laid out alike: every one has pos, or none).
  void append(const WindowCoordinates& w) {
    pos.insert(pos.end(), w.pos.begin(), w.pos.end());
    doc.insert(doc.end(), w.doc.begin(), w.doc.end());
  }
  // nullptr when the batch has the default coordinates.
  const TokenCoordinates* view() {
    view_ = {pos.empty() ? nullptr : pos.data(), doc.empty() ? nullptr : doc.data()};
    return pos.empty() && doc.empty() ? nullptr : &view_;
  }

 private:
  TokenCoordinates view_;
};

}  // namespace pe
