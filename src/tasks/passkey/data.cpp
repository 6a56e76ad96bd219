#include "tasks/passkey/data.h"

#include <cmath>

#include <fmt/format.h>

#include "core/rng.h"

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

void passkey_train_batch(const PasskeySpec& spec, uint64_t seed, int step, int B, int n, std::vector<int>& x,
                         std::vector<int>& y) {
  x.resize(size_t(B) * n), y.resize(size_t(B) * n);
  for (int b = 0; b < B; ++b)
    passkey_sequence(spec, stream_key({kTagTrain, seed, 0x9A55, uint64_t(step), uint64_t(b)}), n, -1, &x[size_t(b) * n],
                     &y[size_t(b) * n]);
}

void passkey_test_sequence(const PasskeySpec& spec, uint64_t test_seed, int n, int depth_index, double depth, int i,
                           int* x, int* y) {
  passkey_sequence(spec, stream_key({kTagTest, test_seed, 0x9A55, uint64_t(n), uint64_t(depth_index), uint64_t(i)}), n,
                   passkey_offset(spec, n, depth), x, y);
}

}  // namespace pe
