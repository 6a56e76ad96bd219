// Cached decoding (issue 25): the char LM's RoPE model decoding one token with n keys in its cache
// (n = 128, 512, 2048; the window full, so every step slides it and the occupancy stays n), in
// ms/token, with the cache's bytes, the cost per cached key, and the ratio of a recomputation (one
// forward over the n-token window per new token, what decoding without a cache does) to the cached step,
// and the share of a step spent checking the cache's reading (plan_check/step). BM_Prefill: a prompt fed
// as one chunk against token by token.
#include <benchmark/benchmark.h>

#include <chrono>

#include "core/allocator.h"
#include "core/eigen_blocking.h"
#include "core/parallel.h"
#include "core/rng.h"
#include "harness/config.h"
#include "models/block_stack.h"
#include "models/block_stack_decoder.h"
#include "tasks/charlm/training.h"

namespace {

const bool kAllocatorTuned = (pe::keep_freed_memory(), pe::fix_eigen_blocking(), true);

pe::BlockStackConfig decode_model_config() {
  nlohmann::json cfg = pe::default_config("charlm");
  cfg["schemes"] = {"rope"};
  pe::complete_config(cfg);
  return pe::charlm_model_config(pe::ExperimentConfig::from_json(cfg), "rope", 28);
}

void BM_CachedDecode(benchmark::State& state) {
  pe::set_threads(1);
  const int n = int(state.range(0));
  pe::BlockStack<float> model(decode_model_config());
  model.init(0);
  pe::Rng rng(5);
  pe::BlockStackDecoder<float> dec(model, n, pe::identity_spec(), 128, n);
  for (int t = 0; t < n; ++t) dec.step(rng.below(28));  // fill the cache
  for (auto _ : state) benchmark::DoNotOptimize(dec.step(rng.below(28)));
  // a recomputation of the n-token window per token, timed over a few tokens
  std::vector<int> x(n), y(n, 0);
  for (auto& v : x) v = rng.below(28);
  pe::BlockStackCache<float> cache;
  model.prepare(dec.position() + n);
  const int reps = 3;
  const auto t0 = std::chrono::steady_clock::now();
  for (int r = 0; r < reps; ++r) model.forward(x.data(), y.data(), 1, n, cache, dec.position());
  const double recompute = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / reps;
  const auto t1 = std::chrono::steady_clock::now();
  const int steps = 64;
  for (int r = 0; r < steps; ++r) benchmark::DoNotOptimize(dec.step(rng.below(28)));
  const double cached = std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count() / steps;
  state.counters["cached_keys"] = n;
  state.counters["cache_MB"] = double(dec.cache_bytes()) / 1e6;
  state.counters["us/key"] = 1e6 * cached / n;
  state.counters["recompute/cached"] = recompute / cached;
  // what a step spends checking that the scheme still reads with the cache's plan (its plans copied)
  const auto t2 = std::chrono::steady_clock::now();
  const int checks = 1000;
  for (int r = 0; r < checks; ++r) benchmark::DoNotOptimize(model.scheme().frequency_plans());
  const double check = std::chrono::duration<double>(std::chrono::steady_clock::now() - t2).count() / checks;
  state.counters["plan_check/step"] = check / cached;
}

// A prompt of n tokens into an empty cache of n keys: fed as one chunk (BlockStackDecoder::feed, the
// timed loop) against one token at a time (steps/chunk: how many times longer n steps take).
void BM_Prefill(benchmark::State& state) {
  pe::set_threads(1);
  const int n = int(state.range(0));
  pe::BlockStack<float> model(decode_model_config());
  model.init(0);
  pe::Rng rng(6);
  std::vector<int> x(n);
  for (auto& v : x) v = rng.below(28);
  for (auto _ : state) {
    pe::BlockStackDecoder<float> dec(model, n, pe::identity_spec(), 128, n);
    benchmark::DoNotOptimize(dec.feed(x.data(), n));
  }
  const auto t0 = std::chrono::steady_clock::now();
  const int reps = 3;
  for (int r = 0; r < reps; ++r) {
    pe::BlockStackDecoder<float> dec(model, n, pe::identity_spec(), 128, n);
    for (int t = 0; t < n; ++t) benchmark::DoNotOptimize(dec.step(x[t]));
  }
  const double stepped = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / reps;
  const auto t1 = std::chrono::steady_clock::now();
  for (int r = 0; r < reps; ++r) {
    pe::BlockStackDecoder<float> dec(model, n, pe::identity_spec(), 128, n);
    benchmark::DoNotOptimize(dec.feed(x.data(), n));
  }
  const double chunked = std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count() / reps;
  state.counters["steps/chunk"] = stepped / chunked;
}

BENCHMARK(BM_CachedDecode)->Arg(128)->Arg(512)->Arg(2048)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Prefill)->Arg(128)->Arg(512)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
