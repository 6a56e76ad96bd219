// Scaled dot-product attention over a batch's coordinates (positions, documents, padding, visibility;
// docs/architecture.md "The batch model"): any number of heads, of query rows and of key rows per
// sequence. Visibility is decided from the coordinates and is separate from the position bias, which
// comes from the scheme's hooks.
#pragma once
#include <algorithm>
#include <vector>

#include "schemes/scheme.h"

namespace pe {

// Which keys a query may see, from positions alone. A masked key gets probability exactly 0: visibility
// is a mask, never a finite bias, and a position bias is never a mask.
//   causal:        keys at or before the query's position (a decoder)
//   bidirectional: every key (an encoder): causal = false
//   prefix:        every key below position `prefix`, causal after it (a prefix LM): causal and prefix > 0
// A window (> 0) hides keys whose age m - n is the window or more, in every kind.
struct Visibility {
  bool causal = true;
  int window = 0;  // > 0: only keys with age m - n < window (a band added to the mask)
  int prefix = 0;  // > 0 with causal: keys at positions below it are seen by every query
  bool visible(int m, int n) const {
    if (causal && n > m && n >= prefix) return false;
    if (window > 0 && m - n >= window) return false;
    return true;
  }
  // Some query may see a key after its own position (the schemes' encoder forms apply: SchemeConfig).
  bool sees_later() const { return !causal || prefix > 0; }
  static Visibility bidirectional() { return {false, 0, 0}; }
  static Visibility prefix_lm(int k) { return {true, 0, k}; }
  bool operator==(const Visibility&) const = default;
  // This visibility with a scheme's window for a layer added (the narrower band wins).
  Visibility with_window(int w) const {
    Visibility v = *this;
    if (w > 0) v.window = v.window > 0 ? std::min(v.window, w) : w;
    return v;
  }
};

// The coordinates of a batch: where each query and key row is, which document it belongs to, and the
// visibility (docs/architecture.md, "The batch model"). Storage rows are not positions: a row's
// position is data, and every scheme reads positions only.
//   qpos, kpos: the positions of the query and key rows: [Tq] and [Tk] shared by the batch, or
//     [B, Tq] and [B, Tk] when per_row.
//   qseg, kseg: [B, Tq] and [B, Tk], the document of each row (packing with isolation: a query sees
//     a key only of its own document), or nullptr: one document. -1 is a PAD row: a PAD key is seen by
//     no query, a PAD query sees no key (its output is 0 and it takes no gradient).
// A key is visible to a query when vis allows their positions and their documents are the same.
inline constexpr int kPadDocument = -1;  // a PAD row's document
struct Coordinates {
  const int* qpos = nullptr;
  const int* kpos = nullptr;
  Visibility vis = {};
  bool per_row = false;
  const int* qseg = nullptr;
  const int* kseg = nullptr;
  const int* q_of(int b, int Tq) const { return per_row ? qpos + size_t(b) * Tq : qpos; }
  const int* k_of(int b, int Tk) const { return per_row ? kpos + size_t(b) * Tk : kpos; }
  // Every sequence of the batch has the same coordinates (the visible sets are decided once).
  bool shared() const { return !per_row && !qseg && !kseg; }
};

struct AttnShape {
  int B = 1;      // sequences
  int Tq = 1;     // query rows per sequence
  int Tk = 1;     // key/value rows per sequence
  int H = 1;      // heads
  int dh = 16;    // head width
  int layer = 0;  // which layer of the model (schemes with per-layer parameters or visibility)
};

// A scheme's derived tables of this layer (Scheme::tables_forward) and their gradient buffer.
template <class S>
struct AttnTables {
  const S* values = nullptr;
  S* grads = nullptr;
  int span = 0;  // every |query position - key position| < span
};

// Scores looked up instead of computed, for one query row per sequence whose query is the same row at
// the same position in every sequence (the cue head's): the score of a key then depends only on its
// table row (kv_index), so the scores are a table made once, by attention_scores over the table's rows.
// Q and K are then not read, and dh is the width of V's rows (and of out). Needs kv_index, Tq = 1, one
// head and a scheme without a value term (Scheme::acts_on_values) whose key scores do not read the
// other keys (Scheme::contextual_scores), else throws.
//   scores: [table rows], the score of each (the scheme's score terms included)
//   grads (backward): adds d loss / d score of each table row, summed over every (sequence, key) that
//   reads it; the caller then undoes the table with attention_scores_backward, once.
template <class S>
struct ScoreLookup {
  const S* scores = nullptr;
  S* grads = nullptr;
};

// Which path computes attention_forward and attention_backward (one file each, models/attention_*.cpp).
//   automatic: the one the arguments call for: lookup when looked-up scores are given, else dense when
//     the keys are the rows of K/V (no kv_index) and there are several query rows, else rows.
//   rows: the reference, one (sequence, head, query row) at a time; any shape, with or without kv_index.
//     The other paths are tested against it (tests/test_attention_paths.cpp).
//   dense: query blocks of matrix products (core/gemm.h); keys the rows of K/V (no kv_index). Sums in
//     another order than rows, so it agrees with rows to rounding, not bit for bit.
//   lookup: looked-up scores (ScoreLookup, which see).
// A path asked for by name that cannot take the arguments throws Error.
enum class AttnPath { automatic, rows, dense, lookup };

// Forward.
//   Q: [B*Tq, H*dh], K, V: [B*Tk, H*dh] (already transformed by the scheme's Q/K hook);
//   or, when kv_index ([B*Tk]) is given, K and V are tables whose row kv_index[b*Tk + j] is key j
//   of sequence b (models whose keys repeat, e.g. when a key depends only on (position, token)).
//   at: the batch's coordinates (Coordinates: positions shared or per sequence, documents, PAD rows,
//   visibility); a PAD query row gets out = 0
//   probs (out): [B, H, Tq, Tk], kept for the backward. Every masked key a query row could read gets
//   exactly 0, but the dense path writes a block of query rows only over the block's key span (keys
//   masked for the whole block are left alone). nullptr when no backward follows: the probabilities
//   then live in a scratch only.
//   out (out, overwritten): [B*Tq, H*dh]
// score(m,n) = content_scale * q.k / sqrt(dh) + the scheme's score terms over visible keys, softmax
// over keys; out = sum p v + the scheme's value term. The hooks see one query row at a time
// (AttnRow: layer, head, query, visible keys), in the row path and the dense path alike. With lookup,
// s_j = lookup.scores[kv_index[b*Tk + j]] instead (Q is not read).
template <class S>
void attention_forward(const AttnShape& sh, const S* Q, const S* K, const S* V, const Coordinates& at,
                       const Scheme<S>& scheme, CParamView<S> P, S* probs, S* out, const int* kv_index = nullptr,
                       AttnTables<S> tables = {}, ScoreLookup<S> lookup = {}, AttnPath path = AttnPath::automatic);

// The scores alone, before the softmax: the same arguments as attention_forward and the same bits as
// its scores; scores (out): [B, H, Tq, Tk], -infinity at every masked key. For reading a trained head,
// and for making a ScoreLookup's table.
template <class S>
void attention_scores(const AttnShape& sh, const S* Q, const S* K, const Coordinates& at, const Scheme<S>& scheme,
                      CParamView<S> P, S* scores, const int* kv_index = nullptr, AttnTables<S> tables = {});

// Its backward: dscores [B, H, Tq, Tk] (read at visible keys only) adds into dQ, dK (as
// attention_backward's) and the scheme's score-term gradients G and tables.grads.
template <class S>
void attention_scores_backward(const AttnShape& sh, const S* Q, const S* K, const Coordinates& at,
                               const Scheme<S>& scheme, CParamView<S> P, ParamView<S> G, const S* dscores, S* dQ, S* dK,
                               const int* kv_index = nullptr, AttnTables<S> tables = {});

// Backward. dout: [B*Tq, H*dh]. Adds into dQ, dK, dV (same shapes as Q, K, V; with kv_index the
// table rows are scatter-added) and into the scheme's bias gradients G. With lookup, adds each key's
// score gradient into lookup.grads at its table row instead, and leaves dQ, dK and the score terms alone.
// probs: as attention_forward wrote them, by any path.
template <class S>
void attention_backward(const AttnShape& sh, const S* Q, const S* K, const S* V, const Coordinates& at,
                        const Scheme<S>& scheme, CParamView<S> P, ParamView<S> G, const S* probs, const S* dout, S* dQ,
                        S* dK, S* dV, const int* kv_index = nullptr, AttnTables<S> tables = {},
                        ScoreLookup<S> lookup = {}, AttnPath path = AttnPath::automatic);

}  // namespace pe
