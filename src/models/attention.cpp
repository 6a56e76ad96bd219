#include "models/attention.h"

#include "core/errors.h"
#include "core/gemm.h"
#include "core/math.h"
#include "core/tensor.h"
#include "core/transpose.h"
#include "models/softmax_lanes.h"

#include <Eigen/Core>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <type_traits>

#ifdef __AVX__
#include <immintrin.h>
#endif

namespace pe {

namespace {
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

// out[t] = q . row(t) for t < n. For 8 floats on AVX (the cue head's logits), eight rows at a time
// turned on their side (lane u holds row t + u): sum_c q[c] row[c] in c order, a multiply then an
// add per term, with no horizontal sum per row; otherwise dot<DH>.
template <int DH, class S, class Row>
inline void row_dots(const S* q, Row row, int n, S* out, int dh) {
  int t = 0;
#ifdef __AVX__
  if constexpr (DH == 8 && std::is_same_v<S, float>) {
    for (; t + 8 <= n; t += 8) {
      __m256 r[8];
      for (int u = 0; u < 8; ++u) r[u] = _mm256_loadu_ps(row(t + u));
      transpose8(r);  // r[c] lane u = row(t + u)[c]
      __m256 acc = _mm256_mul_ps(_mm256_set1_ps(q[0]), r[0]);
      for (int c = 1; c < 8; ++c) acc = _mm256_add_ps(acc, _mm256_mul_ps(_mm256_set1_ps(q[c]), r[c]));
      _mm256_storeu_ps(out + t, acc);
    }
    for (; t < n; ++t) {
      const S* x = row(t);
      S acc = q[0] * x[0];
      for (int c = 1; c < 8; ++c) acc += q[c] * x[c];
      out[t] = acc;
    }
    return;
  }
#endif
  for (; t < n; ++t) out[t] = dot<DH>(q, row(t), dh);
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

// The keys each query row may see. Positions are shared by the batch, so this is decided once per
// call, not once per (sequence, head, query). Query i sees keys[start[i] .. start[i+1]) at positions pos[...].
// first[i] and last[i], row i's lowest and highest key (keys ascend), are kept beside the lists so the
// blocked path can place a row without reading them (at T = 512 they hold 0.5 MB).
struct VisibleSets {
  std::vector<int> start, keys, pos, first, last;
  VisibleSets(const Visibility& vis, const int* qpos, int Tq, const int* kpos, int Tk)
      : start(Tq + 1, 0), first(Tq, 0), last(Tq, -1) {
    for (int i = 0; i < Tq; ++i) {
      for (int j = 0; j < Tk; ++j)
        if (vis.visible(qpos[i], kpos[j])) keys.push_back(j), pos.push_back(kpos[j]);
      start[i + 1] = int(keys.size());
      if (count(i) > 0) first[i] = keys[start[i]], last[i] = keys[start[i + 1] - 1];
    }
  }
  int count(int i) const { return start[i + 1] - start[i]; }
  // Row i sees one contiguous run of keys (a causal mask, with or without a band): no index list needed.
  bool run(int i) const { return count(i) > 0 && last[i] - first[i] == count(i) - 1; }
  const int* keys_of(int i) const { return keys.data() + start[i]; }
  const int* pos_of(int i) const { return pos.data() + start[i]; }
};

// The visible sets for these positions, decided once per thread and reused while the positions and
// the visibility stay the same: every block of a model, forward and backward, asks for the same ones.
const VisibleSets& visible_sets(const Visibility& vis, const int* qpos, int Tq, const int* kpos, int Tk) {
  struct Last {
    Visibility vis;
    std::vector<int> qpos, kpos;
    VisibleSets sets;
  };
  thread_local std::unique_ptr<Last> last;
  const bool same = last && last->vis == vis &&
                    std::equal(qpos, qpos + Tq, last->qpos.begin(), last->qpos.end()) &&
                    std::equal(kpos, kpos + Tk, last->kpos.begin(), last->kpos.end());
  if (!same)
    last.reset(new Last{vis, {qpos, qpos + Tq}, {kpos, kpos + Tk}, VisibleSets(vis, qpos, Tq, kpos, Tk)});
  return last->sets;
}

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
// schemes with score terms) of head h of sequence b, given ds over its nk visible keys: adds into dq, dK and the scheme's gradients.
template <class S, int DH>
void score_row_backward(const AttnShape& sh, const Scheme<S>& scheme, CParamView<S> P, ParamView<S> G, S scale,
                        const AttnRow<S>& row, bool scores, int nk, const int* keys, const KeyOffsets& key_rows, int b,
                        int h, const S* K, const S* q, const S* ds, S* dq, S* dK, const AttnTables<S>& tables) {
  const int dh = DH > 0 ? DH : sh.dh;
  // undoes s += the scheme's terms
  if (scores) scheme.score_backward(P, G, row, ds, dq, grad_rows(sh, row, dK), tables.grads);
  // undoes s_j = scale * q.k_j: dq += scale ds_j k_j, dk_j += scale ds_j q
  accumulate_rows<DH>(nk, [&](int t) { return scale * ds[t]; }, [&](int t) { return K + key_rows(b, h, keys[t]); },
                      dq, dh, true);
  for (int t = 0; t < nk; ++t) axpy<DH>(scale * ds[t], q, dK + key_rows(b, h, keys[t]), dh);
}

// DH > 0: the head width known at compile time (vectorised inner loops); DH = 0: sh.dh at run time.
template <class S, int DH>
void forward_impl(const AttnShape& sh, const S* Q, const S* K, const S* V, const int* qpos, const int* kpos,
                  const Visibility& vis, const Scheme<S>& scheme, CParamView<S> P, S* probs, S* out,
                  const int* kv_index, AttnTables<S> tables) {
  const int dh = DH > 0 ? DH : sh.dh, W = sh.H * dh;
  const bool scores = scheme.acts_on_scores(), values = scheme.acts_on_values();
  const S scale = scheme.content_scale(sh.layer) / std::sqrt(S(dh));
  const VisibleSets& visible = visible_sets(vis, qpos, sh.Tq, kpos, sh.Tk);
  const KeyOffsets key_rows{sh, dh, W, kv_index};
  Eigen::Array<S, Eigen::Dynamic, 1> sc(sh.Tk);  // aligned (softmax_row)
  std::vector<S> pscratch(probs ? 0 : sh.Tk), pv(values ? sh.Tk : 0);
  for (int b = 0; b < sh.B; ++b)
    for (int h = 0; h < sh.H; ++h)
      for (int i = 0; i < sh.Tq; ++i) {
        const S* q = Q + (size_t(b) * sh.Tq + i) * W + size_t(h) * dh;
        S* p = probs ? probs + ((size_t(b) * sh.H + h) * sh.Tq + i) * sh.Tk : pscratch.data();
        const int nk = visible.count(i);
        const int* keys = visible.keys_of(i);
        // s_j = scale * q.k_j  (+ bias)
        for (int t = 0; t < nk; ++t) sc[t] = scale * dot<DH>(q, K + key_rows(b, h, keys[t]), dh);
        AttnRow<S> row;
        if (scores || values) row = hook_row(sh, visible, Q, K, qpos, kv_index, tables, b, h, i);
        if (scores) scheme.score_forward(P, row, sc.data());
        // p = softmax(s) over visible keys; masked keys exactly 0
        softmax_row(sc.data(), nk, sc.data());
        for (int j = 0; j < sh.Tk; ++j) p[j] = 0;
        for (int t = 0; t < nk; ++t) p[keys[t]] = sc[t];
        // o = sum_j p_j v_j
        S* o = out + (size_t(b) * sh.Tq + i) * W + size_t(h) * dh;
        accumulate_rows<DH>(nk, [&](int t) { return p[keys[t]]; }, [&](int t) { return V + key_rows(b, h, keys[t]); },
                            o, dh, false);
        // o += the scheme's value term
        if (values) {
          for (int t = 0; t < nk; ++t) pv[t] = p[keys[t]];
          scheme.value_forward(P, row, pv.data(), o);
        }
      }
}

template <class S, int DH>
void backward_impl(const AttnShape& sh, const S* Q, const S* K, const S* V, const int* qpos, const int* kpos,
                        const Visibility& vis, const Scheme<S>& scheme, CParamView<S> P, ParamView<S> G,
                   const S* probs, const S* dout, S* dQ, S* dK, S* dV, const int* kv_index, AttnTables<S> tables) {
  const int dh = DH > 0 ? DH : sh.dh, W = sh.H * dh;
  const bool scores = scheme.acts_on_scores(), values = scheme.acts_on_values();
  const S scale = scheme.content_scale(sh.layer) / std::sqrt(S(dh));
  const VisibleSets& visible = visible_sets(vis, qpos, sh.Tq, kpos, sh.Tk);
  const KeyOffsets key_rows{sh, dh, W, kv_index};
  std::vector<S> dp(sh.Tk), ds(sh.Tk), pv(sh.Tk);
  for (int b = 0; b < sh.B; ++b)
    for (int h = 0; h < sh.H; ++h)
      for (int i = 0; i < sh.Tq; ++i) {
        const size_t qrow = (size_t(b) * sh.Tq + i) * W + size_t(h) * dh;
        const S* q = Q + qrow;
        const S* go = dout + qrow;
        const S* p = probs + ((size_t(b) * sh.H + h) * sh.Tq + i) * sh.Tk;
        const int nk = visible.count(i);
        const int* keys = visible.keys_of(i);
        AttnRow<S> row;
        if (scores || values) row = hook_row(sh, visible, Q, K, qpos, kv_index, tables, b, h, i);
        // undoes o = sum_j p_j v_j: dp_j = go.v_j, dv_j += p_j go
        for (int t = 0; t < nk; ++t) {
          const size_t krow = key_rows(b, h, keys[t]);
          const S pj = pv[t] = p[keys[t]];
          dp[t] = dot<DH>(go, V + krow, dh);
          axpy<DH>(pj, go, dV + krow, dh);
        }
        // undoes o += the scheme's value term: dp += its share
        if (values) scheme.value_backward(P, G, row, pv.data(), go, dp.data());
        // undoes p = softmax(s)
        softmax_row_backward(pv.data(), dp.data(), nk, ds.data());
        score_row_backward<S, DH>(sh, scheme, P, G, scale, row, scores, nk, keys, key_rows, b, h, K, q, ds.data(),
                                  dQ + qrow, dK, tables);
      }
}

// ---- Looked-up scores (ScoreLookup): one query row per sequence, one head, keys and values read
// through kv_index.
#if defined(__AVX2__)
// Eight sequences b0..b0+7 at a time (floats, kSoftmaxLanes): lane u is sequence b0 + u, and x[t * 8 + u]
// is what sequence b0 + u holds at key t (keys[t]; its row of a [B, Tk] array, its table row
// kv_index[(b0 + u) * Tk + keys[t]]).
struct Lanes8 {
  int Tk, b0, nk;
  const int* keys;
  bool run;  // keys[t] = keys[0] + t
  const int* kv_index;
  int row(int u, int t) const { return kv_index[size_t(b0 + u) * Tk + keys[t]]; }
  // x[t * 8 + u] = a[(b0 + u) * Tk + keys[t]] for a [B, Tk] array a; a run moves 8 x 8 blocks.
  void load(const float* a, float* x) const {
    const float* base = a + size_t(b0) * Tk;
    int t = 0;
    if (run)
      for (; t + 8 <= nk; t += 8) transpose8x8(base + keys[t], size_t(Tk), x + size_t(t) * 8, 8);
    for (; t < nk; ++t)
      for (int u = 0; u < 8; ++u) x[size_t(t) * 8 + u] = base[size_t(u) * Tk + keys[t]];
  }
  // Back: a[(b0 + u) * Tk + keys[t]] = x[t * 8 + u], every other entry of the eight rows 0.
  void store(const float* x, float* a) const {
    float* base = a + size_t(b0) * Tk;
    if (run) {
      for (int u = 0; u < 8; ++u) {
        std::fill_n(base + size_t(u) * Tk, keys[0], 0.0f);
        std::fill(base + size_t(u) * Tk + keys[0] + nk, base + size_t(u + 1) * Tk, 0.0f);
      }
      int t = 0;
      for (; t + 8 <= nk; t += 8) transpose8x8(x + size_t(t) * 8, 8, base + keys[t], size_t(Tk));
      for (; t < nk; ++t)
        for (int u = 0; u < 8; ++u) base[size_t(u) * Tk + keys[t]] = x[size_t(t) * 8 + u];
      return;
    }
    std::fill_n(base, size_t(8) * Tk, 0.0f);
    for (int t = 0; t < nk; ++t)
      for (int u = 0; u < 8; ++u) base[size_t(u) * Tk + keys[t]] = x[size_t(t) * 8 + u];
  }
  // x[t * 8 + u] = table[row(u, t)]: eight of a sequence's keys read into a register, eight sequences
  // turned on their side.
  void gather(const float* table, float* x) const {
    int t = 0;
    for (; t + 8 <= nk; t += 8) {
      __m256 r[8];
      for (int u = 0; u < 8; ++u)
        r[u] = _mm256_setr_ps(table[row(u, t)], table[row(u, t + 1)], table[row(u, t + 2)], table[row(u, t + 3)],
                              table[row(u, t + 4)], table[row(u, t + 5)], table[row(u, t + 6)], table[row(u, t + 7)]);
      transpose8(r);
      for (int k = 0; k < 8; ++k) _mm256_storeu_ps(x + size_t(t + k) * 8, r[k]);
    }
    for (; t < nk; ++t)
      for (int u = 0; u < 8; ++u) x[size_t(t) * 8 + u] = table[row(u, t)];
  }
};

// The forward of eight sequences: s = their looked-up scores, p = softmax8(s) (softmax_row's bits),
// probs rows written as the one-sequence path writes them, o_u = sum_t p_u[t] v(row(u, t)) in key
// order (accumulate_rows' bits), eight independent sums.
template <int DH>
void lookup_forward8(const AttnShape& sh, const float* V, const Lanes8& L, float* probs, float* out,
                     const float* scores, float* p) {
  const int dh = DH > 0 ? DH : sh.dh, nk = L.nk;
  L.gather(scores, p);
  lanes::softmax8(p, nk);
  if (probs) L.store(p, probs);
  if constexpr (DH == 8) {
    __m256 o[8];
    for (int u = 0; u < 8; ++u) o[u] = _mm256_setzero_ps();
    for (int t = 0; t < nk; ++t)
      for (int u = 0; u < 8; ++u)
        o[u] = _mm256_add_ps(o[u], _mm256_mul_ps(_mm256_set1_ps(p[size_t(t) * 8 + u]),
                                                 _mm256_loadu_ps(V + size_t(L.row(u, t)) * 8)));
    for (int u = 0; u < 8; ++u) _mm256_storeu_ps(out + size_t(L.b0 + u) * 8, o[u]);
  } else {
    for (int u = 0; u < 8; ++u)
      accumulate_rows<DH>(nk, [&](int t) { return p[size_t(t) * 8 + u]; },
                          [&](int t) { return V + size_t(L.row(u, t)) * dh; }, out + size_t(L.b0 + u) * dh, dh, false);
  }
}

// Its backward: dp_t = go_u . v(row) (row_dots' bits), ds = softmax8_backward (softmax_row_backward's),
// then dv(row) += p go_u and grads[row] += ds, sequence by sequence in key order as the one-sequence path.
template <int DH>
void lookup_backward8(const AttnShape& sh, const float* V, const Lanes8& L, const float* probs, const float* dout,
                      float* dV, float* grads, float* p, float* d, std::vector<float>& dp) {
  const int dh = DH > 0 ? DH : sh.dh, nk = L.nk;
  L.load(probs, p);
  const float* go = dout + size_t(L.b0) * dh;
  if constexpr (DH == 8) {
    __m256 g[8];
    for (int u = 0; u < 8; ++u) g[u] = _mm256_loadu_ps(go + size_t(u) * 8);
    transpose8(g);  // g[c] lane u = go_u[c]
    for (int t = 0; t < nk; ++t) {
      __m256 r[8];
      for (int u = 0; u < 8; ++u) r[u] = _mm256_loadu_ps(V + size_t(L.row(u, t)) * 8);
      transpose8(r);  // r[c] lane u = v(row(u, t))[c]
      __m256 acc = _mm256_mul_ps(g[0], r[0]);
      for (int c = 1; c < 8; ++c) acc = _mm256_add_ps(acc, _mm256_mul_ps(g[c], r[c]));
      _mm256_storeu_ps(d + size_t(t) * 8, acc);
    }
  } else {
    for (int u = 0; u < 8; ++u) {
      row_dots<DH>(go + size_t(u) * dh, [&](int t) { return V + size_t(L.row(u, t)) * dh; }, nk, dp.data(), dh);
      for (int t = 0; t < nk; ++t) d[size_t(t) * 8 + u] = dp[t];
    }
  }
  lanes::softmax8_backward(p, d, nk);
  for (int u = 0; u < 8; ++u)
    for (int t = 0; t < nk; ++t) {
      const int r = L.row(u, t);
      axpy<DH>(p[size_t(t) * 8 + u], go + size_t(u) * dh, dV + size_t(r) * dh, dh);
      grads[r] += d[size_t(t) * 8 + u];
    }
}
#endif

// One or two sequences at a time (two: their sums o = sum_j p_j v_j, each in key order as
// accumulate_rows, run as two independent chains); eight at a time where the build has the lanes.
template <class S, int DH>
void lookup_forward_impl(const AttnShape& sh, const S* V, const int* qpos, const int* kpos, const Visibility& vis,
                         S* probs, S* out, const int* kv_index, ScoreLookup<S> lookup) {
  const int dh = DH > 0 ? DH : sh.dh;
  const VisibleSets& visible = visible_sets(vis, qpos, 1, kpos, sh.Tk);
  const int nk = visible.count(0);
  const int* keys = visible.keys_of(0);
  int first = 0;
#if defined(__AVX2__)
  if constexpr (std::is_same_v<S, float> && kSoftmaxLanes)
    if (nk > 0 && sh.B >= 8) {
      std::vector<float> p(size_t(nk) * 8);
      for (; first + 8 <= sh.B; first += 8)
        lookup_forward8<DH>(sh, V, Lanes8{sh.Tk, first, nk, keys, visible.run(0), kv_index}, probs, out,
                            lookup.scores, p.data());
    }
#endif
  Eigen::Array<S, Eigen::Dynamic, 1> sc[2] = {Eigen::Array<S, Eigen::Dynamic, 1>(sh.Tk),
                                              Eigen::Array<S, Eigen::Dynamic, 1>(sh.Tk)};  // aligned (softmax_row)
  std::vector<S> pscratch(probs ? 0 : 2 * size_t(sh.Tk));
  for (int b0 = first; b0 < sh.B; b0 += 2) {
    const int nb = std::min(2, sh.B - b0);
    const int* idx[2];
    for (int u = 0; u < nb; ++u) {
      const int b = b0 + u;
      idx[u] = kv_index + size_t(b) * sh.Tk;
      S* s = sc[u].data();
      // s_j = the score of key j's table row; p = softmax(s) over the visible keys, masked keys exactly 0
      for (int t = 0; t < nk; ++t) s[t] = lookup.scores[idx[u][keys[t]]];
      softmax_row(s, nk, s);
      S* p = probs ? probs + size_t(b) * sh.Tk : pscratch.data() + size_t(u) * sh.Tk;
      std::fill_n(p, sh.Tk, S(0));
      for (int t = 0; t < nk; ++t) p[keys[t]] = s[t];
    }
    // o = sum_j p_j v_j
    if constexpr (DH > 0) {
      if (nb == 2) {
        using A = Eigen::Array<S, DH, 1>;
        A o0 = A::Zero(), o1 = A::Zero();
        for (int t = 0; t < nk; ++t) {
          o0 += sc[0][t] * Eigen::Map<const A>(V + size_t(idx[0][keys[t]]) * DH);
          o1 += sc[1][t] * Eigen::Map<const A>(V + size_t(idx[1][keys[t]]) * DH);
        }
        Eigen::Map<A> out0(out + size_t(b0) * DH), out1(out + size_t(b0 + 1) * DH);
        out0 = o0, out1 = o1;
        continue;
      }
    }
    for (int u = 0; u < nb; ++u)
      accumulate_rows<DH>(nk, [&](int t) { return sc[u][t]; }, [&](int t) { return V + size_t(idx[u][keys[t]]) * dh; },
                          out + size_t(b0 + u) * dh, dh, false);
  }
}

// Its backward: dv_j += p_j go, dp_j = go.v_j, ds = the softmax's backward, added at key j's table row.
template <class S, int DH>
void lookup_backward_impl(const AttnShape& sh, const S* V, const int* qpos, const int* kpos, const Visibility& vis,
                          const S* probs, const S* dout, S* dV, const int* kv_index, ScoreLookup<S> lookup) {
  const int dh = DH > 0 ? DH : sh.dh;
  const VisibleSets& visible = visible_sets(vis, qpos, 1, kpos, sh.Tk);
  const int nk = visible.count(0);
  const int* keys = visible.keys_of(0);
  std::vector<S> dp(sh.Tk), pv(sh.Tk);
  int first = 0;
#if defined(__AVX2__)
  if constexpr (std::is_same_v<S, float> && kSoftmaxLanes)
    if (nk > 0 && sh.B >= 8) {
      std::vector<float> p(size_t(nk) * 8), d(size_t(nk) * 8);
      for (; first + 8 <= sh.B; first += 8)
        lookup_backward8<DH>(sh, V, Lanes8{sh.Tk, first, nk, keys, visible.run(0), kv_index}, probs, dout, dV,
                             lookup.grads, p.data(), d.data(), dp);
    }
#endif
  for (int b = first; b < sh.B; ++b) {
    const S* go = dout + size_t(b) * dh;
    const S* p = probs + size_t(b) * sh.Tk;
    const int* idx = kv_index + size_t(b) * sh.Tk;
    // undoes o = sum_j p_j v_j: dp_j = go.v_j, dv_j += p_j go
    row_dots<DH>(go, [&](int t) { return V + size_t(idx[keys[t]]) * dh; }, nk, dp.data(), dh);
    for (int t = 0; t < nk; ++t) {
      pv[t] = p[keys[t]];
      axpy<DH>(pv[t], go, dV + size_t(idx[keys[t]]) * dh, dh);
    }
    // undoes p = softmax(s), then s_j = the score of key j's table row: its gradient adds up there
    softmax_row_backward(pv.data(), dp.data(), nk, dp.data());
    for (int t = 0; t < nk; ++t) lookup.grads[idx[keys[t]]] += dp[t];
  }
}


// ---- The dense path: keys are rows of K/V themselves (no kv_index) and several queries per sequence.
// Query rows are cut into blocks of kQueryBlock. For each block the keys visible to any of its rows span
// [k0, k1); scores, P V and their gradients are GEMMs (core/gemm.h) of a (sequence, head, block) over
// that span only, so a causal mask costs about half the square. K (forward) and V (backward) of a
// (sequence, head) are transposed once, so every product reads its right operand row by row. Softmax
// and the score bias act row by row on the visible keys, as in the row path.
constexpr int kQueryBlock = 32;

struct QueryBlock {
  int q0, q1, k0, k1;  // rows [q0, q1) see keys only inside [k0, k1)
};

std::vector<QueryBlock> query_blocks(const VisibleSets& visible, int Tq) {
  std::vector<QueryBlock> blocks;
  for (int q0 = 0; q0 < Tq; q0 += kQueryBlock) {
    QueryBlock b{q0, std::min(Tq, q0 + kQueryBlock), 0, 0};
    bool any = false;
    for (int i = b.q0; i < b.q1; ++i) {
      if (visible.count(i) == 0) continue;
      const int lo = visible.first[i], hi = visible.last[i] + 1;
      b.k0 = any ? std::min(b.k0, lo) : lo;
      b.k1 = any ? std::max(b.k1, hi) : hi;
      any = true;
    }
    blocks.push_back(b);
  }
  return blocks;
}

// A query block of one (sequence, head) as a scheme's block hooks see it (AttnBlock): its rows, their
// positions, and the keys of its span.
template <class S>
AttnBlock<S> attn_block(const AttnShape& sh, const S* Q, const S* K, const int* qpos, const int* kpos,
                        const AttnTables<S>& tables, const VisibleSets& visible, int b, int h,
                        const QueryBlock& blk) {
  const int W = sh.H * sh.dh;
  AttnBlock<S> a;
  a.layer = sh.layer, a.head = h, a.dh = sh.dh;
  a.nq = blk.q1 - blk.q0, a.q = Q + (size_t(b) * sh.Tq + blk.q0) * W + size_t(h) * sh.dh, a.qpos = qpos + blk.q0;
  a.nk = blk.k1 - blk.k0, a.k = K + (size_t(b) * sh.Tk + blk.k0) * W + size_t(h) * sh.dh, a.kpos = kpos + blk.k0;
  a.ld = size_t(W), a.tables = tables.values, a.span = tables.span;
  a.first = visible.first.data() + blk.q0, a.last = visible.last.data() + blk.q0, a.key0 = blk.k0;
  return a;
}

// n elements of v starting on a 64-byte boundary: a 16-float row of a product's operand then fills one
// cache line instead of straddling two.
template <class S>
S* cache_aligned(std::vector<S>& v, size_t n) {
  constexpr size_t kLine = 64 / sizeof(S);
  v.resize(n + kLine);
  const size_t skip = (kLine - (reinterpret_cast<uintptr_t>(v.data()) / sizeof(S)) % kLine) % kLine;
  return v.data() + skip;
}


// xt[c, j] = x[j, c] for one (sequence, head): x is [rows, dh] with row stride W, xt is [dh, rows]
// with row stride transposed_stride(rows). The padding keeps the stride off multiples of 512 bytes,
// so a product reading a column sliver of xt row by row spreads over the L1 sets.
inline int transposed_stride(int rows) { return rows + 16; }
template <class S>
void transpose_head(const S* x, int rows, int dh, int W, S* xt) {
  const size_t ld = transposed_stride(rows);
  int j0 = 0;
#ifdef __AVX__
  // floats: 8 x 8 tiles through registers (a scalar transpose was a tenth of the forward's own time)
  if constexpr (std::is_same_v<S, float>)
    if (dh % 8 == 0)
      for (; j0 + 8 <= rows; j0 += 8)
        for (int c = 0; c < dh; c += 8) transpose8x8(x + size_t(j0) * W + c, size_t(W), xt + c * ld + j0, ld);
#endif
  for (int j = j0; j < rows; ++j)
    for (int c = 0; c < dh; ++c) xt[c * ld + j] = x[size_t(j) * W + c];
}

// xh[j, c] = x[j, c] for one (sequence, head): the head's rows side by side (row stride dh). A deep
// product (P V, dS K) reads such a copy in place; read from x itself (row stride W, a multiple of
// 512 bytes) it would have to be packed block by block (core/gemm.cpp).
template <class S>
void copy_head(const S* x, int rows, int dh, int W, S* xh) {
  for (int j = 0; j < rows; ++j) std::copy(x + size_t(j) * W, x + size_t(j) * W + dh, xh + size_t(j) * dh);
}

template <class S>
void dense_forward(const AttnShape& sh, const S* Q, const S* K, const S* V, const int* qpos, const int* kpos,
                   const Visibility& vis, const Scheme<S>& scheme, CParamView<S> P, S* probs, S* out,
                   AttnTables<S> tables) {
  const int dh = sh.dh, W = sh.H * dh, Tk = sh.Tk;
  const bool scores = scheme.acts_on_scores(), values = scheme.acts_on_values();
  // a scheme with block hooks adds its terms to the whole scaled block; else row by row
  const bool block = scores && scheme.block_scores(sh.layer), row_hooks = scores && !block;
  const bool vblock = values && scheme.block_values(sh.layer);
  std::vector<S> pv(values ? Tk : 0);
  const S scale = scheme.content_scale(sh.layer) / std::sqrt(S(dh));
  const S row_scale = block ? S(1) : scale;  // a block is scaled before its hook
  const VisibleSets& visible = visible_sets(vis, qpos, sh.Tq, kpos, Tk);
  const auto blocks = query_blocks(visible, sh.Tq);
  const int ldt = transposed_stride(Tk);
  std::vector<S> sc_buf, kt_buf, vh_buf, ps_buf;
  S* sc = cache_aligned(sc_buf, size_t(kQueryBlock) * Tk);
  S* kt = cache_aligned(kt_buf, size_t(dh) * ldt);
  S* vh = cache_aligned(vh_buf, size_t(Tk) * dh);
  // A block's probabilities are written over its key span only (all that o = p v and the backward
  // read): masked keys inside the span get 0, keys outside it are left alone. Without a backward to
  // follow (probs == nullptr) they live in a scratch that stays in cache.
  S* pscratch = probs ? nullptr : cache_aligned(ps_buf, size_t(kQueryBlock) * Tk);
  // The softmax row lives in Eigen-allocated (aligned) memory: Eigen's vectorised exp and sum peel a
  // scalar head up to the first aligned element, so on memory of varying alignment the same row
  // could round differently from run to run (and thread to thread).
  Eigen::Array<S, Eigen::Dynamic, 1> row(Tk);
  for (int b = 0; b < sh.B; ++b)
    for (int h = 0; h < sh.H; ++h) {
      // kt = K^T of this (sequence, head): [dh, Tk]; vh = its V rows: [Tk, dh]
      const size_t head = size_t(b) * Tk * W + size_t(h) * dh;
      transpose_head(K + head, Tk, dh, W, kt);
      copy_head(V + head, Tk, dh, W, vh);
      for (const QueryBlock& blk : blocks) {
        const int nq = blk.q1 - blk.q0, nk = blk.k1 - blk.k0;
        const size_t qoff = (size_t(b) * sh.Tq + blk.q0) * W + size_t(h) * dh;
        S* pblk = probs ? probs + ((size_t(b) * sh.H + h) * sh.Tq + blk.q0) * Tk : pscratch;
        // s = q k^T over the block's key span: [nq, nk]
        gemm(Op::N, Op::N, nq, nk, dh, Q + qoff, W, kt + blk.k0, ldt, sc, nk, false);
        // (+ the scheme's terms, for the whole block)
        if (block && nk > 0) {
          for (size_t e = 0; e < size_t(nq) * nk; ++e) sc[e] *= scale;
          scheme.score_block_forward(P, attn_block(sh, Q, K, qpos, kpos, tables, visible, b, h, blk), sc);
        }
        for (int r = 0; r < nq; ++r) {
          const int i = blk.q0 + r, n = visible.count(i);
          const S* sr = sc + size_t(r) * nk - blk.k0;
          const bool run = visible.run(i);
          const int k_first = visible.first[i];
          if (run)
            row.head(n) = row_scale * Eigen::Map<const Eigen::Array<S, Eigen::Dynamic, 1>>(sr + k_first, n);
          else
            for (int t = 0; t < n; ++t) row[t] = row_scale * sr[visible.keys_of(i)[t]];
          // (+ the scheme's terms, row by row)
          if (row_hooks)
            scheme.score_forward(P, hook_row(sh, visible, Q, K, qpos, nullptr, tables, b, h, i), row.data());
          // p = softmax(scale s + bias) over visible keys; masked keys exactly 0. A run is normalised
          // straight into p; other rows are normalised in place, then scattered.
          S* p = pblk + size_t(r) * Tk;
          if (run) {
            std::fill(p + blk.k0, p + k_first, S(0));
            softmax_row(row.data(), n, p + k_first);
            std::fill(p + k_first + n, p + blk.k1, S(0));
          } else {
            softmax_row(row.data(), n, row.data());
            std::fill(p + blk.k0, p + blk.k1, S(0));
            for (int t = 0; t < n; ++t) p[visible.keys_of(i)[t]] = row[t];
          }
        }
        // o = p v: [nq, dh] (a block that sees no key gets o = 0)
        gemm(Op::N, Op::N, nq, dh, nk, pblk + blk.k0, Tk, vh + size_t(blk.k0) * dh, dh, out + qoff, W, false);
        // o += the scheme's value term (for the whole block, or row by row)
        if (vblock && nk > 0)
          scheme.value_block_forward(P, attn_block(sh, Q, K, qpos, kpos, tables, visible, b, h, blk), pblk + blk.k0, size_t(Tk),
                                     out + qoff);
        else if (values)
          for (int r = 0; r < nq; ++r) {
            const int i = blk.q0 + r, n = visible.count(i);
            const S* p = pblk + size_t(r) * Tk;
            for (int t = 0; t < n; ++t) pv[t] = p[visible.keys_of(i)[t]];
            scheme.value_forward(P, hook_row(sh, visible, Q, K, qpos, nullptr, tables, b, h, i), pv.data(),
                                 out + qoff + size_t(r) * W);
          }
      }
    }
}

template <class S>
void dense_backward(const AttnShape& sh, const S* Q, const S* K, const S* V, const int* qpos, const int* kpos,
                    const Visibility& vis, const Scheme<S>& scheme, CParamView<S> P, ParamView<S> G,
                    const S* probs, const S* dout, S* dQ, S* dK, S* dV, AttnTables<S> tables) {
  const int dh = sh.dh, W = sh.H * dh, Tk = sh.Tk;
  const bool scores = scheme.acts_on_scores(), values = scheme.acts_on_values();
  const bool block = scores && scheme.block_scores(sh.layer), vblock = values && scheme.block_values(sh.layer);
  const S scale = scheme.content_scale(sh.layer) / std::sqrt(S(dh));
  const VisibleSets& visible = visible_sets(vis, qpos, sh.Tq, kpos, Tk);
  const auto blocks = query_blocks(visible, sh.Tq);
  const int ldt = transposed_stride(Tk);
  std::vector<S> ds_buf, vt_buf, kh_buf, row(Tk), pv(values ? Tk : 0);
  S* ds = cache_aligned(ds_buf, size_t(kQueryBlock) * Tk);
  S* vt = cache_aligned(vt_buf, size_t(dh) * ldt);
  S* kh = cache_aligned(kh_buf, size_t(Tk) * dh);
  for (int b = 0; b < sh.B; ++b)
    for (int h = 0; h < sh.H; ++h) {
      // vt = V^T of this (sequence, head): [dh, Tk]; kh = its K rows: [Tk, dh]
      const size_t head = size_t(b) * Tk * W + size_t(h) * dh;
      transpose_head(V + head, Tk, dh, W, vt);
      copy_head(K + head, Tk, dh, W, kh);
      for (const QueryBlock& blk : blocks) {
        const int nq = blk.q1 - blk.q0, nk = blk.k1 - blk.k0;
        if (nk == 0) continue;
        const size_t qoff = (size_t(b) * sh.Tq + blk.q0) * W + size_t(h) * dh;
        const size_t koff = (size_t(b) * Tk + blk.k0) * W + size_t(h) * dh;
        const S* pblk = probs + ((size_t(b) * sh.H + h) * sh.Tq + blk.q0) * Tk;
        const S* go = dout + qoff;
        // undoes o = p v: dp = go v^T [nq, nk], dv += p^T go [nk, dh]
        gemm(Op::N, Op::N, nq, nk, dh, go, W, vt + blk.k0, ldt, ds, nk, false);
        gemm(Op::T, Op::N, nk, dh, nq, pblk + blk.k0, Tk, go, W, dV + koff, W, true);
        // undoes o += the scheme's value term: dp += its share (for the whole block, or row by row)
        if (vblock)
          scheme.value_block_backward(P, G, attn_block(sh, Q, K, qpos, kpos, tables, visible, b, h, blk), pblk + blk.k0,
                                      size_t(Tk), go, ds);
        else if (values)
          for (int r = 0; r < nq; ++r) {
            const int i = blk.q0 + r, n = visible.count(i);
            const int* keys = visible.keys_of(i);
            const S* p = pblk + size_t(r) * Tk;
            S* dpr = ds + size_t(r) * nk - blk.k0;
            for (int t = 0; t < n; ++t) pv[t] = p[keys[t]], row[t] = dpr[keys[t]];
            scheme.value_backward(P, G, hook_row(sh, visible, Q, K, qpos, nullptr, tables, b, h, i), pv.data(),
                                  go + size_t(r) * W, row.data());
            for (int t = 0; t < n; ++t) dpr[keys[t]] = row[t];
          }
        // undoes p = softmax(s) over the block's key span; masked keys have p = 0, so ds = 0
        for (int r = 0; r < nq; ++r)
          softmax_row_backward(pblk + size_t(r) * Tk + blk.k0, ds + size_t(r) * nk, nk, ds + size_t(r) * nk);
        // undoes s += the scheme's terms (for the whole block, or row by row)
        if (block)
          scheme.score_block_backward(P, G, attn_block(sh, Q, K, qpos, kpos, tables, visible, b, h, blk), ds, dQ + qoff,
                                      dK + koff, tables.grads);
        else if (scores)
          for (int r = 0; r < nq; ++r) {
            const int i = blk.q0 + r, n = visible.count(i);
            const int* keys = visible.keys_of(i);
            const S* dsr = ds + size_t(r) * nk - blk.k0;
            for (int t = 0; t < n; ++t) row[t] = dsr[keys[t]];
            const AttnRow<S> hr = hook_row(sh, visible, Q, K, qpos, nullptr, tables, b, h, i);
            scheme.score_backward(P, G, hr, row.data(), dQ + qoff + size_t(r) * W, grad_rows(sh, hr, dK), tables.grads);
          }
        // undoes s = scale q k^T: dq += (scale ds) k [nq, dh], dk += (scale ds)^T q [nk, dh]
        for (size_t e = 0; e < size_t(nq) * nk; ++e) ds[e] *= scale;
        gemm(Op::N, Op::N, nq, dh, nk, ds, nk, kh + size_t(blk.k0) * dh, dh, dQ + qoff, W, true);
        gemm(Op::T, Op::N, nk, dh, nq, ds, nk, Q + qoff, W, dK + koff, W, true);
      }
    }
}

// The head widths with a compiled kernel: f(std::integral_constant<int, DH>) with DH = dh, or 0 (any width).
template <class F>
void by_width(int dh, F&& f) {
  switch (dh) {
    case 8: return f(std::integral_constant<int, 8>{});  // the cue head's logits through looked-up scores
    case 16: return f(std::integral_constant<int, 16>{});
    case 32: return f(std::integral_constant<int, 32>{});
    case 64: return f(std::integral_constant<int, 64>{});
    default: return f(std::integral_constant<int, 0>{});
  }
}

template <class S, int DH>
void scores_impl(const AttnShape& sh, const S* Q, const S* K, const int* qpos, const int* kpos, const Visibility& vis,
                 const Scheme<S>& scheme, CParamView<S> P, S* scores, const int* kv_index, AttnTables<S> tables) {
  const int dh = DH > 0 ? DH : sh.dh, W = sh.H * dh;
  const S scale = scheme.content_scale(sh.layer) / std::sqrt(S(dh));
  const VisibleSets& visible = visible_sets(vis, qpos, sh.Tq, kpos, sh.Tk);
  const KeyOffsets key_rows{sh, dh, W, kv_index};
  std::vector<S> sc(sh.Tk);
  for (int b = 0; b < sh.B; ++b)
    for (int h = 0; h < sh.H; ++h)
      for (int i = 0; i < sh.Tq; ++i) {
        const S* q = Q + (size_t(b) * sh.Tq + i) * W + size_t(h) * dh;
        const int nk = visible.count(i);
        const int* keys = visible.keys_of(i);
        // as forward_impl, operation for operation: s_j = scale * q.k_j (+ the scheme's score terms)
        for (int t = 0; t < nk; ++t) sc[t] = scale * dot<DH>(q, K + key_rows(b, h, keys[t]), dh);
        if (scheme.acts_on_scores())
          scheme.score_forward(P, hook_row(sh, visible, Q, K, qpos, kv_index, tables, b, h, i), sc.data());
        S* out = scores + ((size_t(b) * sh.H + h) * sh.Tq + i) * sh.Tk;
        std::fill_n(out, sh.Tk, -std::numeric_limits<S>::infinity());
        for (int t = 0; t < nk; ++t) out[keys[t]] = sc[t];
      }
}

template <class S, int DH>
void scores_backward_impl(const AttnShape& sh, const S* Q, const S* K, const int* qpos, const int* kpos,
                          const Visibility& vis, const Scheme<S>& scheme, CParamView<S> P, ParamView<S> G,
                          const S* dscores, S* dQ, S* dK, const int* kv_index, AttnTables<S> tables) {
  const int dh = DH > 0 ? DH : sh.dh, W = sh.H * dh;
  const bool scores = scheme.acts_on_scores();
  const S scale = scheme.content_scale(sh.layer) / std::sqrt(S(dh));
  const VisibleSets& visible = visible_sets(vis, qpos, sh.Tq, kpos, sh.Tk);
  const KeyOffsets key_rows{sh, dh, W, kv_index};
  std::vector<S> ds(sh.Tk);
  for (int b = 0; b < sh.B; ++b)
    for (int h = 0; h < sh.H; ++h)
      for (int i = 0; i < sh.Tq; ++i) {
        const size_t qrow = (size_t(b) * sh.Tq + i) * W + size_t(h) * dh;
        const S* dsr = dscores + ((size_t(b) * sh.H + h) * sh.Tq + i) * sh.Tk;
        const int nk = visible.count(i);
        const int* keys = visible.keys_of(i);
        for (int t = 0; t < nk; ++t) ds[t] = dsr[keys[t]];
        AttnRow<S> row;
        if (scores) row = hook_row(sh, visible, Q, K, qpos, kv_index, tables, b, h, i);
        score_row_backward<S, DH>(sh, scheme, P, G, scale, row, scores, nk, keys, key_rows, b, h, K, Q + qrow,
                                  ds.data(), dQ + qrow, dK, tables);
      }
}

}  // namespace

template <class S>
void attention_forward(const AttnShape& sh, const S* Q, const S* K, const S* V, const int* qpos, const int* kpos,
                       const Visibility& vis, const Scheme<S>& scheme, CParamView<S> P, S* probs, S* out,
                       const int* kv_index, AttnTables<S> tables, ScoreLookup<S> lookup) {
  if (lookup.scores) {
    if (!kv_index || sh.Tq != 1 || sh.H != 1 || scheme.acts_on_values())
      throw Error("attention_forward: looked-up scores need a key table (kv_index), one query row, one head and no "
                  "value term");
    return by_width(sh.dh, [&](auto w) {
      lookup_forward_impl<S, decltype(w)::value>(sh, V, qpos, kpos, vis, probs, out, kv_index, lookup);
    });
  }
  if (!kv_index && sh.Tq > 1) return dense_forward(sh, Q, K, V, qpos, kpos, vis, scheme, P, probs, out, tables);
  by_width(sh.dh, [&](auto w) {
    forward_impl<S, decltype(w)::value>(sh, Q, K, V, qpos, kpos, vis, scheme, P, probs, out, kv_index, tables);
  });
}

template <class S>
void attention_backward(const AttnShape& sh, const S* Q, const S* K, const S* V, const int* qpos, const int* kpos,
                        const Visibility& vis, const Scheme<S>& scheme, CParamView<S> P, ParamView<S> G,
                        const S* probs, const S* dout, S* dQ, S* dK, S* dV, const int* kv_index,
                        AttnTables<S> tables, ScoreLookup<S> lookup) {
  if (lookup.grads) {
    if (!kv_index || sh.Tq != 1 || sh.H != 1 || scheme.acts_on_values())
      throw Error("attention_backward: looked-up scores need a key table (kv_index), one query row, one head and no "
                  "value term");
    return by_width(sh.dh, [&](auto w) {
      lookup_backward_impl<S, decltype(w)::value>(sh, V, qpos, kpos, vis, probs, dout, dV, kv_index, lookup);
    });
  }
  if (!kv_index && sh.Tq > 1)
    return dense_backward(sh, Q, K, V, qpos, kpos, vis, scheme, P, G, probs, dout, dQ, dK, dV, tables);
  by_width(sh.dh, [&](auto w) {
    backward_impl<S, decltype(w)::value>(sh, Q, K, V, qpos, kpos, vis, scheme, P, G, probs, dout, dQ, dK, dV,
                                         kv_index, tables);
  });
}

template <class S>
void attention_scores(const AttnShape& sh, const S* Q, const S* K, const int* qpos, const int* kpos,
                      const Visibility& vis, const Scheme<S>& scheme, CParamView<S> P, S* scores,
                      const int* kv_index, AttnTables<S> tables) {
  by_width(sh.dh, [&](auto w) {
    scores_impl<S, decltype(w)::value>(sh, Q, K, qpos, kpos, vis, scheme, P, scores, kv_index, tables);
  });
}

template <class S>
void attention_scores_backward(const AttnShape& sh, const S* Q, const S* K, const int* qpos, const int* kpos,
                               const Visibility& vis, const Scheme<S>& scheme, CParamView<S> P, ParamView<S> G,
                               const S* dscores, S* dQ, S* dK, const int* kv_index, AttnTables<S> tables) {
  by_width(sh.dh, [&](auto w) {
    scores_backward_impl<S, decltype(w)::value>(sh, Q, K, qpos, kpos, vis, scheme, P, G, dscores, dQ, dK, kv_index,
                                                tables);
  });
}


#define PE_ATTENTION(S)                                                                                              \
  template void attention_forward<S>(const AttnShape&, const S*, const S*, const S*, const int*, const int*,          \
                                     const Visibility&, const Scheme<S>&, CParamView<S>, S*, S*, const int*,          \
                                     AttnTables<S>, ScoreLookup<S>);                                                  \
  template void attention_backward<S>(const AttnShape&, const S*, const S*, const S*, const int*, const int*,         \
                                      const Visibility&, const Scheme<S>&, CParamView<S>, ParamView<S>, const S*,     \
                                      const S*, S*, S*, S*, const int*, AttnTables<S>, ScoreLookup<S>);               \
  template void attention_scores<S>(const AttnShape&, const S*, const S*, const int*, const int*, const Visibility&,  \
                                    const Scheme<S>&, CParamView<S>, S*, const int*, AttnTables<S>);                  \
  template void attention_scores_backward<S>(const AttnShape&, const S*, const S*, const int*, const int*,            \
                                             const Visibility&, const Scheme<S>&, CParamView<S>, ParamView<S>,        \
                                             const S*, S*, S*, const int*, AttnTables<S>);
PE_ATTENTION(float)
PE_ATTENTION(double)
#undef PE_ATTENTION

}  // namespace pe
