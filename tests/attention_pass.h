// One attention layer in double, forward and backward, for the tests that hold two attention paths to
// each other (tests/test_block_hooks.cpp, tests/test_length_scaling.cpp): B = 2 sequences of T query
// and key rows at positions p0 .. p0 + T - 1 under `vis`, the scheme's parameters 0.5 N(0, 1) (every
// table non-zero: t5 starts at 0), Q, K, V and dL/dO N(0, 1), all drawn from Rng(seed) in that order,
// and the scheme's derived tables for span T. `path` as attention_forward takes it; row_index: keys
// through an identity kv_index (what chose the row path before paths had names).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

#include "core/params.h"
#include "core/rng.h"
#include "models/attention.h"

namespace pe::test {

struct AttentionPass {
  std::vector<double> out, dQ, dK, dV, grad;
};

inline AttentionPass attention_pass(Scheme<double>& scheme, int T, int p0, const Visibility& vis, uint64_t seed,
                                    AttnPath path = AttnPath::automatic, bool row_index = false) {
  const int B = 2, H = scheme.config().n_heads, dh = scheme.config().d_head, W = H * dh;
  ParamLayout layout;
  scheme.declare(layout);
  std::vector<double> params(layout.total() + 1), grad(layout.total() + 1, 0.0);
  Rng rng(seed);
  for (auto& x : params) x = 0.5 * rng.normal();
  const size_t n = size_t(B) * T * W;
  auto draw = [&] {
    std::vector<double> v(n);
    for (auto& x : v) x = rng.normal();
    return v;
  };
  const std::vector<double> Q = draw(), K = draw(), V = draw(), dO = draw();
  std::vector<int> pos(T), index(size_t(B) * T);
  std::iota(pos.begin(), pos.end(), p0);
  std::iota(index.begin(), index.end(), 0);
  const int* kv = row_index ? index.data() : nullptr;
  scheme.prepare(p0 + T);
  std::vector<double> tables(scheme.tables_size(0, T)), dtables(tables.size(), 0.0);
  const CParamView<double> P{params.data(), &layout};
  if (!tables.empty()) scheme.tables_forward(P, 0, T, tables.data());
  const AttnShape sh{B, T, T, H, dh};
  const Coordinates at{pos.data(), pos.data(), vis};
  AttentionPass r;
  r.out.assign(n, 0.0), r.dQ.assign(n, 0.0), r.dK.assign(n, 0.0), r.dV.assign(n, 0.0);
  std::vector<double> probs(size_t(B) * H * T * T, 0.0);
  attention_forward(sh, Q.data(), K.data(), V.data(), at, scheme, P, probs.data(), r.out.data(), kv,
                    AttnTables<double>{tables.data(), nullptr, T}, {}, path);
  const ParamView<double> G{grad.data(), &layout};
  attention_backward(sh, Q.data(), K.data(), V.data(), at, scheme, P, G, probs.data(), dO.data(), r.dQ.data(),
                     r.dK.data(), r.dV.data(), kv, AttnTables<double>{tables.data(), dtables.data(), T}, {}, path);
  if (!dtables.empty()) scheme.tables_backward(P, G, 0, T, tables.data(), dtables.data());
  r.grad = grad;
  return r;
}

// max |a - b| / max |b|
inline double rel_diff(const std::vector<double>& a, const std::vector<double>& b) {
  double m = 0, s = 0;
  for (size_t i = 0; i < a.size(); ++i) m = std::max(m, std::abs(a[i] - b[i])), s = std::max(s, std::abs(b[i]));
  return m / std::max(s, 1e-300);
}

}  // namespace pe::test
