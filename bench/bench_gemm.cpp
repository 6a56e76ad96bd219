// The float GEMM (core/gemm.h) against Eigen's product at the character LM's shapes, one thread.
// Shapes: the fused qkv projection of a 2048-token chunk (NN), its backward to the input (NT) and to
// the weights (TN), and one attention block of 32 queries over 128 keys of width 32 (NT).
#include <benchmark/benchmark.h>

#include "core/gemm.h"
#include "core/rng.h"
#include "core/tensor.h"

namespace {

struct Shape {
  const char* name;
  pe::Op opa, opb;
  int M, N, K;
};
const Shape kShapes[] = {
    {"qkv NN 2048x384x128", pe::Op::N, pe::Op::N, 2048, 384, 128},
    {"dh NT 2048x128x384", pe::Op::N, pe::Op::T, 2048, 128, 384},
    {"dW TN 128x384x2048", pe::Op::T, pe::Op::N, 128, 384, 2048},
    {"scores NT 32x128x32", pe::Op::N, pe::Op::T, 32, 128, 32},
    {"pv NN 32x32x128", pe::Op::N, pe::Op::N, 32, 32, 128},
};

struct Operands {
  std::vector<float> a, b, c;
  Operands(const Shape& s) : a(size_t(s.M) * s.K), b(size_t(s.K) * s.N), c(size_t(s.M) * s.N) {
    pe::Rng rng(7);
    for (auto& v : a) v = float(rng.normal());
    for (auto& v : b) v = float(rng.normal());
  }
};

void set_counters(benchmark::State& state, const Shape& s) {
  state.SetLabel(s.name);
  state.counters["GFLOP/s"] = benchmark::Counter(2.0 * s.M * s.N * s.K, benchmark::Counter::kIsIterationInvariantRate,
                                                 benchmark::Counter::kIs1000);
}

void BM_GemmPe(benchmark::State& state) {
  const Shape& s = kShapes[state.range(0)];
  Operands o(s);
  const int lda = s.opa == pe::Op::N ? s.K : s.M, ldb = s.opb == pe::Op::N ? s.N : s.K;
  for (auto _ : state) {
    pe::gemm<float>(s.opa, s.opb, s.M, s.N, s.K, o.a.data(), lda, o.b.data(), ldb, o.c.data(), s.N, false);
    benchmark::DoNotOptimize(o.c.data());
  }
  set_counters(state, s);
}
BENCHMARK(BM_GemmPe)->DenseRange(0, 4);

void BM_GemmEigen(benchmark::State& state) {
  const Shape& s = kShapes[state.range(0)];
  Operands o(s);
  using M = pe::MatMap<float>;
  using CM = pe::CMatMap<float>;
  M c(o.c.data(), s.M, s.N);
  for (auto _ : state) {
    if (s.opa == pe::Op::N && s.opb == pe::Op::N) c.noalias() = CM(o.a.data(), s.M, s.K) * CM(o.b.data(), s.K, s.N);
    if (s.opa == pe::Op::N && s.opb == pe::Op::T)
      c.noalias() = CM(o.a.data(), s.M, s.K) * CM(o.b.data(), s.N, s.K).transpose();
    if (s.opa == pe::Op::T && s.opb == pe::Op::N)
      c.noalias() = CM(o.a.data(), s.K, s.M).transpose() * CM(o.b.data(), s.K, s.N);
    benchmark::DoNotOptimize(o.c.data());
  }
  set_counters(state, s);
}
BENCHMARK(BM_GemmEigen)->DenseRange(0, 4);

}  // namespace
