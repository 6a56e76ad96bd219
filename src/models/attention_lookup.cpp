// The looked-up scores path of attention (ScoreLookup): one query row per sequence, one head, keys and
// values read through kv_index, the score of a key its table row's. Eight sequences at a time across
// the lanes of an AVX2 register where the build has them (models/softmax_lanes.h), the rest one or
// two at a time: the same bits either way (tests/test_attention_float.cpp).
#include <algorithm>
#include <cstddef>
#include <type_traits>
#include <vector>

#include <Eigen/Core>

#include "core/transpose.h"
#include "models/attention_kernels.h"
#include "models/softmax_lanes.h"

#ifdef __AVX__
#include <immintrin.h>
#endif

namespace pe::attn {

namespace {

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
        o[u] = _mm256_add_ps(
            o[u], _mm256_mul_ps(_mm256_set1_ps(p[size_t(t) * 8 + u]), _mm256_loadu_ps(V + size_t(L.row(u, t)) * 8)));
    for (int u = 0; u < 8; ++u) _mm256_storeu_ps(out + size_t(L.b0 + u) * 8, o[u]);
  } else {
    for (int u = 0; u < 8; ++u)
      accumulate_rows<DH>(
          nk, [&](int t) { return p[size_t(t) * 8 + u]; }, [&](int t) { return V + size_t(L.row(u, t)) * dh; },
          out + size_t(L.b0 + u) * dh, dh, false);
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
      row_dots<DH>(
          go + size_t(u) * dh, [&](int t) { return V + size_t(L.row(u, t)) * dh; }, nk, dp.data(), dh);
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
void lookup_forward_impl(const AttnShape& sh, const S* V, const Coordinates& at, S* probs, S* out, const int* kv_index,
                         ScoreLookup<S> lookup) {
  const int dh = DH > 0 ? DH : sh.dh;
  const VisibleSets& visible = visible_sets(at, sh)[0];  // shared by the batch (checked by the caller)
  const int nk = visible.count(0);
  const int* keys = visible.keys_of(0);
  int first = 0;
#if defined(__AVX2__)
  if constexpr (std::is_same_v<S, float> && kSoftmaxLanes)
    if (nk > 0 && sh.B >= 8) {
      std::vector<float> p(size_t(nk) * 8);
      for (; first + 8 <= sh.B; first += 8)
        lookup_forward8<DH>(sh, V, Lanes8{sh.Tk, first, nk, keys, visible.run(0), kv_index}, probs, out, lookup.scores,
                            p.data());
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
      accumulate_rows<DH>(
          nk, [&](int t) { return sc[u][t]; }, [&](int t) { return V + size_t(idx[u][keys[t]]) * dh; },
          out + size_t(b0 + u) * dh, dh, false);
  }
}

// Its backward: dv_j += p_j go, dp_j = go.v_j, ds = the softmax's backward, added at key j's table row.
template <class S, int DH>
void lookup_backward_impl(const AttnShape& sh, const S* V, const Coordinates& at, const S* probs, const S* dout, S* dV,
                          const int* kv_index, ScoreLookup<S> lookup) {
  const int dh = DH > 0 ? DH : sh.dh;
  const VisibleSets& visible = visible_sets(at, sh)[0];  // shared by the batch (checked by the caller)
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
    row_dots<DH>(
        go, [&](int t) { return V + size_t(idx[keys[t]]) * dh; }, nk, dp.data(), dh);
    for (int t = 0; t < nk; ++t) {
      pv[t] = p[keys[t]];
      axpy<DH>(pv[t], go, dV + size_t(idx[keys[t]]) * dh, dh);
    }
    // undoes p = softmax(s), then s_j = the score of key j's table row: its gradient adds up there
    softmax_row_backward(pv.data(), dp.data(), nk, dp.data());
    for (int t = 0; t < nk; ++t) lookup.grads[idx[keys[t]]] += dp[t];
  }
}

}  // namespace

template <class S>
void lookup_forward(const AttnShape& sh, const S* V, const Coordinates& at, S* probs, S* out, const int* kv_index,
                    ScoreLookup<S> lookup) {
  by_width(sh.dh, [&](auto w) { lookup_forward_impl<S, decltype(w)::value>(sh, V, at, probs, out, kv_index, lookup); });
}

template <class S>
void lookup_backward(const AttnShape& sh, const S* V, const Coordinates& at, const S* probs, const S* dout, S* dV,
                     const int* kv_index, ScoreLookup<S> lookup) {
  by_width(sh.dh,
           [&](auto w) { lookup_backward_impl<S, decltype(w)::value>(sh, V, at, probs, dout, dV, kv_index, lookup); });
}

#define PE_ATTENTION_LOOKUP(S)                                                                                         \
  template void lookup_forward<S>(const AttnShape&, const S*, const Coordinates&, S*, S*, const int*, ScoreLookup<S>); \
  template void lookup_backward<S>(const AttnShape&, const S*, const Coordinates&, const S*, const S*, S*, const int*, \
                                   ScoreLookup<S>);
PE_ATTENTION_LOOKUP(float)
PE_ATTENTION_LOOKUP(double)
#undef PE_ATTENTION_LOOKUP

}  // namespace pe::attn
