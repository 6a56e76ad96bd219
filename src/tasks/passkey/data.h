// The passkey task's sequences: filler words with one passkey planted at a depth, asked for at the
// end. A sequence of length n (the model's context) is, as tokens t[0..n] (t[n] is only a target):
//   filler (p words)  PASS s_1 .. s_k  filler (F - p words)  QUERY s_1 .. s_k,   F = n - 1 - 2k
// The filler words are drawn uniformly and independently (nothing in them predicts anything); the k
// passkey symbols are distinct, drawn from `alphabet`. The model reads t[0..n-1] and is scored on
// its last k rows: at QUERY it must give s_1, at each copied s_i the next one. Depth d in [0, 1]
// puts p = round(d F) filler words before the passkey (0: at the start; 1: right before the query).
// Vocabulary: filler words 0..W-1, symbols W..W+A-1, PASS = W+A, QUERY = W+A+1.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "harness/packing.h"

namespace pe {

struct PasskeySpec {
  int symbols = 4;    // k, symbols per passkey
  int alphabet = 10;  // A, symbols a passkey draws from (distinct: A >= k)
  int filler = 16;    // W, filler words
  int vocab() const { return filler + alphabet + 2; }
  int pass_token() const { return filler + alphabet; }
  int query_token() const { return filler + alphabet + 1; }
  // The shortest sequence that holds one filler word: 2k + 2.
  int min_length() const { return 2 * symbols + 2; }
  // The token names (filler words w0.., symbols s0.., PASS, QUERY), for checkpoints and messages.
  std::vector<std::string> token_names() const;
};

// One sequence of length n from the stream named by `key`, with p filler words before the passkey
// (p < 0: drawn uniformly in [0, F]). x: [n] tokens read; y: [n] targets, -1 except the last k rows.
void passkey_sequence(const PasskeySpec& spec, uint64_t key, int n, int p, int* x, int* y);
// Filler words before the passkey at depth d (0..1) in a sequence of length n.
int passkey_offset(const PasskeySpec& spec, int n, double depth);

// A window of T tokens under a packing policy (harness/packing.h): documents of the lengths
// window_document_lengths draws (from the stream `key`, with documents at least min_length long),
// each a whole passkey problem (its depth drawn) with its own answer rows; PAD rows (padded) are
// filler word 0 with no target. x, y: [T]; w: the window's coordinates; lengths (optional): the
// documents' lengths; starts (optional): each document's first row. Packing::None is
// passkey_sequence(spec, key, T, -1, x, y) exactly.
void passkey_window(const PasskeySpec& spec, uint64_t key, int T, Packing p, int min_length, int* x, int* y,
                    WindowCoordinates& w, std::vector<int>* lengths = nullptr);
// The training batch of (seed, step) under a packing policy: B windows of T tokens, their
// coordinates appended to `at` (cleared first; empty for none and packed). Packing::None: B sequences of
// length T filling the window, depths drawn uniformly (the passkey task's batches before packing, bit for bit).
void passkey_train_windows(const PasskeySpec& spec, uint64_t seed, int step, int B, int T, Packing p, int min_length,
                           std::vector<int>& x, std::vector<int>& y, BatchCoordinates& at);
// Window i of the shared packed test stream at T tokens (documents laid one after another, as
// Packing::Packed draws them; the caller lays them out under the policy it reads with).
void passkey_test_window(const PasskeySpec& spec, uint64_t test_seed, int T, int min_length, int i, int* x, int* y,
                         std::vector<int>& lengths);
// Test sequence i of the cell (length n, depth index) of the shared test stream named by test_seed.
void passkey_test_sequence(const PasskeySpec& spec, uint64_t test_seed, int n, int depth_index, double depth, int i,
                           int* x, int* y);
// Randomised positions (harness/random_positions.h), each a sorted draw of [0, range): the training batch of
// (seed, step)'s, pos [B, T]; test sequence i of the cell (length n, depth index)'s, pos [n] (the same for
// every reader that draws from the same range).
void passkey_random_positions(uint64_t seed, int step, int B, int T, int range, std::vector<int>& pos);
void passkey_test_positions(uint64_t test_seed, int n, int depth_index, int i, int range, int* pos);

}  // namespace pe
