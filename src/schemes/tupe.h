// `tupe` (untied positional attention, TUPE-A): a learned absolute table p [rows, d_model] (the
// learned_rows setting) with its own projections U_Q, U_K per layer ([d_model, heads * d]); nothing
// is added to the token state:
//   s(m,n) = [ <x_m W_Q, x_n W_K> + <p_m U_Q, p_n U_K> ] / sqrt(2d).
// tupe_relative (TUPE-R) adds the t5 bucket bias (t5_buckets, t5_max_distance). Like `learned`,
// a position past the table has no row: can_read() is false there. PQ = p U_Q and PK = p U_K are
// derived tables of each layer, computed once per forward call. Init: p ~ N(0, embed_init_std^2),
// U_Q, U_K as linear layers.
#pragma once
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/errors.h"
#include "core/gemm.h"
#include "schemes/scheme.h"
#include "schemes/t5.h"

namespace pe {

inline std::vector<KeySpec> tupe_keys() {
  std::vector<KeySpec> k = {{"tupe_relative", KeyType::Bool, false, "tupe: also add the t5 bucket bias (TUPE-R)"},
                            learned_rows_key()};
  for (auto& t : t5_keys()) k.push_back(t);
  return k;
}

template <class S>
class TupeScheme final : public Scheme<S> {
 public:
  explicit TupeScheme(SchemeConfig cfg) : Scheme<S>(std::move(cfg)) {
    relative_ = this->cfg_.template setting<bool>("tupe_relative");
    if (relative_) bias_.configure(this->cfg_);
    rows_ = this->cfg_.template setting<int>("learned_rows");
  }
  std::string name() const override { return "tupe"; }
  std::string later_keys() const override {
    return relative_ ? "the absolute term unchanged; the t5 buckets in their bidirectional form"
                     : "unchanged: its absolute term does not depend on the mask";
  }
  bool acts_on_scores() const override { return true; }
  bool offsets_only() const override { return false; }  // the absolute term reads each position's row
  int max_position() const override { return rows_ - 1; }
  // two terms: the content score is scaled by 1/sqrt(2d), not 1/sqrt(d)
  using Scheme<S>::content_scale;
  S content_scale(int) const override { return S(1) / std::sqrt(S(2)); }

  void declare(ParamLayout& layout) override {
    const int D = this->cfg_.d_model;
    p_ = layout.add("pos.tupe_p", rows_, D);
    for (int l = 0; l < this->cfg_.n_layers; ++l) {
      u_q_.push_back(layout.add(fmt::format("pos.layer{}.u_q", l), D, width()));
      u_k_.push_back(layout.add(fmt::format("pos.layer{}.u_k", l), D, width()));
    }
    if (relative_) bias_.declare(layout);
  }
  void init(ParamView<S> P, Rng& rng) const override {
    init_normal(P(p_), this->cfg_.init_std, rng);
    for (size_t l = 0; l < u_q_.size(); ++l)
      for (int id : {u_q_[l], u_k_[l]}) init_linear(P(id), this->cfg_.d_model, rng);
    if (relative_) bias_.init(P);
  }
  void prepare(int max_pos) override {
    if (relative_) bias_.prepare(max_pos);
  }

  // tables = [PQ; PK; S]: PQ, PK [rows, heads * d]; S, for the dense path's blocks, the position
  // term of every pair of the first n = min(rows, span) positions, head by head: S_h = PQ_h PK_h^T
  // [n, n] (it depends on positions only, so one product serves every sequence of the batch).
  size_t tables_size(int, int span) const override {
    return size_t(2 * rows()) * width() + size_t(this->cfg_.n_heads) * pair_rows(span) * pair_rows(span);
  }
  void tables_forward(CParamView<S> P, int layer, int span, S* tables) const override {
    const int D = this->cfg_.d_model, W = width();
    const size_t half = size_t(rows()) * W;
    gemm(Op::N, Op::N, rows(), W, D, P.data(p_), D, P.data(u_q_[layer]), W, tables, W, false);
    gemm(Op::N, Op::N, rows(), W, D, P.data(p_), D, P.data(u_k_[layer]), W, tables + half, W, false);
    const int n = pair_rows(span), d = this->cfg_.d_head;
    for (int h = 0; h < this->cfg_.n_heads; ++h)
      gemm(Op::N, Op::T, n, n, d, tables + size_t(h) * d, W, tables + half + size_t(h) * d, W,
           pair_table(tables, span, h), n, false);
  }
  // undoes S_h = PQ_h PK_h^T (dPQ_h += dS_h PK_h, dPK_h += dS_h^T PQ_h; skipped when no block wrote
  // dS), then PQ = p U_Q, PK = p U_K over the rows [0, used) below which every row of dPQ and dPK
  // with a non-zero gradient lies (training at length T leaves the rows from T on at zero: their
  // products would add nothing): dU_Q += p^T dPQ, dU_K += p^T dPK, dp += dPQ U_Q^T + dPK U_K^T.
  void tables_backward(CParamView<S> P, ParamView<S> G, int layer, int span, const S* tables,
                       const S* dtables) const override {
    const int D = this->cfg_.d_model, W = width();
    const size_t half = size_t(rows()) * W;
    const int n = pair_rows(span), d = this->cfg_.d_head;
    std::vector<S>& dpqk = hook_scratch<S>(0, 2 * half);
    std::copy_n(dtables, 2 * half, dpqk.data());
    for (int h = 0; h < this->cfg_.n_heads; ++h) {
      const S* dS = pair_table(dtables, span, h);
      if (std::all_of(dS, dS + size_t(n) * n, [](S x) { return x == S(0); })) continue;
      gemm(Op::N, Op::N, n, d, n, dS, n, tables + half + size_t(h) * d, W, dpqk.data() + size_t(h) * d, W, true);
      gemm(Op::T, Op::N, n, d, n, dS, n, tables + size_t(h) * d, W, dpqk.data() + half + size_t(h) * d, W, true);
    }
    const S* dPQ = dpqk.data();
    const S* dPK = dpqk.data() + half;
    // rows [0, used): past the last row with a gradient (in dPQ or dPK) there is nothing to add
    const int used = std::max(nonzero_rows(dPQ, rows(), W).second, nonzero_rows(dPK, rows(), W).second);
    if (used == 0) return;
    gemm(Op::T, Op::N, D, W, used, P.data(p_), D, dPQ, W, G.data(u_q_[layer]), W, true);
    gemm(Op::T, Op::N, D, W, used, P.data(p_), D, dPK, W, G.data(u_k_[layer]), W, true);
    gemm(Op::N, Op::T, used, D, W, dPQ, W, P.data(u_q_[layer]), W, G.data(p_), D, true);
    gemm(Op::N, Op::T, used, D, W, dPK, W, P.data(u_k_[layer]), W, G.data(p_), D, true);
  }

  // scores[t] += <PQ[m, h], PK[n_t, h]> / sqrt(2d) (+ beta[bucket, h])
  void score_forward(CParamView<S> P, const AttnRow<S>& r, S* scores) const override {
    const S scale = S(1) / std::sqrt(S(2 * r.dh));
    const S* pq = row(r, 0, r.qpos);
    for (int t = 0; t < r.nk; ++t) scores[t] += scale * hook_dot(pq, row(r, 1, r.kpos[t]), r.dh);
    if (relative_) bias_.forward(P, r, scores);
  }
  // undoes it, g_t = ds_t / sqrt(2d): dPQ[m] += sum g_t PK[n_t], dPK[n_t] += g_t PQ[m]
  void score_backward(CParamView<S>, ParamView<S> G, const AttnRow<S>& r, const S* ds, S*, const KeyRows<S>&,
                      S* dtables) const override {
    const S scale = S(1) / std::sqrt(S(2 * r.dh));
    const S* pq = row(r, 0, r.qpos);
    S* dpq = dtables + (pq - r.tables);
    for (int t = 0; t < r.nk; ++t) {
      const S g = scale * ds[t];
      const S* pk = row(r, 1, r.kpos[t]);
      S* dpk = dtables + (pk - r.tables);
      for (int c = 0; c < r.dh; ++c) dpq[c] += g * pk[c], dpk[c] += g * pq[c];
    }
    if (relative_) bias_.backward(G, r, ds);
  }

  // A block at once (the dense path): scores[r][t] += S_h[qpos[r], kpos[t]] / sqrt(2d), read from the
  // pair table when every position of the block is inside it, else the product PQ[qpos] PK[kpos]^T of
  // the block's rows (+ the bucket bias, block by block).
  bool block_scores(int) const override { return true; }
  void score_block_forward(CParamView<S> P, const AttnBlock<S>& b, S* scores) const override {
    const S scale = S(1) / std::sqrt(S(2 * b.dh));
    if (in_pair_table(b)) {
      const int n = pair_rows(b.span);
      const S* pair = pair_table(b.tables, b.span, b.head);
      const bool keys_run = consecutive(b.kpos, b.nk);
      for (int r = 0; r < b.nq; ++r) {
        const S* sr = pair + size_t(b.qpos[r]) * n;
        S* out = scores + size_t(r) * b.nk;
        if (keys_run)
          for (int t = 0; t < b.nk; ++t) out[t] += scale * sr[b.kpos[0] + t];
        else
          for (int t = 0; t < b.nk; ++t) out[t] += scale * sr[b.kpos[t]];
      }
      if (relative_) bias_.block_forward(P, b, scores);
      return;
    }
    const Rows pq = rows_at(b, 0, b.qpos, b.nq, 0), pk = rows_at(b, 1, b.kpos, b.nk, 1);
    std::vector<S>& g = hook_buffer<S>(2, size_t(b.nq) * b.nk);
    gemm(Op::N, Op::T, b.nq, b.nk, b.dh, pq.at, pq.ld, pk.at, pk.ld, g.data(), b.nk, false);
    for (size_t e = 0; e < g.size(); ++e) scores[e] += scale * g[e];
    if (relative_) bias_.block_forward(P, b, scores);
  }
  // undoes it, with e = ds / sqrt(2d): dS_h[qpos[r], kpos[t]] += e[r][t] (tables_backward takes it to
  // PQ and PK), or outside the pair table dPQ[qpos] += e PK[kpos], dPK[kpos] += e^T PQ[qpos] (straight
  // into the tables' gradient when the positions are consecutive rows, else through a scratch)
  void score_block_backward(CParamView<S>, ParamView<S> G, const AttnBlock<S>& b, const S* ds, S*, S*,
                            S* dtables) const override {
    const S scale = S(1) / std::sqrt(S(2 * b.dh));
    if (in_pair_table(b)) {
      const int n = pair_rows(b.span);
      S* dpair = dtables + (pair_table(b.tables, b.span, b.head) - b.tables);
      const bool keys_run = consecutive(b.kpos, b.nk);
      for (int r = 0; r < b.nq; ++r) {
        S* dr = dpair + size_t(b.qpos[r]) * n;
        const S* g = ds + size_t(r) * b.nk;
        if (keys_run)
          for (int t = 0; t < b.nk; ++t) dr[b.kpos[0] + t] += scale * g[t];
        else
          for (int t = 0; t < b.nk; ++t) dr[b.kpos[t]] += scale * g[t];
      }
      if (relative_) bias_.block_backward(G, b, ds);
      return;
    }
    const Rows pq = rows_at(b, 0, b.qpos, b.nq, 0), pk = rows_at(b, 1, b.kpos, b.nk, 1);
    std::vector<S>& e = hook_buffer<S>(2, size_t(b.nq) * b.nk);
    for (size_t i = 0; i < e.size(); ++i) e[i] = scale * ds[i];
    add_product(b, 0, b.qpos, b.nq, Op::N, e.data(), pk, b.nk, dtables);
    add_product(b, 1, b.kpos, b.nk, Op::T, e.data(), pq, b.nq, dtables);
    if (relative_) bias_.block_backward(G, b, ds);
  }

 private:
  // n rows of one table for a block's head: in place (row stride width()) when the positions are
  // consecutive, else gathered into scratch `slot` (row stride d).
  struct Rows {
    const S* at;
    int ld;
  };
  // The pair table covers positions below n = min(rows, span); S_h sits after PQ and PK.
  int pair_rows(int span) const { return std::max(0, std::min(rows(), span)); }
  template <class T>
  T* pair_table(T* tables, int span, int head) const {
    const size_t n = size_t(pair_rows(span));
    return tables + size_t(2 * rows()) * width() + size_t(head) * n * n;
  }
  bool in_pair_table(const AttnBlock<S>& b) const {
    const int n = pair_rows(b.span);
    const auto [q0, q1] = std::minmax_element(b.qpos, b.qpos + b.nq);
    const auto [k0, k1] = std::minmax_element(b.kpos, b.kpos + b.nk);
    return *q0 >= 0 && *k0 >= 0 && *q1 < n && *k1 < n;
  }
  const S* table_row(const S* tables, int which, int pos, int head, int d) const {
    if (pos < 0 || pos >= rows()) throw UsageError("tupe table has no row for position " + std::to_string(pos));
    return tables + (size_t(which) * rows() + pos) * width() + size_t(head) * d;
  }
  Rows rows_at(const AttnBlock<S>& b, int which, const int* pos, int n, int slot) const {
    if (consecutive(pos, n)) {
      table_row(b.tables, which, pos[n - 1], b.head, b.dh);  // (checks the last row exists)
      return {table_row(b.tables, which, pos[0], b.head, b.dh), width()};
    }
    std::vector<S>& g = hook_buffer<S>(slot, size_t(n) * b.dh);
    for (int i = 0; i < n; ++i)
      std::copy_n(table_row(b.tables, which, pos[i], b.head, b.dh), b.dh, &g[size_t(i) * b.dh]);
    return {g.data(), b.dh};
  }
  // dtable[pos[i]] += (op(e) other)[i] for the n positions of one table: op(e) [n, m] (e is [nq, nk])
  void add_product(const AttnBlock<S>& b, int which, const int* pos, int n, Op op, const S* e, Rows other, int m,
                   S* dtables) const {
    const int ldE = b.nk;
    S* first = dtables + (table_row(b.tables, which, pos[0], b.head, b.dh) - b.tables);
    if (consecutive(pos, n)) {
      table_row(b.tables, which, pos[n - 1], b.head, b.dh);
      gemm(op, Op::N, n, b.dh, m, e, ldE, other.at, other.ld, first, width(), true);
      return;
    }
    std::vector<S>& out = hook_buffer<S>(3, size_t(n) * b.dh);
    gemm(op, Op::N, n, b.dh, m, e, ldE, other.at, other.ld, out.data(), b.dh, false);
    for (int i = 0; i < n; ++i) {
      S* dst = dtables + (table_row(b.tables, which, pos[i], b.head, b.dh) - b.tables);
      for (int c = 0; c < b.dh; ++c) dst[c] += out[size_t(i) * b.dh + c];
    }
  }

  int rows_;
  int rows() const { return rows_; }
  int width() const { return this->cfg_.n_heads * this->cfg_.d_head; }
  // row of PQ (which 0) or PK (which 1) at a position, for the row's head
  const S* row(const AttnRow<S>& r, int which, int pos) const {
    if (pos < 0 || pos >= rows()) throw UsageError("tupe table has no row for position " + std::to_string(pos));
    return r.tables + (size_t(which) * rows() + pos) * width() + size_t(r.head) * r.dh;
  }

  bool relative_ = false;
  T5Bias<S> bias_;
  int p_ = -1;
  std::vector<int> u_q_, u_k_;
};

}  // namespace pe
