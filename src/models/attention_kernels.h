// Private to the attention paths (src/models/attention*.cpp): the row helpers they share and each
// path's entry point. One path per file, chosen by name in models/attention.cpp (AttnPath):
//   attention_rows.cpp    the reference: one (sequence, head, query row) at a time, any shape
//   attention_dense.cpp   query blocks of GEMMs, the keys the rows of K/V themselves (no kv_index)
//   attention_lookup.cpp  looked-up scores (ScoreLookup), eight sequences across vector lanes
//   attention_scores.cpp  the scores alone (attention_scores and its backward)
// Every path computes a row's scores, softmax and sums with the helpers below, so where two paths
// agree on an operation they agree on its bits.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <type_traits>
#include <vector>

#include <Eigen/Core>

#include "core/math.h"
#include "models/attention.h"

namespace pe::attn {

// Dot product of two head rows. For a compile-time width Eigen's vectorised reduction is used (a
// fixed summation order, so results are deterministic); plain loops cannot vectorise a reduction
// without fast-math.
template <int DH, class S>
inline S dot(const S* a, const S* b, int n) {
  if constexpr (DH > 0) {
    using V = Eigen::Matrix<S, DH, 1>;
    return Eigen::Map<const V>(a).dot(Eigen::Map<const V>(b));
  } else {
    S acc = 0;
    for (int c = 0; c < n; ++c) acc += a[c] * b[c];
    return acc;
  }
}

// y[c] += a * x[c] for c < n: a multiply then an add per element (never fused), so the vector form
// for a compile-time width gives the bits of the scalar loop; x and y must not overlap.
template <int DH, class S>
inline void axpy(S a, const S* x, S* y, int n) {
  if constexpr (DH > 0) {
    using A = Eigen::Array<S, DH, 1>;
    Eigen::Map<A>(y) += a * Eigen::Map<const A>(x);
  } else {
    for (int c = 0; c < n; ++c) y[c] += a * x[c];
  }
}

// y = (add ? y : 0) + a(0) x(0) + a(1) x(1) + ... + a(n-1) x(n-1), the terms added in that order, each
// a multiply then an add (axpy's bits); for a compile-time width the sum stays in registers instead
// of going through memory once per term.
template <int DH, class S, class Coef, class Row>
inline void accumulate_rows(int n, Coef a, Row x, S* y, int dh, bool add) {
  if constexpr (DH > 0) {
    using A = Eigen::Array<S, DH, 1>;
    A acc = add ? A(Eigen::Map<const A>(y)) : A::Zero();
    for (int t = 0; t < n; ++t) acc += a(t) * Eigen::Map<const A>(x(t));
    Eigen::Map<A> out(y);
    out = acc;
  } else {
    if (!add) std::fill_n(y, dh, S(0));
    for (int t = 0; t < n; ++t) axpy<DH>(a(t), x(t), y, dh);
  }
}

// Where head h of key j of sequence b starts: row b*Tk + j of K/V, or row kv_index[b*Tk + j] of a table.
struct KeyOffsets {
  const AttnShape& sh;
  int dh, W;
  const int* kv_index;
  size_t operator()(int b, int h, int j) const {
    const size_t r = kv_index ? size_t(kv_index[size_t(b) * sh.Tk + j]) : size_t(b) * sh.Tk + j;
    return r * W + size_t(h) * dh;
  }
};

// The keys each query row of one sequence may see. Query i sees keys[start[i] .. start[i+1]) at
// positions pos[...]. first[i] and last[i], row i's lowest and highest key (keys ascend), are kept
// beside the lists so the blocked path can place a row without reading them (at T = 512 they hold 0.5 MB).
struct VisibleSets {
  std::vector<int> start, keys, pos, first, last;
  // Sequence b of a batch with coordinates `at` (Coordinates: positions, documents, visibility).
  VisibleSets(const Coordinates& at, int b, int Tq, int Tk) : start(Tq + 1, 0), first(Tq, 0), last(Tq, -1) {
    const int *qpos = at.q_of(b, Tq), *kpos = at.k_of(b, Tk);
    const int* qseg = at.qseg ? at.qseg + size_t(b) * Tq : nullptr;
    const int* kseg = at.kseg ? at.kseg + size_t(b) * Tk : nullptr;
    for (int i = 0; i < Tq; ++i) {
      const int doc = qseg ? qseg[i] : 0;
      for (int j = 0; doc >= 0 && j < Tk; ++j)
        if ((kseg ? kseg[j] : 0) == doc && at.vis.visible(qpos[i], kpos[j])) keys.push_back(j), pos.push_back(kpos[j]);
      start[i + 1] = int(keys.size());
      if (count(i) > 0) first[i] = keys[start[i]], last[i] = keys[start[i + 1] - 1];
    }
  }
  int count(int i) const { return start[i + 1] - start[i]; }
  // Row i sees one contiguous run of keys (a causal mask, with or without a band): no index list needed.
  bool run(int i) const { return count(i) > 0 && last[i] - first[i] == count(i) - 1; }
  // Every row sees one run of keys, or none (the dense path then gives a contextual scheme its block hooks).
  bool all_runs() const {
    for (int i = 0; i + 1 < int(start.size()); ++i)
      if (count(i) > 0 && !run(i)) return false;
    return true;
  }
  const int* keys_of(int i) const { return keys.data() + start[i]; }
  const int* pos_of(int i) const { return pos.data() + start[i]; }
};

// The visible sets of every sequence of a batch: one set when the coordinates are shared
// (Coordinates::shared), else one per distinct sequence (sequences with the same positions and
// documents share theirs).
struct BatchVisibleSets {
  std::vector<VisibleSets> sets;
  std::vector<int> of_row;  // [B]: sequence b's set; empty: every sequence reads sets[0]
  const VisibleSets& operator[](int b) const { return sets[of_row.empty() ? 0 : of_row[b]]; }
};

// The visible sets for these coordinates, decided once per thread and reused while the coordinates
// stay the same: every block of a model, forward and backward, asks for the same ones
// (models/attention.cpp; the last two kept, for models whose layers differ in visibility).
const BatchVisibleSets& visible_sets(const Coordinates& at, const AttnShape& sh);

// What the score and value hooks see of query row i of head h of sequence b: keys are rows of K
// (through kv_index when given).
template <class S>
AttnRow<S> hook_row(const AttnShape& sh, const VisibleSets& visible, const S* Q, const S* K, const int* qpos,
                    const int* kv_index, const AttnTables<S>& tables, int b, int h, int i) {
  const int W = sh.H * sh.dh;
  AttnRow<S> r;
  r.layer = sh.layer, r.head = h, r.dh = sh.dh, r.qpos = qpos[i];
  r.q = Q + (size_t(b) * sh.Tq + i) * W + size_t(h) * sh.dh;
  r.nk = visible.count(i), r.kpos = visible.pos_of(i);
  r.keys = {K + size_t(h) * sh.dh, size_t(W), visible.keys_of(i), kv_index ? kv_index + size_t(b) * sh.Tk : nullptr,
            size_t(b) * sh.Tk};
  r.tables = tables.values, r.span = tables.span;
  return r;
}
// The same rows of a gradient buffer shaped like K.
template <class S>
KeyRows<S> grad_rows(const AttnShape& sh, const AttnRow<S>& r, S* dK) {
  return {dK + size_t(r.head) * sh.dh, r.keys.stride, r.keys.keys, r.keys.index, r.keys.first};
}

// The one softmax of attention, shared by the row path and the dense path.
// x: [n] scores of one query row's visible keys, in memory Eigen allocated (aligned: Eigen's
// vectorised max and sum peel a scalar head up to the first aligned element, so on memory of varying
// alignment the same row could round differently). out[t] = exp(x[t] - max) / sum; x is clobbered;
// out may be x. n = 0 writes nothing.
template <class S>
void softmax_row(S* x, int n, S* out) {
  if (n == 0) return;
  auto a = Eigen::Map<Eigen::Array<S, Eigen::Dynamic, 1>>(x, n);
  a -= a.maxCoeff();
  math::exp_inplace(x, n);
  const S inv = S(1) / a.sum();
  Eigen::Map<Eigen::Array<S, Eigen::Dynamic, 1>>(out, n) = a * inv;
}

// Log-length scaling (Scheme::length_scale, the reading logn): x[t] *= g for t < entries, g that of a
// query row that sees n_visible keys; a reading without it (g = 1) leaves the row untouched. The
// backward calls it on dL/d(scaled logit) to give dL/d(logit). Every path scales after the scheme's
// score terms and before the softmax, so they agree bit for bit. (The multiply lives out of line, so a
// reading without it costs the hot loops one compare.)
template <class S>
[[gnu::noinline, gnu::cold]] void scale_row(S g, int n, S* x) {
  for (int t = 0; t < n; ++t) x[t] *= g;
}
template <class S>
inline void length_scale_row(const Scheme<S>& scheme, int n_visible, S* x, int entries) {
  if (scheme.length_scaling() == 0) [[likely]]
    return;
  const S g = scheme.length_scale(n_visible);
  if (g != S(1)) scale_row(g, entries, x);
}
// A row of exactly its n visible logits.
template <class S>
inline void length_scale_row(const Scheme<S>& scheme, int n, S* x) {
  length_scale_row(scheme, n, x, n);
}

// Its backward: ds[t] = p[t] (dp[t] - sum_k p[k] dp[k]) over n entries (ds may be dp). Plain loops
// with eight running sums: the order must not depend on the alignment of the buffers.
template <class S>
void softmax_row_backward(const S* p, const S* dp, int n, S* ds) {
  S acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  int j = 0;
  for (; j + 8 <= n; j += 8)
    for (int u = 0; u < 8; ++u) acc[u] += p[j + u] * dp[j + u];
  S c = 0;
  for (int u = 0; u < 8; ++u) c += acc[u];
  for (; j < n; ++j) c += p[j] * dp[j];
  for (int k = 0; k < n; ++k) ds[k] = p[k] * (dp[k] - c);
}

// Undoes one query row's scores s_j = scale * q.k_j + the scheme's terms (row: its hook view, for
// schemes with score terms) of head h of sequence b, given ds over its nk visible keys: adds into dq,
// dK and the scheme's gradients. (The row path's backward and the scores' backward.)
template <class S, int DH>
void score_row_backward(const AttnShape& sh, const Scheme<S>& scheme, CParamView<S> P, ParamView<S> G, S scale,
                        const AttnRow<S>& row, bool scores, int nk, const int* keys, const KeyOffsets& key_rows, int b,
                        int h, const S* K, const S* q, const S* ds, S* dq, S* dK, const AttnTables<S>& tables) {
  const int dh = DH > 0 ? DH : sh.dh;
  // undoes s += the scheme's terms
  if (scores) scheme.score_backward(P, G, row, ds, dq, grad_rows(sh, row, dK), tables.grads);
  // undoes s_j = scale * q.k_j: dq += scale ds_j k_j, dk_j += scale ds_j q
  accumulate_rows<DH>(
      nk, [&](int t) { return scale * ds[t]; }, [&](int t) { return K + key_rows(b, h, keys[t]); }, dq, dh, true);
  for (int t = 0; t < nk; ++t) axpy<DH>(scale * ds[t], q, dK + key_rows(b, h, keys[t]), dh);
}

// The head widths with a compiled kernel: f(std::integral_constant<int, DH>) with DH = dh, or 0 (any width).
template <class F>
void by_width(int dh, F&& f) {
  switch (dh) {
    case 8:
      return f(std::integral_constant<int, 8>{});  // the cue head's logits through looked-up scores
    case 16:
      return f(std::integral_constant<int, 16>{});
    case 32:
      return f(std::integral_constant<int, 32>{});
    case 64:
      return f(std::integral_constant<int, 64>{});
    default:
      return f(std::integral_constant<int, 0>{});
  }
}

// ---- The paths' entry points (their arguments as attention_forward's and attention_backward's).

// attention_rows.cpp: the reference path, any shape, keys through kv_index when given.
template <class S>
void rows_forward(const AttnShape& sh, const S* Q, const S* K, const S* V, const Coordinates& at,
                  const Scheme<S>& scheme, CParamView<S> P, S* probs, S* out, const int* kv_index,
                  AttnTables<S> tables);
template <class S>
void rows_backward(const AttnShape& sh, const S* Q, const S* K, const S* V, const Coordinates& at,
                   const Scheme<S>& scheme, CParamView<S> P, ParamView<S> G, const S* probs, const S* dout, S* dQ,
                   S* dK, S* dV, const int* kv_index, AttnTables<S> tables);

// attention_dense.cpp: keys are rows of K/V (no kv_index).
template <class S>
void dense_forward(const AttnShape& sh, const S* Q, const S* K, const S* V, const Coordinates& at,
                   const Scheme<S>& scheme, CParamView<S> P, S* probs, S* out, AttnTables<S> tables);
template <class S>
void dense_backward(const AttnShape& sh, const S* Q, const S* K, const S* V, const Coordinates& at,
                    const Scheme<S>& scheme, CParamView<S> P, ParamView<S> G, const S* probs, const S* dout, S* dQ,
                    S* dK, S* dV, AttnTables<S> tables);

// attention_lookup.cpp: looked-up scores (kv_index, one query row, one head; checked by the caller).
template <class S>
void lookup_forward(const AttnShape& sh, const S* V, const Coordinates& at, S* probs, S* out, const int* kv_index,
                    ScoreLookup<S> lookup);
template <class S>
void lookup_backward(const AttnShape& sh, const S* V, const Coordinates& at, const S* probs, const S* dout, S* dV,
                     const int* kv_index, ScoreLookup<S> lookup);

}  // namespace pe::attn
