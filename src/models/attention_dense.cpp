// The dense path of attention: keys are the rows of K/V themselves (no kv_index), several query rows
// per sequence (the character LM's layers), any head width.
//
// Query rows are cut into blocks of kQueryBlock. For each block the keys visible to any of its rows span
// [k0, k1); scores, P V and their gradients are GEMMs (core/gemm.h) of a (sequence, head, block) over
// that span only, so a causal mask costs about half the square. K (forward) and V (backward) of a
// (sequence, head) are transposed once, so every product reads its right operand row by row. Softmax
// and the score bias act row by row on the visible keys, as in the row path.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#include <Eigen/Core>

#include "core/gemm.h"
#include "core/transpose.h"
#include "models/attention_kernels.h"

#ifdef __AVX__
#include <immintrin.h>
#endif

namespace pe::attn {

namespace {

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
                        const AttnTables<S>& tables, const VisibleSets& visible, int b, int h, const QueryBlock& blk) {
  const int W = sh.H * sh.dh;
  AttnBlock<S> a;
  a.layer = sh.layer, a.head = h, a.dh = sh.dh;
  a.nq = blk.q1 - blk.q0, a.q = Q + (size_t(b) * sh.Tq + blk.q0) * W + size_t(h) * sh.dh, a.qpos = qpos + blk.q0;
  a.nk = blk.k1 - blk.k0, a.k = K + (size_t(b) * sh.Tk + blk.k0) * W + size_t(h) * sh.dh, a.kpos = kpos + blk.k0;
  a.ld = size_t(W), a.tables = tables.values, a.span = tables.span;
  a.first = visible.first.data() + blk.q0, a.last = visible.last.data() + blk.q0, a.key0 = blk.k0;
  return a;
}

// Whether a sequence's score terms come from the block hooks: a scheme that has them, and for a contextual
// one (Scheme::contextual_scores: a key's term reads the other visible keys) only when every row's visible
// keys are one run, all a block hook knows of them (AttnBlock::key_begin, key_end).
template <class S>
bool blocks_for(const Scheme<S>& scheme, bool block_hooks, const VisibleSets& visible) {
  return block_hooks && (!scheme.contextual_scores() || visible.all_runs());
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

}  // namespace

template <class S>
void dense_forward(const AttnShape& sh, const S* Q, const S* K, const S* V, const Coordinates& at,
                   const Scheme<S>& scheme, CParamView<S> P, S* probs, S* out, AttnTables<S> tables) {
  const int dh = sh.dh, W = sh.H * dh, Tk = sh.Tk;
  const bool scores = scheme.acts_on_scores(), values = scheme.acts_on_values();
  // a scheme with block hooks adds its terms to the whole scaled block; else row by row (and a contextual
  // scheme's, whose terms read the other visible keys, where a row's keys are not one run: blocks_for)
  const bool block_hooks = scores && scheme.block_scores(sh.layer);
  const bool vblock = values && scheme.block_values(sh.layer);
  std::vector<S> pv(values ? Tk : 0);
  const S scale = scheme.content_scale(sh.layer) / std::sqrt(S(dh));
  const BatchVisibleSets& sets = visible_sets(at, sh);
  std::vector<QueryBlock> blocks;  // of the visible set blocks_of (sequences that share a set share them)
  const VisibleSets* blocks_of = nullptr;
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
  for (int b = 0; b < sh.B; ++b) {
    const VisibleSets& visible = sets[b];
    const int *qpos = at.q_of(b, sh.Tq), *kpos = at.k_of(b, Tk);
    if (&visible != blocks_of) blocks = query_blocks(visible, sh.Tq), blocks_of = &visible;
    const bool block = blocks_for(scheme, block_hooks, visible), row_hooks = scores && !block;
    const S row_scale = block ? S(1) : scale;  // a block is scaled before its hook
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
          // (times max(1, ln n / ln L) under log-length scaling)
          length_scale_row(scheme, n, row.data());
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
          scheme.value_block_forward(P, attn_block(sh, Q, K, qpos, kpos, tables, visible, b, h, blk), pblk + blk.k0,
                                     size_t(Tk), out + qoff);
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
}

template <class S>
void dense_backward(const AttnShape& sh, const S* Q, const S* K, const S* V, const Coordinates& at,
                    const Scheme<S>& scheme, CParamView<S> P, ParamView<S> G, const S* probs, const S* dout, S* dQ,
                    S* dK, S* dV, AttnTables<S> tables) {
  const int dh = sh.dh, W = sh.H * dh, Tk = sh.Tk;
  const bool scores = scheme.acts_on_scores(), values = scheme.acts_on_values();
  const bool block_hooks = scores && scheme.block_scores(sh.layer), vblock = values && scheme.block_values(sh.layer);
  const S scale = scheme.content_scale(sh.layer) / std::sqrt(S(dh));
  const BatchVisibleSets& sets = visible_sets(at, sh);
  std::vector<QueryBlock> blocks;  // of the visible set blocks_of (sequences that share a set share them)
  const VisibleSets* blocks_of = nullptr;
  const int ldt = transposed_stride(Tk);
  std::vector<S> ds_buf, vt_buf, kh_buf, row(Tk), pv(values ? Tk : 0);
  S* ds = cache_aligned(ds_buf, size_t(kQueryBlock) * Tk);
  S* vt = cache_aligned(vt_buf, size_t(dh) * ldt);
  S* kh = cache_aligned(kh_buf, size_t(Tk) * dh);
  for (int b = 0; b < sh.B; ++b) {
    const VisibleSets& visible = sets[b];
    const int *qpos = at.q_of(b, sh.Tq), *kpos = at.k_of(b, Tk);
    if (&visible != blocks_of) blocks = query_blocks(visible, sh.Tq), blocks_of = &visible;
    const bool block = blocks_for(scheme, block_hooks, visible);
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
        // (and s *= max(1, ln n / ln L), which scales the whole span: masked entries are 0)
        for (int r = 0; r < nq; ++r) {
          softmax_row_backward(pblk + size_t(r) * Tk + blk.k0, ds + size_t(r) * nk, nk, ds + size_t(r) * nk);
          length_scale_row(scheme, visible.count(blk.q0 + r), ds + size_t(r) * nk, nk);
        }
        // undoes s += the scheme's terms (for the whole block, or row by row)
        if (block)
          scheme.score_block_backward_in_place(P, G, attn_block(sh, Q, K, qpos, kpos, tables, visible, b, h, blk), ds,
                                               dQ + qoff, dK + koff, tables.grads);
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
}

#define PE_ATTENTION_DENSE(S)                                                                                          \
  template void dense_forward<S>(const AttnShape&, const S*, const S*, const S*, const Coordinates&, const Scheme<S>&, \
                                 CParamView<S>, S*, S*, AttnTables<S>);                                                \
  template void dense_backward<S>(const AttnShape&, const S*, const S*, const S*, const Coordinates&,                  \
                                  const Scheme<S>&, CParamView<S>, ParamView<S>, const S*, const S*, S*, S*, S*,       \
                                  AttnTables<S>);
PE_ATTENTION_DENSE(float)
PE_ATTENTION_DENSE(double)
#undef PE_ATTENTION_DENSE

}  // namespace pe::attn
