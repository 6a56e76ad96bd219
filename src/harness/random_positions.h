// Randomised positions (Ruoss et al. 2023, "Randomized Positional Encodings Boost Length Generalization of
// Transformers"): a sequence of n tokens reads a sorted random subset of [0, L) as its positions instead of
// 0 .. n-1 (L = the key random_positions, at least every length read), in training and in reading alike, as
// the paper does: a model trained on short sequences has then met every position and offset below L by the
// time it reads long ones. A setting, not a scheme: positions are data (the batch's coordinates,
// TokenCoordinates), and every scheme reads them as given, so it applies to every scheme that reads a
// position (NoPE reads none: it does nothing there; a learned table needs L rows). The cue task (the
// tournament), the passkey task and the char LM have it (docs/tasks.md, "Randomised positions").
#pragma once
#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/keys.h"

namespace pe {

// random_positions: 0 (positions 0 .. n-1) or L.
KeySpec random_positions_key();

// n distinct positions of [0, range) in ascending order, into out [n], drawn from the stream `key`
// (selection sampling, Knuth's Algorithm S: position p kept with probability (still needed) / (still left),
// so every n-subset is equally likely). Needs 0 <= n <= range.
void sample_positions(uint64_t key, int n, int range, int* out);

// The positions of one training batch, pos [B, T]: row b of step `step` draws from the stream named by
// (seed, task, step, b), so a resumed run draws what it would have drawn. `task` keeps two tasks' draws
// apart (each task passes its own constant).
void draw_batch_positions(uint64_t seed, uint64_t task, int step, int B, int T, int range, std::vector<int>& pos);

// ConfigError naming the key when random_positions is on and shorter than the training length or a length
// read (eval_lengths), or combined with a packing policy or packed test windows (both lay out positions).
void check_random_positions(const nlohmann::json& cfg);

// The record of a checkpoint's training section: random_positions L (absent: off, as every checkpoint
// written before it).
int random_positions_of(const nlohmann::json& training);

}  // namespace pe
