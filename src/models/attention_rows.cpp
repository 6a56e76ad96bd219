// The reference path of attention: one (sequence, head, query row) at a time, any number of query
// rows, keys the rows of K/V or of a table (kv_index). Every other path is tested against this one
// (tests/test_attention_paths.cpp).
#include <cmath>
#include <vector>

#include <Eigen/Core>

#include "models/attention_kernels.h"

namespace pe::attn {

namespace {

// DH > 0: the head width known at compile time (vectorised inner loops); DH = 0: sh.dh at run time.
template <class S, int DH>
void rows_forward_impl(const AttnShape& sh, const S* Q, const S* K, const S* V, const Coordinates& at,
                       const Scheme<S>& scheme, CParamView<S> P, S* probs, S* out, const int* kv_index,
                       AttnTables<S> tables) {
  const int dh = DH > 0 ? DH : sh.dh, W = sh.H * dh;
  const bool scores = scheme.acts_on_scores(), values = scheme.acts_on_values();
  const S scale = scheme.content_scale(sh.layer) / std::sqrt(S(dh));
  const BatchVisibleSets& sets = visible_sets(at, sh);
  const KeyOffsets key_rows{sh, dh, W, kv_index};
  Eigen::Array<S, Eigen::Dynamic, 1> sc(sh.Tk);  // aligned (softmax_row)
  std::vector<S> pscratch(probs ? 0 : sh.Tk), pv(values ? sh.Tk : 0);
  for (int b = 0; b < sh.B; ++b) {
    const VisibleSets& visible = sets[b];
    const int* qpos = at.q_of(b, sh.Tq);
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
        // s *= max(1, ln n / ln L) under log-length scaling
        length_scale_row(scheme, nk, sc.data());
        // p = softmax(s) over visible keys; masked keys exactly 0
        softmax_row(sc.data(), nk, sc.data());
        for (int j = 0; j < sh.Tk; ++j) p[j] = 0;
        for (int t = 0; t < nk; ++t) p[keys[t]] = sc[t];
        // o = sum_j p_j v_j
        S* o = out + (size_t(b) * sh.Tq + i) * W + size_t(h) * dh;
        accumulate_rows<DH>(
            nk, [&](int t) { return p[keys[t]]; }, [&](int t) { return V + key_rows(b, h, keys[t]); }, o, dh, false);
        // o += the scheme's value term
        if (values) {
          for (int t = 0; t < nk; ++t) pv[t] = p[keys[t]];
          scheme.value_forward(P, row, pv.data(), o);
        }
      }
  }
}

template <class S, int DH>
void rows_backward_impl(const AttnShape& sh, const S* Q, const S* K, const S* V, const Coordinates& at,
                        const Scheme<S>& scheme, CParamView<S> P, ParamView<S> G, const S* probs, const S* dout, S* dQ,
                        S* dK, S* dV, const int* kv_index, AttnTables<S> tables) {
  const int dh = DH > 0 ? DH : sh.dh, W = sh.H * dh;
  const bool scores = scheme.acts_on_scores(), values = scheme.acts_on_values();
  const S scale = scheme.content_scale(sh.layer) / std::sqrt(S(dh));
  const BatchVisibleSets& sets = visible_sets(at, sh);
  const KeyOffsets key_rows{sh, dh, W, kv_index};
  std::vector<S> dp(sh.Tk), ds(sh.Tk), pv(sh.Tk);
  for (int b = 0; b < sh.B; ++b) {
    const VisibleSets& visible = sets[b];
    const int* qpos = at.q_of(b, sh.Tq);
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
        // undoes s *= max(1, ln n / ln L)
        length_scale_row(scheme, nk, ds.data());
        score_row_backward<S, DH>(sh, scheme, P, G, scale, row, scores, nk, keys, key_rows, b, h, K, q, ds.data(),
                                  dQ + qrow, dK, tables);
      }
  }
}

}  // namespace

template <class S>
void rows_forward(const AttnShape& sh, const S* Q, const S* K, const S* V, const Coordinates& at,
                  const Scheme<S>& scheme, CParamView<S> P, S* probs, S* out, const int* kv_index,
                  AttnTables<S> tables) {
  by_width(sh.dh, [&](auto w) {
    rows_forward_impl<S, decltype(w)::value>(sh, Q, K, V, at, scheme, P, probs, out, kv_index, tables);
  });
}

template <class S>
void rows_backward(const AttnShape& sh, const S* Q, const S* K, const S* V, const Coordinates& at,
                   const Scheme<S>& scheme, CParamView<S> P, ParamView<S> G, const S* probs, const S* dout, S* dQ,
                   S* dK, S* dV, const int* kv_index, AttnTables<S> tables) {
  by_width(sh.dh, [&](auto w) {
    rows_backward_impl<S, decltype(w)::value>(sh, Q, K, V, at, scheme, P, G, probs, dout, dQ, dK, dV, kv_index, tables);
  });
}

#define PE_ATTENTION_ROWS(S)                                                                                           \
  template void rows_forward<S>(const AttnShape&, const S*, const S*, const S*, const Coordinates&, const Scheme<S>&,  \
                                CParamView<S>, S*, S*, const int*, AttnTables<S>);                                     \
  template void rows_backward<S>(const AttnShape&, const S*, const S*, const S*, const Coordinates&, const Scheme<S>&, \
                                 CParamView<S>, ParamView<S>, const S*, const S*, S*, S*, S*, const int*,              \
                                 AttnTables<S>);
PE_ATTENTION_ROWS(float)
PE_ATTENTION_ROWS(double)
#undef PE_ATTENTION_ROWS

}  // namespace pe::attn
