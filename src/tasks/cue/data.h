// The cue task (tasks.md section 1): "which marked token came last?".
// Content token id = symbol + alphabet * marked (0..2A-1); the query token id is 2A.
// A sequence of length n is n-1 content tokens then the query token; the target is the symbol of
// the most recent marked content token (one forced uniformly-chosen mark when the draw has none).
#pragma once
#include <cstdint>
#include <vector>

#include "models/cue_head.h"  // CueTaskConfig, CueBatch

namespace pe {

// One sequence drawn from the stream named by `key`. tokens: [n].
// Where the CPU-feature switch allows AVX-512 DQ (core/rng_lanes.h), eight tokens' draws are made at
// once: the same integers.
void cue_sequence(const CueTaskConfig& cfg, uint64_t key, int n, int* tokens, int* target);
// The same sequence drawn one number at a time (what the vector path is tested against).
void cue_sequence_drawn_singly(const CueTaskConfig& cfg, uint64_t key, int n, int* tokens, int* target);

// Training batch for (seed, step): fresh sequences every step, independent of the test stream.
CueBatch cue_train_batch(const CueTaskConfig& cfg, uint64_t seed, int step, int B, int T);
// The test set at length n: depends only on (test_seed, n), identical for every scheme and seed.
CueBatch cue_test_set(const CueTaskConfig& cfg, uint64_t test_seed, int n, int count);

// Randomised positions (harness/random_positions.h): each sequence of the batch reads a sorted draw of
// [0, range) as its positions (CueBatch::positions). A training batch's draws are named by (seed, step, row)
// as its tokens are; a test set's by (test_seed, its length, row, range), the same for every scheme and seed.
void cue_random_positions(CueBatch& batch, uint64_t seed, int step, int range);
void cue_test_positions(CueBatch& test, uint64_t test_seed, int range);

// The no-position reader's rule (guess the most frequent marked symbol; ties split evenly) scored on
// these very sequences: its expected accuracy, exactly, on the batch (the paired counterpart of
// cue_best_reader_without_positions). It counts the marked tokens of every row, so it serves a batch
// whose query token sits at another row (CueBatch::query_rows) too.
double cue_bag_reader_accuracy(const CueTaskConfig& cfg, const CueBatch& batch);

}  // namespace pe
