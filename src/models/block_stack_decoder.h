// Cached decoding of the block stack: one token at a time at explicit absolute positions. Each block
// keeps the keys and values of the tokens it has seen (a key/value cache): the new token's query at
// position t reads the cached keys at their own positions, and a RoPE key is rotated at its absolute
// position once, when it enters the cache. Past `window` tokens the oldest key leaves the cache and
// positions keep counting (no restart at 0): decoding token t with a window of C reads the keys at
// t-C+1 .. t, which is what a full forward with a band of C (Visibility::window) computes, so the two
// agree to float rounding (the cache-vs-recompute invariance; tests/test_decoder.cpp). A scheme with a
// last position (a learned table) has no row past it: step() refuses it, never clamps.
//
// Context-extension maps: the reader's plan is set by the caller (Scheme::read_with) before decoding.
// A length-dependent map (dynamic, longrope) is re-planned for the current length at every step; the
// keys already cached keep the rotation they entered with, unless the map recomputes cached keys
// (dynamic-recompute), which keeps every key unrotated too and turns them all again under the new
// plan. A distance warp (compress) rotates nothing per token: its score hook turns each (query, key)
// pair by the warped distance, so the unrotated cached keys give the same scores as a recomputation.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "models/block_stack.h"
#include "schemes/frequency_maps.h"

namespace pe {

template <class S>
class BlockStackDecoder {
 public:
  // window: keys each block keeps and each query sees (>= 1). map, train_len, read_len: the reading's
  // map (re-planned per step when length-dependent: Scheme::read_with(map, train_len, read_len, t+1));
  // read_len 0: the window; no map (nullopt): the plan the scheme holds, never re-planned. The model's plan is
  // left as the last step set it.
  BlockStackDecoder(BlockStack<S>& model, int window, const std::optional<MapSpec>& map, int train_len,
                    int read_len = 0);
  // Feeds the token at the next position; returns the logits for the token after it: [vocab].
  const S* step(int token);
  int position() const { return next_; }  // the position the next token will take
  int cached() const { return count_; }   // keys in each block's cache
  // Bytes of the cache (keys, values, unrotated keys when kept, positions), at full occupancy.
  size_t cache_bytes() const;

 private:
  void replan_for(int length);
  BlockStack<S>& m_;
  int window_, train_len_, read_len_;
  std::optional<MapSpec> map_;
  bool length_dependent_ = false, recompute_ = false;
  int next_ = 0, count_ = 0;
  // per block: ring buffers of `window_` rows of d_model: keys (as attention reads them), values, the
  // unrotated keys (dynamic-recompute only); the scheme's derived tables for distances below the window
  std::vector<std::vector<S>> K_, V_, Kraw_, tables_;
  std::vector<int> slot_pos_;      // position held by each ring slot
  std::vector<int> order_, kpos_;  // the cached keys in ascending position: ring slot, position
  std::vector<S> h_, q_, k_, v_, o_, logits_;
};

}  // namespace pe
