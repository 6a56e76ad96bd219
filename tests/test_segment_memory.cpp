// Transformer-XL's segment memory (models/block_stack.h, SegmentMemory; the char LM's mem_len): a
// segment read with the cached states of the one before it gives what a forward over both gives at
// its rows (the cache-vs-recompute check), the memory slides as the original's does, a window read in
// segments with a memory holding everything before equals the full read, and the settings that cannot
// hold a memory are refused naming mem_len.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>

#include "core/errors.h"
#include "core/files.h"
#include "core/rng.h"
#include "harness/config.h"
#include "scratch.h"
#include "tasks/charlm/checkpoint.h"
#include "tasks/charlm/training.h"

using namespace pe;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

template <class S>
BlockStackConfig memory_model(const std::string& scheme) {
  BlockStackConfig c;
  c.vocab = 28;
  c.d_model = 32;
  c.n_heads = 4;
  c.n_layers = 3;
  c.embed_init_std = 0.3;  // states that differ from token to token
  c.scheme.name = scheme;
  c.scheme.train_length = 64;
  return c;
}

std::vector<int> tokens(size_t n, uint64_t seed) {
  Rng rng(seed);
  std::vector<int> v(n);
  for (auto& t : v) t = int(rng.below(28));
  return v;
}

// Columns [t0, t0 + n) of B sequences of T tokens.
std::vector<int> columns(const std::vector<int>& x, int B, int T, int t0, int n) {
  std::vector<int> out(size_t(B) * n);
  for (int b = 0; b < B; ++b)
    for (int t = 0; t < n; ++t) out[size_t(b) * n + t] = x[size_t(b) * T + t0 + t];
  return out;
}

// Reads B sequences of 2T tokens whole, then as two segments of T (the second with the first's states
// as its memory), and returns the largest relative difference of the token losses of the segments
// against the whole read's.
template <class S>
double recompute_gap(const std::string& scheme, int B, int T) {
  BlockStack<S> m(memory_model<S>(scheme));
  m.init(3);
  m.prepare(2 * T);
  const std::vector<int> x = tokens(size_t(B) * 2 * T, 41), y = tokens(size_t(B) * 2 * T, 42);
  BlockStackCache<S> whole, seg;
  m.forward(x.data(), y.data(), B, 2 * T, whole);
  std::vector<double> full = whole.token_loss;
  double gap = 0;
  auto compare = [&](int t0) {
    for (int b = 0; b < B; ++b)
      for (int t = 0; t < T; ++t) {
        const double a = seg.token_loss[size_t(b) * T + t], w = full[size_t(b) * 2 * T + t0 + t];
        gap = std::max(gap, std::abs(a - w) / std::max(1e-30, std::abs(w)));
      }
  };
  const std::vector<int> x1 = columns(x, B, 2 * T, 0, T), y1 = columns(y, B, 2 * T, 0, T);
  const std::vector<int> x2 = columns(x, B, 2 * T, T, T), y2 = columns(y, B, 2 * T, T, T);
  m.forward(x1.data(), y1.data(), B, T, seg);
  compare(0);
  std::vector<std::vector<S>> states;
  const int M = m.next_memory(seg, nullptr, B, T, T, states);
  REQUIRE(M == T);
  SegmentMemory<S> mem{M, {}};
  for (auto& s : states) mem.h.push_back(s.data());
  m.forward(x2.data(), y2.data(), B, T, seg, M, Visibility{}, &mem);
  compare(T);
  return gap;
}

}  // namespace

TEST_CASE("cache against recompute: a segment with its predecessor's states as memory gives the whole read's losses") {
  for (auto scheme : {"txl", "rope", "alibi", "t5", "none", "shaw", "deberta", "tupe"}) {
    INFO(std::string(scheme));
    // double: the same up to rounding; float: the same products in the same order, so the same bits,
    // but for txl, whose table R = rho W_R is an Eigen product over the read's span (20 rows for the
    // first segment alone, 40 for the whole read) that may round a row differently
    CHECK(recompute_gap<double>(scheme, 3, 20) < 1e-12);
    const double gap = recompute_gap<float>(scheme, 3, 20);
    CHECK(gap < 1e-6);
    if (std::string(scheme) != "txl") CHECK(gap == 0.0);
  }
}

TEST_CASE("the memory slides: after each segment it holds the last mem_len states before the next") {
  BlockStack<float> m(memory_model<float>("txl"));
  m.init(5);
  const int B = 2, T = 8, mem_len = 20, segments = 5, D = 32;
  m.prepare(mem_len + T);
  const std::vector<int> x = tokens(size_t(B) * T * segments, 7), y = tokens(size_t(B) * T * segments, 8);
  std::vector<std::vector<std::vector<float>>> history(3);  // [layer][b]: every state entering the layer so far
  for (auto& l : history) l.resize(B);
  StreamMemory memory, next;
  BlockStackCache<float> c;
  for (int s = 0; s < segments; ++s) {
    const std::vector<int> xs = columns(x, B, T * segments, s * T, T), ys = columns(y, B, T * segments, s * T, T);
    const SegmentMemory<float> mem = memory.view();
    m.forward(xs.data(), ys.data(), B, T, c, mem.M, Visibility{}, mem.M > 0 ? &mem : nullptr);
    for (int l = 0; l < 3; ++l)
      for (int b = 0; b < B; ++b)
        history[l][b].insert(history[l][b].end(), c.h_in[l].begin() + size_t(b) * T * D,
                             c.h_in[l].begin() + size_t(b + 1) * T * D);
    next.M = m.next_memory(c, mem.M > 0 ? &mem : nullptr, B, T, mem_len, next.h);
    std::swap(memory, next);
    const int seen = (s + 1) * T, expect = std::min(mem_len, seen);
    REQUIRE(memory.M == expect);
    for (int l = 0; l < 3; ++l)
      for (int b = 0; b < B; ++b) {
        const std::vector<float> want(history[l][b].end() - size_t(expect) * D, history[l][b].end());
        const std::vector<float> have(memory.h[l].begin() + size_t(b) * expect * D,
                                      memory.h[l].begin() + size_t(b + 1) * expect * D);
        CHECK(have == want);
      }
  }
}

TEST_CASE("a window read in segments with a memory holding everything before it is the full read") {
  const CharCorpus corpus =
      load_char_corpus(std::string(PEBENCH_SOURCE_DIR) + "/data/timemachine.txt", kTimeMachineSha1);
  for (auto scheme : {"txl", "alibi"}) {
    BlockStack<float> m(memory_model<float>(scheme));
    m.init(9);
    const std::vector<int> lengths = {32, 80, 96};
    const auto full = charlm_perplexities(m, corpus, lengths, 100000, 10, 4);
    const auto segmented = charlm_segment_perplexities(m, corpus, lengths, 100000, 10, 4, 16, 96);
    // a shorter memory reads differently past it
    const auto short_memory = charlm_segment_perplexities(m, corpus, lengths, 100000, 10, 4, 16, 16);
    for (size_t i = 0; i < lengths.size(); ++i) {
      INFO(std::string(scheme), " at ", lengths[i]);
      CHECK(segmented[i].loss == doctest::Approx(full[i].loss).epsilon(1e-6));
      if (lengths[i] > 32) CHECK(std::abs(short_memory[i].loss - full[i].loss) > 1e-4);
    }
    CHECK(short_memory[0].loss == doctest::Approx(full[0].loss).epsilon(1e-6));  // 32 = 16 + a memory of 16
  }
}

TEST_CASE("mem_len trains on consecutive segments with a memory, and is refused where it cannot apply") {
  const std::string dir = pe::test::scratch_path("memory").string();
  fs::remove_all(dir);
  json cfg = default_config("charlm");
  cfg["corpus"] = std::string(PEBENCH_SOURCE_DIR) + "/data/timemachine.txt";
  cfg["runs_dir"] = dir + "/runs";
  cfg["d_model"] = 32;
  cfg["steps"] = 6;
  cfg["batch_size"] = 4;
  cfg["train_length"] = 32;
  cfg["train_windows"] = 256;  // 2 segments per stream: the memory is emptied every other step
  cfg["lr"] = 3e-3;
  cfg["log_every"] = 1;
  cfg["mem_len"] = 32;
  complete_config(cfg);
  const ExperimentConfig e = ExperimentConfig::from_json(cfg);
  const TrainedRun with = train_charlm(e, cfg, "txl", 0);
  const json record = json::parse(read_file(with.run_dir + "/checkpoint.json")).at("training");
  CHECK(record.at("mem_len") == 32);
  json none = cfg;
  none["mem_len"] = 0;
  none["runs_dir"] = dir + "/runs0";
  const TrainedRun without = train_charlm(ExperimentConfig::from_json(none), none, "txl", 0);
  CHECK(read_file(with.run_dir + "/metrics.jsonl") != read_file(without.run_dir + "/metrics.jsonl"));
  CHECK(!json::parse(read_file(without.run_dir + "/checkpoint.json")).at("training").contains("mem_len"));

  // the memory reading: a row per checkpoint read in segments with the memory, labelled so
  json read = cfg;
  read["eval_lengths"] = {32, 64};
  read["val_windows"] = 8;
  const json r = evaluate_charlm({with.run_dir + "/checkpoint.json"}, ExperimentConfig::from_json(read), false);
  REQUIRE(r.at("rows").size() == 2);
  CHECK(r["rows"][1].at("memory") == 32);
  // the first segment has no memory (up to the rounding of txl's R over another span)
  CHECK(r["rows"][0]["perplexity"][0].get<double>() ==
        doctest::Approx(r["rows"][1]["perplexity"][0].get<double>()).epsilon(1e-9));
  CHECK(r["rows"][0]["perplexity"][1] != r["rows"][1]["perplexity"][1]);
  bool labelled = false;
  for (auto& g : r.at("summary")) labelled = labelled || g.at("label") == "txl (memory 32)";
  CHECK(labelled);

  json absolute = cfg;
  CHECK_THROWS_WITH_AS(train_charlm(ExperimentConfig::from_json(absolute), absolute, "sinusoidal", 0),
                       doctest::Contains("mem_len: sinusoidal adds absolute positions"), ConfigError);
  json ordered = cfg;
  ordered["train_order"] = dir + "/order.json";
  CHECK_THROWS_WITH_AS(train_charlm(ExperimentConfig::from_json(ordered), ordered, "txl", 0),
                       doctest::Contains("mem_len: a run with a segment memory"), ConfigError);
  json few = cfg;
  few["train_windows"] = 100;
  CHECK_THROWS_WITH_AS(train_charlm(ExperimentConfig::from_json(few), few, "txl", 0),
                       doctest::Contains("mem_len: 100 training windows cannot hold"), ConfigError);
  fs::remove_all(dir);
}
