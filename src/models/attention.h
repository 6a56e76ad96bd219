// Scaled dot-product attention over explicit positions: batch, any number of heads, any number of
// query rows and key rows per sequence. Visibility (the causal mask, an optional band) is decided
// from positions and is separate from the position bias, which comes from the scheme's hooks.
#pragma once
#include <algorithm>
#include <vector>

#include "schemes/scheme.h"

namespace pe {

// Which keys a query may see, from positions alone. A masked key gets probability exactly 0.
struct Visibility {
  bool causal = true;
  int window = 0;  // > 0: only keys with age m - n < window (a band added to the causal mask)
  bool visible(int m, int n) const {
    if (causal && n > m) return false;
    if (window > 0 && m - n >= window) return false;
    return true;
  }
  bool operator==(const Visibility&) const = default;
  // This visibility with a scheme's window for a layer added (the narrower band wins).
  Visibility with_window(int w) const {
    Visibility v = *this;
    if (w > 0) v.window = v.window > 0 ? std::min(v.window, w) : w;
    return v;
  }
};

struct AttnShape {
  int B = 1;   // sequences
  int Tq = 1;  // query rows per sequence
  int Tk = 1;  // key/value rows per sequence
  int H = 1;   // heads
  int dh = 16; // head width
  int layer = 0;  // which layer of the model (schemes with per-layer parameters or visibility)
};

// A scheme's derived tables of this layer (Scheme::tables_forward) and their gradient buffer.
template <class S>
struct AttnTables {
  const S* values = nullptr;
  S* grads = nullptr;
  int span = 0;  // every |query position - key position| < span
};

// Forward.
//   Q: [B*Tq, H*dh], K, V: [B*Tk, H*dh] (already transformed by the scheme's Q/K hook);
//   or, when kv_index ([B*Tk]) is given, K and V are tables whose row kv_index[b*Tk + j] is key j
//   of sequence b (models whose keys repeat, e.g. when a key depends only on (position, token)).
//   qpos: [Tq], kpos: [Tk] positions shared by the batch
//   probs (out): [B, H, Tq, Tk], kept for the backward. Every masked key a query row could read gets
//   exactly 0, but the dense path (no kv_index, several query rows) writes a block of query rows only
//   over the block's key span (keys masked for the whole block are left alone). nullptr when no
//   backward follows: the probabilities then live in a scratch only.
//   out (out, overwritten): [B*Tq, H*dh]
// score(m,n) = content_scale * q.k / sqrt(dh) + the scheme's score terms over visible keys, softmax
// over keys; out = sum p v + the scheme's value term. The hooks see one query row at a time
// (AttnRow: layer, head, query, visible keys), in the row path and the dense path alike.
template <class S>
void attention_forward(const AttnShape& sh, const S* Q, const S* K, const S* V, const int* qpos, const int* kpos,
                       const Visibility& vis, const Scheme<S>& scheme, CParamView<S> P, S* probs, S* out,
                       const int* kv_index = nullptr, AttnTables<S> tables = {});

// The scores alone, before the softmax (for reading a trained head, not for training): the same
// arguments as attention_forward; scores (out): [B, H, Tq, Tk], -infinity at every masked key.
template <class S>
void attention_scores(const AttnShape& sh, const S* Q, const S* K, const int* qpos, const int* kpos,
                      const Visibility& vis, const Scheme<S>& scheme, CParamView<S> P, S* scores,
                      const int* kv_index = nullptr, AttnTables<S> tables = {});

// Backward. dout: [B*Tq, H*dh]. Adds into dQ, dK, dV (same shapes as Q, K, V; with kv_index the
// table rows are scatter-added) and into the scheme's bias gradients G.
template <class S>
void attention_backward(const AttnShape& sh, const S* Q, const S* K, const S* V, const int* qpos, const int* kpos,
                        const Visibility& vis, const Scheme<S>& scheme, CParamView<S> P, ParamView<S> G,
                        const S* probs, const S* dout, S* dQ, S* dK, S* dV, const int* kv_index = nullptr,
                        AttnTables<S> tables = {});

}  // namespace pe
