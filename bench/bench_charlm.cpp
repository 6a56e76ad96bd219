// Benchmarks of the character LM (issue 4): one training step (forward, backward, AdamW) at B = 64,
// T = 128 and one evaluation batch at B = 16, T = 512, in ms and GFLOP/s. The FLOP counts come from
// the shapes (charlm_step_flops), counting every score of the T x T square as the reference does.
#include <benchmark/benchmark.h>

#include "core/allocator.h"
#include "core/eigen_blocking.h"
#include "core/parallel.h"
#include "core/rng.h"
#include "harness/config.h"
#include "models/block_stack.h"
#include "tasks/charlm/training.h"

namespace {

const bool kAllocatorTuned = (pe::keep_freed_memory(), pe::fix_eigen_blocking(), true);  // as pe-bench's main() does

// The experiment's own model: the charlm defaults (tasks.md section 3) over the 28-symbol vocabulary.
pe::BlockStackConfig model_config(const std::string& scheme) {
  nlohmann::json cfg = pe::default_config("charlm");
  cfg["schemes"] = {scheme};
  pe::complete_config(cfg);
  return pe::charlm_model_config(pe::ExperimentConfig::from_json(cfg), scheme, 28);
}

std::vector<int> random_tokens(size_t n, uint64_t seed) {
  pe::Rng rng(seed);
  std::vector<int> v(n);
  for (auto& t : v) t = rng.below(28);
  return v;
}

// threads: 0 = every core
void BM_CharLMTrainStep(benchmark::State& state, const std::string& scheme, int threads) {
  pe::set_threads(threads);
  state.SetLabel(scheme);
  pe::BlockStack<float> model(model_config(scheme));
  model.init(0);
  pe::BlockStackTrainer trainer(model, pe::AdamConfig{1e-3});
  const int B = 64, T = 128;
  const auto x = random_tokens(size_t(B) * T, 1), y = random_tokens(size_t(B) * T, 2);
  trainer.step(x.data(), y.data(), B, T);  // warm-up: buffers allocated
  for (auto _ : state) benchmark::DoNotOptimize(trainer.step(x.data(), y.data(), B, T));
  const double flops = pe::charlm_step_flops(model.config(), B, T, true);
  state.counters["GFLOP"] = flops * 1e-9;
  state.counters["GFLOP/s"] =
      benchmark::Counter(flops, benchmark::Counter::kIsIterationInvariantRate, benchmark::Counter::kIs1000);
  state.counters["threads"] = pe::max_threads();
}

// One validation batch: B = 16, T = 512, forward only.
void BM_CharLMEvalBatch(benchmark::State& state, const std::string& scheme) {
  pe::set_threads(0);
  state.SetLabel(scheme);
  pe::BlockStack<float> model(model_config(scheme));
  model.init(0);
  const int B = 16, T = 512;
  model.prepare(T);
  const auto x = random_tokens(size_t(B) * T, 3), y = random_tokens(size_t(B) * T, 4);
  std::vector<pe::BlockStackCache<float>> caches(2);
  // the two cores each take half the batch, as charlm_perplexities spreads batches over threads
  double mean[2];
  for (auto _ : state) {
#pragma omp parallel for num_threads(2)
    for (int h = 0; h < 2; ++h)
      pe::charlm_batch_losses(model, x.data() + size_t(h) * 8 * T, y.data() + size_t(h) * 8 * T, 8, T, caches[h],
                              pe::Visibility{}, {T}, &mean[h]);
    benchmark::DoNotOptimize(mean);
  }
  const double flops = pe::charlm_step_flops(model.config(), B, T, false);
  state.counters["GFLOP"] = flops * 1e-9;
  state.counters["GFLOP/s"] =
      benchmark::Counter(flops, benchmark::Counter::kIsIterationInvariantRate, benchmark::Counter::kIs1000);
}
// One chunk of a training step (forward and backward, 4 sequences of 128 tokens, one thread) under a
// batch mode (docs/architecture.md, "The batch model"), at equal token counts:
//   default:  positions 0..127 shared by the batch (what every task runs)
//   per-row:  the same positions given per token (the per-sequence path of the same batch)
//   packed:   4 documents of 32 tokens per sequence, positions restarting at each, isolated
//   bidirectional: every key visible (the model made for it)
void BM_CharLMChunk(benchmark::State& state, const std::string& scheme, const std::string& mode) {
  pe::set_threads(1);
  state.SetLabel(scheme + " " + mode);
  pe::BlockStackConfig cfg = model_config(scheme);
  cfg.scheme.bidirectional = mode == "bidirectional";
  pe::BlockStack<float> model(cfg);
  model.init(0);
  const int B = 4, T = 128;
  model.prepare(T);
  const auto x = random_tokens(size_t(B) * T, 5), y = random_tokens(size_t(B) * T, 6);
  std::vector<int> pos(size_t(B) * T), doc(size_t(B) * T);
  for (int i = 0; i < B * T; ++i) {
    const int t = i % T;
    pos[i] = mode == "packed" ? t % 32 : t;
    doc[i] = t / 32;
  }
  const pe::TokenCoordinates at{pos.data(), mode == "packed" ? doc.data() : nullptr};
  const pe::TokenCoordinates* coords = mode == "per-row" || mode == "packed" ? &at : nullptr;
  const pe::Visibility vis = mode == "bidirectional" ? pe::Visibility::bidirectional() : pe::Visibility{};
  std::vector<float> grad(model.layout().total());
  pe::BlockStackCache<float> cache;
  for (auto _ : state) {
    std::fill(grad.begin(), grad.end(), 0.0f);
    benchmark::DoNotOptimize(
        model.forward_backward(x.data(), y.data(), B, T, grad.data(), cache, 0, vis, 0, nullptr, coords));
  }
}

// One of each per registered scheme (and rope's training step on one thread).
const bool kRegistered = [] {
  for (auto& s : pe::scheme_list())
    benchmark::RegisterBenchmark(("BM_CharLMTrainStep/" + s.name).c_str(), BM_CharLMTrainStep, s.name, 0)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  benchmark::RegisterBenchmark("BM_CharLMTrainStep/rope/threads:1", BM_CharLMTrainStep, std::string("rope"), 1)
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();
  for (const char* scheme : {"rope", "alibi", "t5", "shaw", "txl"})
    for (const char* mode : {"default", "per-row", "packed", "bidirectional"})
      benchmark::RegisterBenchmark(("BM_CharLMChunk/" + std::string(scheme) + "/" + mode).c_str(), BM_CharLMChunk,
                                   std::string(scheme), std::string(mode))
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
  for (auto& s : pe::scheme_list())
    benchmark::RegisterBenchmark(("BM_CharLMEvalBatch/" + s.name).c_str(), BM_CharLMEvalBatch, s.name)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  return true;
}();

}  // namespace
