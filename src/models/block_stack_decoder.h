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
//
// A cache remembers what its keys were made under: the scheme (its name, settings and visibility) and
// the reading (the map, its lengths, and the frequency plan of every layer). The decoder sets the
// reading itself; when the scheme reads with another plan at the next step (someone called
// Scheme::read_with between steps), the step is refused with a UsageError: keys turned under one plan
// and queries under another give neither reading's scores. Start a new decoder for a new reading.
//
// Prefill in chunks: feed() takes several tokens at once. Their queries read the cached keys and the
// chunk's own keys, causally, within the window, in one pass (the dense path); the chunk's last
// `window` keys then enter the cache. Decoding after a prefix fed in chunks of any sizes equals the
// full forward, as after a prefix fed one token at a time. A length-dependent map plans a chunk for
// its end (positions t .. t+n-1 read the plan for t+n), as a full forward of that length does.
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
  // Feeds n >= 1 tokens at the next n positions as one chunk; returns each one's logits for the token
  // after it: [n, vocab] (valid until the next call).
  const S* feed(const int* tokens, int n);
  // What the cached keys were made under, in one line (the scheme, its settings, the map and lengths).
  const std::string& reading() const { return reading_; }
  int position() const { return next_; }  // the position the next token will take
  int cached() const { return count_; }   // keys in each block's cache
  // Bytes of the cache (keys, values, unrotated keys when kept, positions), at full occupancy.
  size_t cache_bytes() const;

 private:
  void replan_for(int length);
  void check_reading() const;                         // refuses a scheme that now reads with another plan
  void check_tokens(const int* tokens, int n) const;  // in the vocabulary, at readable positions
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
  // feed(): the chunk's states, queries, attention outputs, raw keys, and the cached keys followed by the chunk's
  // ([rows, D])
  std::vector<S> H_, Q_, O_, Kraw_chunk_, Kall_, Vall_;
  std::vector<int> chunk_pos_, all_pos_;
  std::vector<FrequencyPlan> plans_;  // the plans the scheme read with when the last keys were made
  std::string reading_;
};

}  // namespace pe
