// The scores of attention alone, before the softmax (attention_scores, attention_scores_backward):
// the row path's scores (models/attention_rows.cpp), operation for operation, so a table of them
// (ScoreLookup) gives what the row path computes.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "models/attention_kernels.h"

namespace pe {

namespace attn {
namespace {

template <class S, int DH>
void scores_impl(const AttnShape& sh, const S* Q, const S* K, const Coordinates& at, const Scheme<S>& scheme,
                 CParamView<S> P, S* scores, const int* kv_index, AttnTables<S> tables) {
  const int dh = DH > 0 ? DH : sh.dh, W = sh.H * dh;
  const S scale = scheme.content_scale(sh.layer) / std::sqrt(S(dh));
  const BatchVisibleSets& sets = visible_sets(at, sh);
  const KeyOffsets key_rows{sh, dh, W, kv_index};
  std::vector<S> sc(sh.Tk);
  for (int b = 0; b < sh.B; ++b) {
    const VisibleSets& visible = sets[b];
    const int* qpos = at.q_of(b, sh.Tq);
    for (int h = 0; h < sh.H; ++h)
      for (int i = 0; i < sh.Tq; ++i) {
        const S* q = Q + (size_t(b) * sh.Tq + i) * W + size_t(h) * dh;
        const int nk = visible.count(i);
        const int* keys = visible.keys_of(i);
        // as rows_forward_impl, operation for operation: s_j = scale * q.k_j (+ the scheme's score terms)
        for (int t = 0; t < nk; ++t) sc[t] = scale * dot<DH>(q, K + key_rows(b, h, keys[t]), dh);
        if (scheme.acts_on_scores())
          scheme.score_forward(P, hook_row(sh, visible, Q, K, qpos, kv_index, tables, b, h, i), sc.data());
        length_scale_row(scheme, nk, sc.data());  // as the row path
        S* out = scores + ((size_t(b) * sh.H + h) * sh.Tq + i) * sh.Tk;
        std::fill_n(out, sh.Tk, -std::numeric_limits<S>::infinity());
        for (int t = 0; t < nk; ++t) out[keys[t]] = sc[t];
      }
  }
}

template <class S, int DH>
void scores_backward_impl(const AttnShape& sh, const S* Q, const S* K, const Coordinates& at, const Scheme<S>& scheme,
                          CParamView<S> P, ParamView<S> G, const S* dscores, S* dQ, S* dK, const int* kv_index,
                          AttnTables<S> tables) {
  const int dh = DH > 0 ? DH : sh.dh, W = sh.H * dh;
  const bool scores = scheme.acts_on_scores();
  const S scale = scheme.content_scale(sh.layer) / std::sqrt(S(dh));
  const BatchVisibleSets& sets = visible_sets(at, sh);
  const KeyOffsets key_rows{sh, dh, W, kv_index};
  std::vector<S> ds(sh.Tk);
  for (int b = 0; b < sh.B; ++b) {
    const VisibleSets& visible = sets[b];
    const int* qpos = at.q_of(b, sh.Tq);
    for (int h = 0; h < sh.H; ++h)
      for (int i = 0; i < sh.Tq; ++i) {
        const size_t qrow = (size_t(b) * sh.Tq + i) * W + size_t(h) * dh;
        const S* dsr = dscores + ((size_t(b) * sh.H + h) * sh.Tq + i) * sh.Tk;
        const int nk = visible.count(i);
        const int* keys = visible.keys_of(i);
        for (int t = 0; t < nk; ++t) ds[t] = dsr[keys[t]];
        length_scale_row(scheme, nk, ds.data());  // undoes s *= max(1, ln n / ln L)
        AttnRow<S> row;
        if (scores) row = hook_row(sh, visible, Q, K, qpos, kv_index, tables, b, h, i);
        score_row_backward<S, DH>(sh, scheme, P, G, scale, row, scores, nk, keys, key_rows, b, h, K, Q + qrow,
                                  ds.data(), dQ + qrow, dK, tables);
      }
  }
}

}  // namespace
}  // namespace attn

template <class S>
void attention_scores(const AttnShape& sh, const S* Q, const S* K, const Coordinates& at, const Scheme<S>& scheme,
                      CParamView<S> P, S* scores, const int* kv_index, AttnTables<S> tables) {
  attn::by_width(sh.dh, [&](auto w) {
    attn::scores_impl<S, decltype(w)::value>(sh, Q, K, at, scheme, P, scores, kv_index, tables);
  });
}

template <class S>
void attention_scores_backward(const AttnShape& sh, const S* Q, const S* K, const Coordinates& at,
                               const Scheme<S>& scheme, CParamView<S> P, ParamView<S> G, const S* dscores, S* dQ, S* dK,
                               const int* kv_index, AttnTables<S> tables) {
  attn::by_width(sh.dh, [&](auto w) {
    attn::scores_backward_impl<S, decltype(w)::value>(sh, Q, K, at, scheme, P, G, dscores, dQ, dK, kv_index, tables);
  });
}

#define PE_ATTENTION_SCORES(S)                                                                                  \
  template void attention_scores<S>(const AttnShape&, const S*, const S*, const Coordinates&, const Scheme<S>&, \
                                    CParamView<S>, S*, const int*, AttnTables<S>);                              \
  template void attention_scores_backward<S>(const AttnShape&, const S*, const S*, const Coordinates&,          \
                                             const Scheme<S>&, CParamView<S>, ParamView<S>, const S*, S*, S*,   \
                                             const int*, AttnTables<S>);
PE_ATTENTION_SCORES(float)
PE_ATTENTION_SCORES(double)
#undef PE_ATTENTION_SCORES

}  // namespace pe
