// Cached decoding (models/block_stack_decoder.h): at every step of a 600-token decode with a window
// of 64 keys, the cached logits equal a full recomputation of the same prefix (a forward with a band
// of 64), for every scheme and every map a RoPE model reads with. Tolerance: in double the two agree
// to 1e-9 (only the order of sums differs: the cached query row meets its keys one row at a time, the
// full forward in blocks); in float, to 2e-5 of the largest logit (float's 6e-8 rounding, accumulated
// over the 32-wide products, two blocks and the tied output head). Where a map cannot agree by
// construction the test pins the difference instead: dynamic keeps the keys as they were rotated under
// the base of their step, longrope keeps the keys turned by the short factors before the switch, and
// dynamic-recompute turns the cached keys again but cannot redo the deeper blocks' keys (which were
// computed from the first block's outputs under the old base): exact in a one-block model.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "core/errors.h"
#include "core/rng.h"
#include "models/block_stack.h"
#include "models/block_stack_decoder.h"
#include "schemes/frequency_maps.h"
#include "schemes/scheme.h"

using namespace pe;

namespace {

constexpr int kVocab = 28, kWindow = 64, kTokens = 600;

template <class S>
BlockStack<S> decoder_model(const std::string& scheme, int layers = 2) {
  BlockStackConfig cfg;
  cfg.vocab = kVocab;
  cfg.d_model = 32;
  cfg.n_heads = 2;
  cfg.n_layers = layers;
  cfg.embed_init_std = 0.5;
  cfg.scheme.name = scheme;
  cfg.scheme.train_length = kWindow;
  BlockStack<S> m(cfg);
  m.init(3);
  return m;
}

std::vector<int> tokens(int n) {
  Rng rng(91);
  std::vector<int> x(n);
  for (auto& v : x) v = rng.below(kVocab);
  return x;
}

// The largest |cached - recomputed| logit over the steps [from, to) and the largest |logit|, with
// the recomputation a full forward of each prefix (length-dependent maps: re-planned for its length)
// or, for a plan that does not depend on the length, one forward whose rows are every prefix's
// (causality).
struct Agreement {
  double worst_before = 0, worst_after = 0, largest = 0;
  int steps = 0;
};
template <class S>
Agreement agree(BlockStack<S>& m, const MapSpec& map, int split, bool per_prefix, int n = kTokens) {
  const auto x = tokens(n);
  const std::vector<int> y(n, 0);
  Agreement a;
  m.scheme().read_with(map, kWindow, n);
  BlockStackDecoder<S> dec(m, kWindow, map, kWindow, n);
  std::vector<std::vector<S>> cached;
  for (int t = 0; t < n; ++t) {
    if (!m.scheme().can_read(t)) break;
    const S* lg = dec.step(x[t]);
    cached.emplace_back(lg, lg + kVocab);
  }
  a.steps = int(cached.size());
  BlockStackCache<S> c;
  auto compare = [&](int t, const S* row) {
    for (int v = 0; v < kVocab; ++v) {
      const double d = std::abs(double(cached[t][v]) - double(row[v]));
      (t < split ? a.worst_before : a.worst_after) = std::max(t < split ? a.worst_before : a.worst_after, d);
      a.largest = std::max(a.largest, std::abs(double(row[v])));
    }
  };
  if (!per_prefix) {
    m.scheme().read_with(map, kWindow, n);
    m.prepare(a.steps);
    m.forward(x.data(), y.data(), 1, a.steps, c, 0, Visibility{true, kWindow});
    for (int t = 0; t < a.steps; ++t) compare(t, &c.logits[size_t(t) * kVocab]);
  } else {
    for (int t = 0; t < a.steps; ++t) {
      m.scheme().read_with(map, kWindow, n, t + 1);
      m.prepare(t + 1);
      m.forward(x.data(), y.data(), 1, t + 1, c, 0, Visibility{true, kWindow});
      compare(t, &c.logits[size_t(t) * kVocab]);
    }
  }
  return a;
}

// Feeds the first `prefix` tokens in chunks of the sizes in `chunks` (cycled), then steps one token
// at a time to n; the largest |decoded - full forward| logit over every row, chunk rows included, with
// the full forward one pass of the whole sequence with a band of the window under the plan for n.
template <class S>
Agreement agree_chunked(BlockStack<S>& m, const MapSpec& map, const std::vector<int>& chunks, int prefix, int n) {
  const auto x = tokens(n);
  const std::vector<int> y(n, 0);
  Agreement a;
  BlockStackDecoder<S> dec(m, kWindow, map, kWindow, n);
  std::vector<S> decoded;
  for (size_t k = 0; dec.position() < prefix; ++k) {
    const int t = dec.position(), len = std::min(chunks[k % chunks.size()], prefix - t);
    const S* lg = dec.feed(&x[t], len);
    decoded.insert(decoded.end(), lg, lg + size_t(len) * kVocab);
  }
  while (dec.position() < n) {
    const S* lg = dec.step(x[dec.position()]);
    decoded.insert(decoded.end(), lg, lg + kVocab);
  }
  a.steps = n;
  BlockStackCache<S> c;
  m.scheme().read_with(map, kWindow, n);
  m.prepare(n);
  m.forward(x.data(), y.data(), 1, n, c, 0, Visibility{true, kWindow});
  for (size_t i = 0; i < decoded.size(); ++i) {
    a.worst_before = std::max(a.worst_before, std::abs(double(decoded[i]) - double(c.logits[i])));
    a.largest = std::max(a.largest, std::abs(double(c.logits[i])));
  }
  return a;
}

}  // namespace

TEST_CASE("cached decoding equals recomputation for every scheme (600 tokens, a window of 64)") {
  for (auto& info : scheme_list()) {
    for (bool in_double : {true, false}) {
      Agreement a;
      if (in_double) {
        auto m = decoder_model<double>(info.name);
        a = agree(m, identity_spec(), kTokens, false);
      } else {
        auto m = decoder_model<float>(info.name);
        a = agree(m, identity_spec(), kTokens, false);
      }
      INFO(info.name, in_double ? " double" : " float", ": worst ", a.worst_before, " of largest ", a.largest, " over ",
           a.steps, " steps");
      CHECK(a.largest > 1.0);  // logits that mean something
      CHECK(a.worst_before <= (in_double ? 1e-9 : 2e-5) * a.largest);
      // a table with a last position decodes up to it and refuses the next (never clamps)
      if (info.name == "learned" || info.name == "tupe")
        CHECK(a.steps < kTokens);
      else
        CHECK(a.steps == kTokens);
    }
  }
}

TEST_CASE("a learned table's last position ends cached decoding with a UsageError") {
  auto m = decoder_model<float>("learned");
  BlockStackDecoder<float> dec(m, kWindow, identity_spec(), kWindow);
  const int rows = m.scheme().max_position() + 1;
  for (int t = 0; t < rows; ++t) dec.step(1);
  CHECK_THROWS_WITH_AS(dec.step(1), doctest::Contains("stops before position"), UsageError);
}

TEST_CASE("cached decoding refuses a model made for bidirectional visibility") {
  BlockStackConfig cfg;
  cfg.vocab = kVocab, cfg.d_model = 32, cfg.n_heads = 2;
  cfg.scheme.name = "alibi", cfg.scheme.train_length = kWindow, cfg.scheme.bidirectional = true;
  BlockStack<float> m(cfg);
  m.init(1);
  CHECK_THROWS_WITH_AS(BlockStackDecoder<float>(m, kWindow, identity_spec(), kWindow),
                       doctest::Contains("causal visibility"), UsageError);
}

TEST_CASE("cached decoding equals recomputation for every map a RoPE model reads with") {
  for (const std::string scheme : {"rope", "hybrid"}) {
    std::map<std::string, Agreement> past;
    for (const FrequencyMap& fm : frequency_maps()) {
      const std::string map = fm.takes_value ? fm.name + "=20000" : fm.name;
      auto m = decoder_model<float>(scheme);
      const bool by_construction = !fm.length_dependent;
      // a length-dependent plan changes when the sequence passes the original length (64): step 64
      const Agreement a = agree(m, parse_map(map), by_construction ? kTokens : kWindow, !by_construction);
      INFO(scheme, " ", map, ": worst ", a.worst_before, " (within the original length), ", a.worst_after,
           " (past it) of largest ", a.largest);
      CHECK(a.largest > 1.0);
      CHECK(a.worst_before <= 2e-5 * a.largest);
      if (!by_construction) {
        // dynamic, dynamic-recompute, longrope: the same within the original length, not past it
        CHECK(a.worst_after > 2e-5 * a.largest);
        past[map] = a;
        MESSAGE(scheme, " ", map, ": past the original length the cached logits differ from recomputation by up to ",
                a.worst_after, " (largest logit ", a.largest, ")");
      }
    }
    // turning the cached keys again comes much closer than keeping them (only the deeper block differs)
    CHECK(past["dynamic-recompute"].worst_after * 10 < past["dynamic"].worst_after);
  }
}

TEST_CASE("dynamic-recompute: in one block, turning the cached keys again is a full recomputation") {
  auto m = decoder_model<double>("rope", 1);
  const Agreement again = agree(m, parse_map("dynamic-recompute"), kTokens, true, 200);
  CHECK(again.worst_before <= 1e-9 * again.largest);
  auto m2 = decoder_model<double>("rope", 1);
  const Agreement kept = agree(m2, parse_map("dynamic"), kWindow, true, 200);
  CHECK(kept.worst_after > 1e-3 * kept.largest);  // keeping the old rotations does not
}

TEST_CASE("the cache holds the window: its bytes and its slide") {
  auto m = decoder_model<float>("rope");
  BlockStackDecoder<float> dec(m, kWindow, identity_spec(), kWindow);
  CHECK(dec.cache_bytes() == size_t(2) * kWindow * 32 * sizeof(float) * 2 + kWindow * sizeof(int) * 3);
  for (int t = 0; t < 100; ++t) dec.step(t % kVocab);
  CHECK(dec.cached() == kWindow);
  CHECK(dec.position() == 100);  // positions keep counting past the window
}

TEST_CASE("decoding after a prefix fed in chunks equals recomputation, for every scheme") {
  // chunks shorter than the window, as long as it, longer than it, and single tokens, in a mixed order
  const std::vector<int> chunks{7, 1, 64, 100, 3, 30};
  double worst[2] = {0, 0};  // relative to the largest logit: float, double
  for (auto& info : scheme_list()) {
    for (bool in_double : {true, false}) {
      Agreement a;
      if (in_double) {
        auto m = decoder_model<double>(info.name);
        const int n = m.scheme().max_position() >= 0 ? m.scheme().max_position() + 1 : 320;
        a = agree_chunked(m, identity_spec(), chunks, n * 2 / 3, n);
      } else {
        auto m = decoder_model<float>(info.name);
        const int n = m.scheme().max_position() >= 0 ? m.scheme().max_position() + 1 : 320;
        a = agree_chunked(m, identity_spec(), chunks, n * 2 / 3, n);
      }
      INFO(info.name, in_double ? " double" : " float", ": worst ", a.worst_before, " of largest ", a.largest);
      CHECK(a.largest > 1.0);
      CHECK(a.worst_before <= (in_double ? 1e-9 : 2e-5) * a.largest);
      worst[in_double] = std::max(worst[in_double], a.worst_before / a.largest);
    }
  }
  MESSAGE("chunked prefill then decoding vs the full forward, every scheme: worst ", worst[1],
          " of the largest logit in double, ", worst[0], " in float");
}

TEST_CASE("a prefix fed in chunks equals recomputation under every map a RoPE model reads with") {
  for (const std::string scheme : {"rope", "hybrid"})
    for (const FrequencyMap& fm : frequency_maps()) {
      const std::string map = fm.takes_value ? fm.name + "=20000" : fm.name;
      auto m = decoder_model<float>(scheme);
      // a length-dependent map plans a chunk for its end: one chunk of the whole sequence is the full
      // forward of that length; a map that does not depend on the length takes any chunks
      const Agreement a = fm.length_dependent ? agree_chunked(m, parse_map(map), {200}, 200, 200)
                                              : agree_chunked(m, parse_map(map), {5, 64, 90}, 250, 300);
      INFO(scheme, " ", map, ": worst ", a.worst_before, " of largest ", a.largest);
      CHECK(a.largest > 1.0);
      CHECK(a.worst_before <= 2e-5 * a.largest);
    }
}

TEST_CASE("a cache remembers the reading its keys were made under and refuses another") {
  auto m = decoder_model<float>("rope");
  BlockStackDecoder<float> dec(m, kWindow, parse_map("pi"), kWindow, 256);
  CHECK(dec.reading().find("pi") != std::string::npos);
  CHECK(dec.reading().find("rope") != std::string::npos);
  const int x[3] = {1, 2, 3};
  dec.feed(x, 3);
  dec.step(4);
  // the same reading set again is the same plan: decoding goes on
  m.scheme().read_with(parse_map("pi"), kWindow, 256);
  dec.step(5);
  // another map between steps: the next step and the next chunk are refused, and nothing moves
  m.scheme().read_with(parse_map("yarn"), kWindow, 256);
  CHECK_THROWS_WITH_AS(dec.step(6), doctest::Contains("another plan"), UsageError);
  CHECK_THROWS_WITH_AS(dec.feed(x, 3), doctest::Contains("made under rope"), UsageError);
  CHECK(dec.position() == 5);
  // a scheme without frequencies has no plan to change; an empty chunk and a bad token are refused
  auto a = decoder_model<float>("alibi");
  BlockStackDecoder<float> dec2(a, kWindow, identity_spec(), kWindow);
  CHECK_THROWS_AS(dec2.feed(x, 0), UsageError);
  const int bad[2] = {1, kVocab};
  CHECK_THROWS_WITH_AS(dec2.feed(bad, 2), doctest::Contains("outside the vocabulary"), UsageError);
  CHECK(dec2.position() == 0);
}

TEST_CASE("a chunk that would pass a learned table's last row is refused whole") {
  auto m = decoder_model<float>("learned");
  BlockStackDecoder<float> dec(m, kWindow, identity_spec(), kWindow);
  const int rows = m.scheme().max_position() + 1;
  std::vector<int> x(size_t(rows) + 1, 1);
  CHECK_THROWS_WITH_AS(dec.feed(x.data(), rows + 1), doctest::Contains("stops before position"), UsageError);
  CHECK(dec.position() == 0);
  dec.feed(x.data(), rows);
  CHECK(dec.position() == rows);
}
