#include "models/block_stack.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/errors.h"
#include "core/gemm.h"
#include "core/math.h"
#include "core/rng.h"
#include "models/cross_entropy.h"

namespace pe {

template <class S>
BlockStack<S>::BlockStack(const BlockStackConfig& cfg) : cfg_(cfg) {
  cfg_.scheme.d_model = cfg_.d_model;
  cfg_.scheme.n_heads = cfg_.n_heads;
  cfg_.scheme.d_head = cfg_.d_model / cfg_.n_heads;
  cfg_.scheme.n_layers = cfg_.n_layers;
  cfg_.scheme.init_std = cfg_.embed_init_std;
  scheme_ = make_scheme<S>(cfg_.scheme);
  cfg_.scheme = scheme_->config();  // with its settings filled in
  declare_weights(layout_);
  scheme_->declare(layout_);
  params_.assign(layout_.total(), S(0));
}

template <class S>
void BlockStack<S>::declare_weights(ParamLayout& layout) {
  const int D = cfg_.d_model;
  emb_ = layout.add("tok_emb", cfg_.vocab, D);
  wqkv_.clear(), wproj_.clear();
  for (int l = 0; l < cfg_.n_layers; ++l) {
    wqkv_.push_back(layout.add("block" + std::to_string(l) + ".w_qkv", D, 3 * D));
    wproj_.push_back(layout.add("block" + std::to_string(l) + ".w_proj", D, D));
  }
}

template <class S>
void BlockStack<S>::init(uint64_t seed) {
  Rng rng(stream_key({kTagInit, seed, 2}));
  ParamView<S> P{params_.data(), &layout_};
  auto E = P(emb_);
  for (Eigen::Index i = 0; i < E.size(); ++i) E.data()[i] = S(cfg_.embed_init_std * rng.normal());
  const double bound = 1.0 / std::sqrt(double(cfg_.d_model));  // nn.Linear's default
  for (int l = 0; l < cfg_.n_layers; ++l)
    for (int id : {wqkv_[l], wproj_[l]}) {
      auto W = P(id);
      for (Eigen::Index i = 0; i < W.size(); ++i) W.data()[i] = S(bound * (2.0 * rng.uniform() - 1.0));
    }
  scheme_->init(P, rng);
}

template <class S>
double BlockStack<S>::forward(const int* x, const int* y, int B, int T, BlockStackCache<S>& c, int p0,
                              const Visibility& vis, const SegmentMemory<S>* mem, const TokenCoordinates* at) const {
  return run_forward(x, y, B, T, c, p0, vis, false, mem, at);
}

template <class S>
double BlockStack<S>::forward_keeping_probs(const int* x, const int* y, int B, int T, BlockStackCache<S>& c, int p0,
                                            const Visibility& vis) const {
  c.probs.resize(cfg_.n_layers);
  for (auto& p : c.probs) p.assign(size_t(B) * cfg_.n_heads * T * T, S(0));  // masked keys stay exactly 0
  return run_forward(x, y, B, T, c, p0, vis, true, nullptr, nullptr);
}

template <class S>
void BlockStack<S>::scores(const BlockStackCache<S>& c, int B, int T, const Visibility& vis, int l,
                           std::vector<S>& out) const {
  if (c.M > 0 || l < 0 || l >= cfg_.n_layers || int(c.Q.size()) != cfg_.n_layers ||
      c.Q[l].size() != size_t(B) * T * cfg_.d_model)
    throw Error(
        fmt::format("BlockStack::scores: block {} of a forward over {} sequences of {} tokens without memory "
                    "was not run",
                    l, B, T));
  const AttnShape sh{B, T, T, cfg_.n_heads, cfg_.d_model / cfg_.n_heads, l};
  out.resize(size_t(B) * sh.H * T * T);
  attention_scores(sh, c.Q[l].data(), c.K[l].data(), coordinates(c, vis, nullptr, l), *scheme_,
                   CParamView<S>{params_.data(), &layout_}, out.data(), nullptr,
                   AttnTables<S>{c.tables[l].data(), nullptr, c.span});
}

namespace {
// The coordinates given, or nullptr when they hold nothing (the default batch).
inline const TokenCoordinates* given(const TokenCoordinates* at) { return at && (at->pos || at->doc) ? at : nullptr; }
// Row i is scored: a target, and not a PAD token.
inline bool scored_row(const int* y, const TokenCoordinates* at, int i) {
  return y[i] >= 0 && !(at && at->doc && at->doc[i] < 0);
}
}  // namespace

template <class S>
Coordinates BlockStack<S>::coordinates(const BlockStackCache<S>& c, const Visibility& vis, const TokenCoordinates* at,
                                       int l) const {
  const Visibility v = vis.with_window(scheme_->window(l));
  if (at) return {c.row_pos.data(), c.row_pos.data(), v, true, at->doc, at->doc};
  return {c.pos.data(), c.M > 0 ? c.key_pos.data() : c.pos.data(), v};
}

template <class S>
double BlockStack<S>::run_forward(const int* x, const int* y, int B, int T, BlockStackCache<S>& c, int p0,
                                  const Visibility& vis, bool keep, const SegmentMemory<S>* mem,
                                  const TokenCoordinates* at) const {
  const int D = cfg_.d_model, V = cfg_.vocab, N = B * T, L = cfg_.n_layers;
  const int M = mem ? mem->M : 0, Tk = M + T, NK = B * Tk;  // keys per sequence: [memory; segment]
  if (M > 0 && (p0 < M || int(mem->h.size()) != L))
    throw Error(
        fmt::format("segment memory of {} rows needs the segment at position {} or later and one memory "
                    "per block",
                    M, M));
  at = given(at);
  if (at && M > 0)
    throw Error("a segment memory sits at positions shared by the batch: per-token coordinates take none");
  if (vis.sees_later() != scheme_->config().bidirectional)
    throw UsageError(vis.sees_later()
                         ? "this model was made for causal visibility: reading it with later keys visible needs a "
                           "model made for bidirectional or prefix visibility"
                         : "this model was made for bidirectional or prefix visibility: read it with that visibility");
  const size_t ND = size_t(N) * D;
  const CParamView<S> P{params_.data(), &layout_};
  c.pos.resize(T);
  for (int t = 0; t < T; ++t) c.pos[t] = p0 + t;
  c.row_pos.resize(N);
  c.span = Tk;
  if (at && at->pos) {
    // each token's own position: within the scheme's table, never clamped
    for (int i = 0; i < N; ++i) {
      const int p = at->pos[i];
      if (p < 0 || !scheme_->can_read(p))
        throw Error(
            fmt::format("position {} of sequence {}, token {}: {}", p, i / T, i % T,
                        p < 0 ? std::string("positions are counted from 0")
                              : fmt::format("the {} scheme's table has {} rows (positions 0 .. {})", scheme_->name(),
                                            scheme_->max_position() + 1, scheme_->max_position())));
    }
    std::copy(at->pos, at->pos + N, c.row_pos.begin());
    const auto [lo, hi] = std::minmax_element(c.row_pos.begin(), c.row_pos.end());
    c.span = std::max(Tk, *hi - *lo + 1);
  } else {
    for (int i = 0; i < N; ++i) c.row_pos[i] = p0 + i % T;
  }
  c.M = M;
  if (M > 0) {
    c.key_pos.resize(Tk);
    for (int j = 0; j < Tk; ++j) c.key_pos[j] = p0 - M + j;
    c.key_row_pos.resize(NK);
    for (int i = 0; i < NK; ++i) c.key_row_pos[i] = p0 - M + i % Tk;
    c.X.resize(L);
  }
  const int* krow_pos = M > 0 ? c.key_row_pos.data() : c.row_pos.data();
  // Buffers live in the cache and keep their capacity from call to call (no allocation per step).
  c.h_in.resize(L + 1), c.Q.resize(L), c.K.resize(L), c.V.resize(L), c.probs.resize(L), c.O.resize(L);
  const int span = c.span;
  const bool reuse_tables =
      c.params_epoch >= 0 && c.tables_epoch == c.params_epoch && c.tables_T == span && int(c.tables.size()) == L;
  c.tables.resize(L), c.dtables.resize(L);
  c.tables_epoch = c.params_epoch, c.tables_T = span;
  for (auto& v : c.h_in) v.resize(ND);
  // h0 = E[x] (+ p(pos)): [N, D]
  S* h0 = c.h_in[0].data();
  const auto E = P(emb_);
  for (int i = 0; i < N; ++i)
    for (int k = 0; k < D; ++k) h0[size_t(i) * D + k] = E(x[i], k);
  if (scheme_->acts_on_embedding()) scheme_->embed_forward(P, c.row_pos.data(), N, h0);
  for (int l = 0; l < L; ++l) {
    const AttnShape sh{B, T, Tk, cfg_.n_heads, D / cfg_.n_heads, l};
    const S* h = c.h_in[l].data();
    for (auto* buf : {&c.Q[l], &c.O[l]}) buf->resize(ND);
    for (auto* buf : {&c.K[l], &c.V[l]}) buf->resize(size_t(NK) * D);
    // the rows keys are made from, X = [memory; h] of each sequence: [B*(M+T), D] (without memory, h)
    const S* X = h;
    if (M > 0) {
      c.X[l].resize(size_t(NK) * D);
      for (int b = 0; b < B; ++b) {
        S* xb = c.X[l].data() + size_t(b) * Tk * D;
        std::copy(mem->h[l] + size_t(b) * M * D, mem->h[l] + size_t(b + 1) * M * D, xb);
        std::copy(h + size_t(b) * T * D, h + size_t(b + 1) * T * D, xb + size_t(M) * D);
      }
      X = c.X[l].data();
    }
    // Q = h W_qkv[:, 0:D]: [N, D]; K, V = X W_qkv[:, D:2D], [:, 2D:3D]: [B*(M+T), D]
    const S* W = P.data(wqkv_[l]);
    gemm(Op::N, Op::N, N, D, D, h, D, W, 3 * D, c.Q[l].data(), D, false);
    gemm(Op::N, Op::N, NK, D, D, X, D, W + D, 3 * D, c.K[l].data(), D, false);
    gemm(Op::N, Op::N, NK, D, D, X, D, W + 2 * D, 3 * D, c.V[l].data(), D, false);
    if (scheme_->acts_on_qk()) {
      scheme_->qk_forward(l, Qk::Query, c.row_pos.data(), N, c.Q[l].data());
      scheme_->qk_forward(l, Qk::Key, krow_pos, NK, c.K[l].data());
    }
    // the scheme's derived tables of this block, for ages below span (M+T without coordinates)
    if (!reuse_tables) {
      c.tables[l].resize(scheme_->tables_size(l, span));
      if (!c.tables[l].empty()) scheme_->tables_forward(P, l, span, c.tables[l].data());
    }
    // O = attention(Q, K, V): [N, D]
    if (keep) c.probs[l].resize(size_t(B) * sh.H * T * Tk);
    attention_forward(sh, c.Q[l].data(), c.K[l].data(), c.V[l].data(), coordinates(c, vis, at, l), *scheme_, P,
                      keep ? c.probs[l].data() : nullptr, c.O[l].data(), nullptr,
                      AttnTables<S>{c.tables[l].data(), nullptr, span});
    // h' = h + O W_proj: [N, D]
    S* hn = c.h_in[l + 1].data();
    std::copy(h, h + ND, hn);
    gemm(Op::N, Op::N, N, D, D, c.O[l].data(), D, P.data(wproj_[l]), D, hn, D, true);
  }
  // logits = h E^T: [N, V]; loss = mean CE
  c.logits.resize(size_t(N) * V);
  gemm(Op::N, Op::T, N, V, D, c.h_in[L].data(), D, E.data(), D, c.logits.data(), V, false);
  double loss = 0;
  int scored = 0;
  c.token_loss.resize(N);
  for (int i = 0; i < N; ++i) {
    const bool s = scored_row(y, at, i);
    c.token_loss[i] = s ? cross_entropy_forward(&c.logits[size_t(i) * V], V, y[i]) : 0.0;
    loss += c.token_loss[i];
    scored += s;
  }
  return scored ? loss / scored : 0.0;
}

template <class S>
double BlockStack<S>::forward_backward(const int* x, const int* y, int B, int T, S* grad, BlockStackCache<S>& c, int p0,
                                       const Visibility& vis, long norm_rows, const SegmentMemory<S>* mem,
                                       const TokenCoordinates* at) const {
  const double loss = run_forward(x, y, B, T, c, p0, vis, true, mem, at);
  at = given(at);
  const int D = cfg_.d_model, V = cfg_.vocab, N = B * T, L = cfg_.n_layers;
  const int M = c.M, Tk = M + T, NK = B * Tk;
  const int* krow_pos = M > 0 ? c.key_row_pos.data() : c.row_pos.data();
  const int span = c.span;
  const size_t ND = size_t(N) * D;
  const CParamView<S> P{params_.data(), &layout_};
  const ParamView<S> G{grad, &layout_};
  const auto E = P(emb_);
  // undoes loss = sum CE / norm: dlogits = (softmax - onehot) / norm
  long scored = norm_rows > 0 ? norm_rows : 0;  // a chunk of a batch passes the batch's count; alone: its scored rows
  if (scored <= 0)
    for (int i = 0; i < N; ++i) scored += scored_row(y, at, i);
  const S norm = S(std::max(1L, scored));
  c.dlogits.resize(size_t(N) * V);
  for (int i = 0; i < N; ++i)
    if (!scored_row(y, at, i))  // an ignored row: no loss, so no gradient
      std::fill(&c.dlogits[size_t(i) * V], &c.dlogits[size_t(i + 1) * V], S(0));
    else
      cross_entropy_backward(&c.logits[size_t(i) * V], V, y[i], norm, &c.dlogits[size_t(i) * V]);
  // undoes logits = h E^T: dE += dlogits^T h, dh = dlogits E
  const S* hL = c.h_in[L].data();
  gemm(Op::T, Op::N, V, D, N, c.dlogits.data(), V, hL, D, G.data(emb_), D, true);
  c.dh.resize(ND), c.dO.resize(ND), c.dQ.resize(ND), c.dK.resize(size_t(NK) * D), c.dV.resize(size_t(NK) * D);
  gemm(Op::N, Op::N, N, D, V, c.dlogits.data(), V, E.data(), D, c.dh.data(), D, false);
  for (int l = L - 1; l >= 0; --l) {
    const AttnShape sh{B, T, Tk, cfg_.n_heads, D / cfg_.n_heads, l};
    // undoes h' = h + O W_proj (the residual passes dh through): dW_proj += O^T dh, dO = dh W_proj^T
    gemm(Op::T, Op::N, D, D, N, c.O[l].data(), D, c.dh.data(), D, G.data(wproj_[l]), D, true);
    gemm(Op::N, Op::T, N, D, D, c.dh.data(), D, P.data(wproj_[l]), D, c.dO.data(), D, false);
    // undoes O = attention(Q, K, V)
    std::fill(c.dQ.begin(), c.dQ.end(), S(0));
    std::fill(c.dK.begin(), c.dK.end(), S(0));
    std::fill(c.dV.begin(), c.dV.end(), S(0));
    c.dtables[l].assign(c.tables[l].size(), S(0));
    attention_backward(sh, c.Q[l].data(), c.K[l].data(), c.V[l].data(), coordinates(c, vis, at, l), *scheme_, P, G,
                       c.probs[l].data(), c.dO.data(), c.dQ.data(), c.dK.data(), c.dV.data(), nullptr,
                       AttnTables<S>{c.tables[l].data(), c.dtables[l].data(), span});
    // undoes the derived tables
    if (!c.dtables[l].empty()) scheme_->tables_backward(P, G, l, span, c.tables[l].data(), c.dtables[l].data());
    // undoes the Q/K transform
    if (scheme_->acts_on_qk()) {
      scheme_->qk_backward(l, Qk::Query, c.row_pos.data(), N, c.dQ.data());
      scheme_->qk_backward(l, Qk::Key, krow_pos, NK, c.dK.data());
    }
    // undoes Q = h W_qkv[:, 0:D] and K, V = X W_qkv[:, D:2D], [:, 2D:3D], one column block at a time:
    // dW[:, cols] += h^T dQ (X^T dK, X^T dV), dh += dQ W[:, cols]^T (and the segment rows of
    // dK W[:, cols]^T, dV W[:, cols]^T: the memory rows take no gradient)
    const S* hin = c.h_in[l].data();
    const S* X = M > 0 ? c.X[l].data() : hin;
    const S* W = P.data(wqkv_[l]);
    S* gW = G.data(wqkv_[l]);
    gemm(Op::T, Op::N, D, D, N, hin, D, c.dQ.data(), D, gW, 3 * D, true);
    gemm(Op::N, Op::T, N, D, D, c.dQ.data(), D, W, 3 * D, c.dh.data(), D, true);
    int col = D;
    for (const auto* d : {&c.dK, &c.dV}) {
      gemm(Op::T, Op::N, D, D, NK, X, D, d->data(), D, gW + col, 3 * D, true);
      if (M == 0)
        gemm(Op::N, Op::T, N, D, D, d->data(), D, W + col, 3 * D, c.dh.data(), D, true);
      else
        for (int b = 0; b < B; ++b)
          gemm(Op::N, Op::T, T, D, D, d->data() + (size_t(b) * Tk + M) * D, D, W + col, 3 * D,
               c.dh.data() + size_t(b) * T * D, D, true);
      col += D;
    }
  }
  MatMap<S> dh(c.dh.data(), N, D);
  // undoes h0 = E[x] + p(pos)
  auto dE = G(emb_);
  for (int i = 0; i < N; ++i)
    for (int k = 0; k < D; ++k) dE(x[i], k) += dh(i, k);
  if (scheme_->acts_on_embedding()) scheme_->embed_backward(P, G, c.row_pos.data(), N, c.dh.data());
  return loss;
}

template <class S>
int BlockStack<S>::next_memory(const BlockStackCache<S>& c, const SegmentMemory<S>* mem, int B, int T, int mem_len,
                               std::vector<std::vector<S>>& out) const {
  const int D = cfg_.d_model, L = cfg_.n_layers, M = mem ? mem->M : 0;
  const int keep = std::min(mem_len, M + T), from_mem = std::max(0, keep - T);  // rows kept of the memory
  out.resize(L);
  for (int l = 0; l < L; ++l) {
    out[l].resize(size_t(B) * keep * D);
    for (int b = 0; b < B; ++b) {
      S* o = out[l].data() + size_t(b) * keep * D;
      if (from_mem > 0) {
        const S* m = mem->h[l] + (size_t(b) * M + (M - from_mem)) * D;
        o = std::copy(m, m + size_t(from_mem) * D, o);
      }
      const S* h = c.h_in[l].data() + (size_t(b) * T + (T - (keep - from_mem))) * D;
      std::copy(h, h + size_t(keep - from_mem) * D, o);
    }
  }
  return keep;
}

template class BlockStack<float>;
template class BlockStack<double>;

}  // namespace pe
