#include "tasks/passkey/data.h"

#include <cmath>

#include <fmt/format.h>

#include "core/rng.h"
#include "harness/random_positions.h"

namespace pe {

std::vector<std::string> PasskeySpec::token_names() const {
  std::vector<std::string> names;
  for (int w = 0; w < filler; ++w) names.push_back(fmt::format("w{}", w));
  for (int a = 0; a < alphabet; ++a) names.push_back(fmt::format("s{}", a));
  names.push_back("PASS");
  names.push_back("QUERY");
  return names;
}

int passkey_offset(const PasskeySpec& spec, int n, double depth) {
  const int F = n - 1 - 2 * spec.symbols;
  return int(std::lround(depth * F));
}

void passkey_sequence(const PasskeySpec& spec, uint64_t key, int n, int p, int* x, int* y) {
  Rng rng(key);
  const int k = spec.symbols, F = n - 1 - 2 * k;
  if (p < 0) p = rng.below(F + 1);
  // the passkey: k distinct symbols (a partial Fisher-Yates draw)
  std::vector<int> pool(spec.alphabet);
  for (int a = 0; a < spec.alphabet; ++a) pool[a] = a;
  std::vector<int> key_symbols(k);
  for (int i = 0; i < k; ++i) {
    const int j = i + rng.below(spec.alphabet - i);
    std::swap(pool[i], pool[j]);
    key_symbols[i] = spec.filler + pool[i];
  }
  // t[0..n]: filler, PASS s_1..s_k, filler, QUERY s_1..s_k
  std::vector<int> t;
  t.reserve(n + 1);
  for (int i = 0; i < p; ++i) t.push_back(rng.below(spec.filler));
  t.push_back(spec.pass_token());
  for (int s : key_symbols) t.push_back(s);
  for (int i = p; i < F; ++i) t.push_back(rng.below(spec.filler));
  t.push_back(spec.query_token());
  for (int s : key_symbols) t.push_back(s);
  for (int i = 0; i < n; ++i) {
    x[i] = t[i];
    y[i] = i >= n - k ? t[i + 1] : -1;
  }
}

void passkey_window(const PasskeySpec& spec, uint64_t key, int T, Packing p, int min_length, int* x, int* y,
                    WindowCoordinates& w, std::vector<int>* lengths) {
  if (p == Packing::None) {
    passkey_sequence(spec, key, T, -1, x, y);
    w = {};
    if (lengths) *lengths = {T};
    return;
  }
  Rng rng(stream_key({key, 0xD0C5}));
  const std::vector<int> docs = window_document_lengths(p, rng, T, min_length);
  int row = 0;
  for (size_t d = 0; d < docs.size(); ++d) {
    passkey_sequence(spec, stream_key({key, 0xD0C5, uint64_t(d) + 1}), docs[d], -1, x + row, y + row);
    row += docs[d];
  }
  for (; row < T; ++row) x[row] = 0, y[row] = -1;  // PAD
  w = lay_out_window(p, docs, T);
  if (lengths) *lengths = docs;
}

void passkey_train_windows(const PasskeySpec& spec, uint64_t seed, int step, int B, int T, Packing p, int min_length,
                           std::vector<int>& x, std::vector<int>& y, BatchCoordinates& at) {
  x.resize(size_t(B) * T), y.resize(size_t(B) * T);
  at.clear();
  WindowCoordinates w;
  for (int b = 0; b < B; ++b) {
    passkey_window(spec, stream_key({kTagTrain, seed, 0x9A55, uint64_t(step), uint64_t(b)}), T, p, min_length,
                   &x[size_t(b) * T], &y[size_t(b) * T], w);
    at.append(w);
  }
}

void passkey_test_window(const PasskeySpec& spec, uint64_t test_seed, int T, int min_length, int i, int* x, int* y,
                         std::vector<int>& lengths) {
  WindowCoordinates w;
  passkey_window(spec, stream_key({kTagTest, test_seed, 0x9A55, 0xAC4ED, uint64_t(T), uint64_t(i)}), T, Packing::Packed,
                 min_length, x, y, w, &lengths);
}

void passkey_test_sequence(const PasskeySpec& spec, uint64_t test_seed, int n, int depth_index, double depth, int i,
                           int* x, int* y) {
  passkey_sequence(spec, stream_key({kTagTest, test_seed, 0x9A55, uint64_t(n), uint64_t(depth_index), uint64_t(i)}), n,
                   passkey_offset(spec, n, depth), x, y);
}

void passkey_random_positions(uint64_t seed, int step, int B, int T, int range, std::vector<int>& pos) {
  draw_batch_positions(seed, 0x9A55, step, B, T, range, pos);
}

void passkey_test_positions(uint64_t test_seed, int n, int depth_index, int i, int range, int* pos) {
  sample_positions(stream_key({kTagTest, test_seed, 0x9A55, 0x7A4D, uint64_t(n), uint64_t(depth_index), uint64_t(i),
                               uint64_t(range)}),
                   n, range, pos);
}

}  // namespace pe
