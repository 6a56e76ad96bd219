// attention_forward and attention_backward: the path asked for (AttnPath), or the one the arguments
// call for, each in its own file (models/attention_kernels.h lists them); and the visible sets every
// path reads.
#include "models/attention.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "core/errors.h"
#include "models/attention_kernels.h"

namespace pe {

namespace attn {

const VisibleSets& visible_sets(const Visibility& vis, const int* qpos, int Tq, const int* kpos, int Tk) {
  struct Last {
    Visibility vis;
    std::vector<int> qpos, kpos;
    VisibleSets sets;
  };
  thread_local std::unique_ptr<Last> last;
  const bool same = last && last->vis == vis && std::equal(qpos, qpos + Tq, last->qpos.begin(), last->qpos.end()) &&
                    std::equal(kpos, kpos + Tk, last->kpos.begin(), last->kpos.end());
  if (!same) last.reset(new Last{vis, {qpos, qpos + Tq}, {kpos, kpos + Tk}, VisibleSets(vis, qpos, Tq, kpos, Tk)});
  return last->sets;
}

namespace {

// The path asked for, or for automatic the one the arguments call for; throws where the path cannot
// take them. looked_up: looked-up scores given (lookup.scores forward, lookup.grads backward).
template <class S>
AttnPath choose_path(const char* fn, AttnPath path, bool looked_up, const AttnShape& sh, const int* kv_index,
                     const Scheme<S>& scheme) {
  if (path == AttnPath::automatic)
    path = looked_up ? AttnPath::lookup : !kv_index && sh.Tq > 1 ? AttnPath::dense : AttnPath::rows;
  const char* wrong = nullptr;
  if (path == AttnPath::lookup) {
    if (!looked_up || !kv_index || sh.Tq != 1 || sh.H != 1 || scheme.acts_on_values())
      wrong = "looked-up scores need a key table (kv_index), one query row, one head and no value term";
  } else if (looked_up) {
    wrong = "looked-up scores are read by the lookup path only";
  } else if (path == AttnPath::dense && kv_index) {
    wrong = "the dense path reads its keys as the rows of K and V (no kv_index)";
  }
  if (wrong) throw Error(std::string(fn) + ": " + wrong);
  return path;
}

}  // namespace
}  // namespace attn

template <class S>
void attention_forward(const AttnShape& sh, const S* Q, const S* K, const S* V, const int* qpos, const int* kpos,
                       const Visibility& vis, const Scheme<S>& scheme, CParamView<S> P, S* probs, S* out,
                       const int* kv_index, AttnTables<S> tables, ScoreLookup<S> lookup, AttnPath path) {
  switch (attn::choose_path("attention_forward", path, lookup.scores != nullptr, sh, kv_index, scheme)) {
    case AttnPath::lookup:
      return attn::lookup_forward(sh, V, qpos, kpos, vis, probs, out, kv_index, lookup);
    case AttnPath::dense:
      return attn::dense_forward(sh, Q, K, V, qpos, kpos, vis, scheme, P, probs, out, tables);
    default:
      return attn::rows_forward(sh, Q, K, V, qpos, kpos, vis, scheme, P, probs, out, kv_index, tables);
  }
}

template <class S>
void attention_backward(const AttnShape& sh, const S* Q, const S* K, const S* V, const int* qpos, const int* kpos,
                        const Visibility& vis, const Scheme<S>& scheme, CParamView<S> P, ParamView<S> G, const S* probs,
                        const S* dout, S* dQ, S* dK, S* dV, const int* kv_index, AttnTables<S> tables,
                        ScoreLookup<S> lookup, AttnPath path) {
  switch (attn::choose_path("attention_backward", path, lookup.grads != nullptr, sh, kv_index, scheme)) {
    case AttnPath::lookup:
      return attn::lookup_backward(sh, V, qpos, kpos, vis, probs, dout, dV, kv_index, lookup);
    case AttnPath::dense:
      return attn::dense_backward(sh, Q, K, V, qpos, kpos, vis, scheme, P, G, probs, dout, dQ, dK, dV, tables);
    default:
      return attn::rows_backward(sh, Q, K, V, qpos, kpos, vis, scheme, P, G, probs, dout, dQ, dK, dV, kv_index, tables);
  }
}

#define PE_ATTENTION(S)                                                                                           \
  template void attention_forward<S>(const AttnShape&, const S*, const S*, const S*, const int*, const int*,      \
                                     const Visibility&, const Scheme<S>&, CParamView<S>, S*, S*, const int*,      \
                                     AttnTables<S>, ScoreLookup<S>, AttnPath);                                    \
  template void attention_backward<S>(const AttnShape&, const S*, const S*, const S*, const int*, const int*,     \
                                      const Visibility&, const Scheme<S>&, CParamView<S>, ParamView<S>, const S*, \
                                      const S*, S*, S*, S*, const int*, AttnTables<S>, ScoreLookup<S>, AttnPath);
PE_ATTENTION(float)
PE_ATTENTION(double)
#undef PE_ATTENTION

}  // namespace pe
