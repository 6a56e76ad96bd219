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

namespace {
// The coordinates a thread's visible sets were made for: the arrays copied, so that equal coordinates
// in other memory (every layer's call, forward and backward) find them again.
struct CoordinateKey {
  Visibility vis;
  bool per_row = false;
  int B = 0;  // counted only when the sequences differ
  std::vector<int> qpos, kpos, qseg, kseg;
  CoordinateKey(const Coordinates& at, const AttnShape& sh) : vis(at.vis), per_row(at.per_row) {
    const size_t rows = at.shared() ? 1 : size_t(sh.B);
    if (!at.shared()) B = sh.B;
    const size_t nq = (per_row ? rows : 1) * sh.Tq, nk = (per_row ? rows : 1) * sh.Tk;
    qpos.assign(at.qpos, at.qpos + nq), kpos.assign(at.kpos, at.kpos + nk);
    if (at.qseg) qseg.assign(at.qseg, at.qseg + rows * sh.Tq);
    if (at.kseg) kseg.assign(at.kseg, at.kseg + rows * sh.Tk);
  }
  // The same coordinates, compared in place (no copy on the path every call takes).
  bool matches(const Coordinates& at, const AttnShape& sh) const {
    const size_t rows = at.shared() ? 1 : size_t(sh.B);
    const size_t nq = (at.per_row ? rows : 1) * sh.Tq, nk = (at.per_row ? rows : 1) * sh.Tk;
    auto eq = [](const int* x, size_t n, const std::vector<int>& v) {
      return x ? std::equal(x, x + n, v.begin(), v.end()) : v.empty();
    };
    return vis == at.vis && per_row == at.per_row && B == (at.shared() ? 0 : sh.B) && eq(at.qpos, nq, qpos) &&
           eq(at.kpos, nk, kpos) && eq(at.qseg, rows * sh.Tq, qseg) && eq(at.kseg, rows * sh.Tk, kseg);
  }
};

// Sequence b's coordinates equal sequence c's.
bool same_rows(const Coordinates& at, const AttnShape& sh, int b, int c) {
  auto eq = [](const int* x, int n, int b, int c) {
    return !x || std::equal(x + size_t(b) * n, x + size_t(b + 1) * n, x + size_t(c) * n);
  };
  return (!at.per_row || (eq(at.qpos, sh.Tq, b, c) && eq(at.kpos, sh.Tk, b, c))) && eq(at.qseg, sh.Tq, b, c) &&
         eq(at.kseg, sh.Tk, b, c);
}
}  // namespace

const BatchVisibleSets& visible_sets(const Coordinates& at, const AttnShape& sh) {
  struct Last {
    CoordinateKey key;
    BatchVisibleSets sets;
  };
  // Two entries, replaced in turn: a model whose layers differ in visibility (hybrid's banded layer
  // beside a full one) asks for two sets by turns, and one entry would rebuild them at every layer
  // (15-20% of its evaluation at T = 512). A set returned stays valid until two more are made here.
  constexpr int kKept = 2;
  thread_local std::unique_ptr<Last> kept[kKept];
  thread_local int next = 0;
  for (auto& k : kept)
    if (k && k->key.matches(at, sh)) return k->sets;
  BatchVisibleSets sets;
  if (at.shared()) {
    sets.sets.emplace_back(at, 0, sh.Tq, sh.Tk);
  } else {
    std::vector<int> first_row;  // the first sequence of each distinct set
    for (int b = 0; b < sh.B; ++b) {
      int s = 0;
      while (s < int(first_row.size()) && !same_rows(at, sh, b, first_row[s])) ++s;
      if (s == int(first_row.size())) first_row.push_back(b), sets.sets.emplace_back(at, b, sh.Tq, sh.Tk);
      sets.of_row.push_back(s);
    }
  }
  std::unique_ptr<Last>& slot = kept[next];
  next = (next + 1) % kKept;
  slot.reset(new Last{CoordinateKey(at, sh), std::move(sets)});
  return slot->sets;
}

namespace {

// The path asked for, or for automatic the one the arguments call for; throws where the path cannot
// take them. looked_up: looked-up scores given (lookup.scores forward, lookup.grads backward).
template <class S>
AttnPath choose_path(const char* fn, AttnPath path, bool looked_up, const AttnShape& sh, const Coordinates& at,
                     const int* kv_index, const Scheme<S>& scheme) {
  if (path == AttnPath::automatic)
    path = looked_up ? AttnPath::lookup : !kv_index && sh.Tq > 1 ? AttnPath::dense : AttnPath::rows;
  const char* wrong = nullptr;
  if (path == AttnPath::lookup) {
    if (!looked_up || !kv_index || sh.Tq != 1 || sh.H != 1 || scheme.acts_on_values())
      wrong = "looked-up scores need a key table (kv_index), one query row, one head and no value term";
    else if (scheme.contextual_scores())
      wrong = "looked-up scores need a scheme whose key scores do not read the other keys (not cope's count)";
    else if (!at.shared())
      wrong = "looked-up scores need coordinates shared by the batch (no per-row positions, documents or padding)";
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
void attention_forward(const AttnShape& sh, const S* Q, const S* K, const S* V, const Coordinates& at,
                       const Scheme<S>& scheme, CParamView<S> P, S* probs, S* out, const int* kv_index,
                       AttnTables<S> tables, ScoreLookup<S> lookup, AttnPath path) {
  switch (attn::choose_path("attention_forward", path, lookup.scores != nullptr, sh, at, kv_index, scheme)) {
    case AttnPath::lookup:
      return attn::lookup_forward(sh, V, at, probs, out, kv_index, lookup);
    case AttnPath::dense:
      return attn::dense_forward(sh, Q, K, V, at, scheme, P, probs, out, tables);
    default:
      return attn::rows_forward(sh, Q, K, V, at, scheme, P, probs, out, kv_index, tables);
  }
}

template <class S>
void attention_backward(const AttnShape& sh, const S* Q, const S* K, const S* V, const Coordinates& at,
                        const Scheme<S>& scheme, CParamView<S> P, ParamView<S> G, const S* probs, const S* dout, S* dQ,
                        S* dK, S* dV, const int* kv_index, AttnTables<S> tables, ScoreLookup<S> lookup, AttnPath path) {
  switch (attn::choose_path("attention_backward", path, lookup.grads != nullptr, sh, at, kv_index, scheme)) {
    case AttnPath::lookup:
      return attn::lookup_backward(sh, V, at, probs, dout, dV, kv_index, lookup);
    case AttnPath::dense:
      return attn::dense_backward(sh, Q, K, V, at, scheme, P, G, probs, dout, dQ, dK, dV, tables);
    default:
      return attn::rows_backward(sh, Q, K, V, at, scheme, P, G, probs, dout, dQ, dK, dV, kv_index, tables);
  }
}

#define PE_ATTENTION(S)                                                                                              \
  template void attention_forward<S>(const AttnShape&, const S*, const S*, const S*, const Coordinates&,             \
                                     const Scheme<S>&, CParamView<S>, S*, S*, const int*, AttnTables<S>,             \
                                     ScoreLookup<S>, AttnPath);                                                      \
  template void attention_backward<S>(const AttnShape&, const S*, const S*, const S*, const Coordinates&,            \
                                      const Scheme<S>&, CParamView<S>, ParamView<S>, const S*, const S*, S*, S*, S*, \
                                      const int*, AttnTables<S>, ScoreLookup<S>, AttnPath);
PE_ATTENTION(float)
PE_ATTENTION(double)
#undef PE_ATTENTION

}  // namespace pe
