// `txl` (Transformer-XL relative scores, no segment memory): for a query at m and a key at n, age
// r = m - n,
//   s(m,n) = [ <q_m, k_n> + <q_m, R_r> + <u, k_n> + <v, R_r> ] / sqrt(d),
// content-content, content-position, global content, global position. R_r = rho(r) W_R is the fixed
// sinusoidal code rho of the age (width d_model, sine first, the `base` setting) projected by a
// learned W_R per layer ([d_model, heads * d]); u, v are learned per head ([heads, d], shared by
// the layers, as in the paper). R for ages 0 .. span-1 is a derived table of each layer, computed
// once per forward call. Init: W_R as a linear layer, u = v = 0.
#pragma once
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "core/errors.h"
#include "core/frequencies.h"
#include "core/gemm.h"
#include "schemes/scheme.h"

namespace pe {

template <class S>
class TxlScheme final : public Scheme<S> {
 public:
  explicit TxlScheme(SchemeConfig cfg)
      : Scheme<S>(std::move(cfg)), base_(this->cfg_.template setting<double>("base")) {}
  std::string name() const override { return "txl"; }
  std::string later_keys() const override { return "the code of the signed age (sines negated): R_{-r}"; }
  bool acts_on_scores() const override { return true; }

  void declare(ParamLayout& layout) override {
    const int D = this->cfg_.d_model, W = this->cfg_.n_heads * this->cfg_.d_head;
    for (int l = 0; l < this->cfg_.n_layers; ++l) w_r_.push_back(layout.add(fmt::format("pos.layer{}.w_r", l), D, W));
    u_ = layout.add("pos.txl_u", this->cfg_.n_heads, this->cfg_.d_head);
    v_ = layout.add("pos.txl_v", this->cfg_.n_heads, this->cfg_.d_head);
  }
  void init(ParamView<S> P, Rng& rng) const override {
    for (int id : w_r_) init_linear(P(id), this->cfg_.d_model, rng);
    P(u_).setZero();
    P(v_).setZero();
  }

  // rho(a) for ages a = -max_pos .. max_pos (a position difference never exceeds the largest
  // position); rho(-a) is rho(a) with its sines negated.
  void prepare(int max_pos) override {
    if (max_pos <= max_age_) return;
    const int D = this->cfg_.d_model;
    std::vector<double> row(D);
    rho_.assign(size_t(2 * max_pos + 1) * D, S(0));
    for (int r = 0; r <= max_pos; ++r) {
      sinusoidal_code(double(r), D, base_, row.data());
      S *after = &rho_[size_t(max_pos + r) * D], *before = &rho_[size_t(max_pos - r) * D];
      for (int c = 0; c < D; ++c) after[c] = S(row[c]), before[c] = c % 2 == 0 ? -S(row[c]) : S(row[c]);
    }
    max_age_ = max_pos;
  }

  // R = rho W_R over ages -(span-1) .. span-1: [2 span - 1, heads * d]
  size_t tables_size(int, int span) const override { return size_t(2 * span - 1) * width(); }
  void tables_forward(CParamView<S> P, int layer, int span, S* tables) const override {
    MatMap<S>(tables, 2 * span - 1, width()).noalias() = rho(span) * P(w_r_[layer]);
  }
  // undoes R = rho W_R: dW_R += rho^T dR, over the rows of dR with gradient (a causal model's
  // ages are >= 0: half the rows)
  void tables_backward(CParamView<S>, ParamView<S> G, int layer, int span, const S*, const S* dtables) const override {
    const int W = width(), D = this->cfg_.d_model;
    const auto [r0, r1] = nonzero_rows(dtables, 2 * span - 1, W);
    if (r0 == r1) return;
    gemm(Op::T, Op::N, D, W, r1 - r0, rho(span).data() + size_t(r0) * D, D, dtables + size_t(r0) * W, W,
         G.data(w_r_[layer]), W, true);
  }

  // scores[t] += [ <q + v_h, R[r_t, h]> + <u_h, k_t> ] / sqrt(d)
  void score_forward(CParamView<S> P, const AttnRow<S>& r, S* scores) const override {
    const int d = r.dh;
    const S scale = S(1) / std::sqrt(S(d));
    const S *u = P.data(u_) + size_t(r.head) * d, *v = P.data(v_) + size_t(r.head) * d;
    std::vector<S>& qv = hook_scratch<S>(0, d);
    for (int c = 0; c < d; ++c) qv[c] = r.q[c] + v[c];
    for (int t = 0; t < r.nk; ++t)
      scores[t] += scale * (hook_dot(qv.data(), age_row(r, t), d) + hook_dot(u, r.keys(t), d));
  }
  // undoes it, with g_t = ds_t / sqrt(d): dq += sum g_t R_t, dv_h += the same, dR_t += g_t (q + v_h),
  // du_h += sum g_t k_t, dk_t += g_t u_h.
  void score_backward(CParamView<S> P, ParamView<S> G, const AttnRow<S>& r, const S* ds, S* dq, const KeyRows<S>& dkeys,
                      S* dtables) const override {
    const int d = r.dh;
    const S scale = S(1) / std::sqrt(S(d));
    const S *u = P.data(u_) + size_t(r.head) * d, *v = P.data(v_) + size_t(r.head) * d;
    S *du = G.data(u_) + size_t(r.head) * d, *dv = G.data(v_) + size_t(r.head) * d;
    std::vector<S>& qv = hook_scratch<S>(0, d);
    std::vector<S>& acc = hook_scratch<S>(1, d);
    for (int c = 0; c < d; ++c) qv[c] = r.q[c] + v[c];
    for (int t = 0; t < r.nk; ++t) {
      const S g = scale * ds[t];
      const S* R = age_row(r, t);
      S* dR = dtables + (R - r.tables);
      const S* k = r.keys(t);
      S* dk = dkeys(t);
      for (int c = 0; c < d; ++c) {
        acc[c] += g * R[c];
        dR[c] += g * qv[c];
        du[c] += g * k[c];
        dk[c] += g * u[c];
      }
    }
    for (int c = 0; c < d; ++c) dq[c] += acc[c], dv[c] += acc[c];
  }

  // A block at once (the dense path): with the ages qpos[r] - kpos[t] of the pairs the rows can see
  // in [lo, hi] (a causal block: none below 0), g = (Q + v_h) R[lo..hi]^T [nq, hi - lo + 1] and
  // uk = K u_h [nk], then scores[r][t] += [ g[r][age - lo] + uk[t] ] / sqrt(d) at the visible keys.
  bool block_scores(int) const override { return true; }
  void score_block_forward(CParamView<S> P, const AttnBlock<S>& b, S* scores) const override {
    const int d = b.dh, ld = int(b.ld);
    const S scale = S(1) / std::sqrt(S(d));
    const auto [lo, hi] = block_visible_age_range(b);
    if (lo > hi) return;
    const int A = hi - lo + 1;
    const S *u = P.data(u_) + size_t(b.head) * d, *v = P.data(v_) + size_t(b.head) * d;
    std::vector<S>& qv = hook_buffer<S>(0, size_t(b.nq) * d);
    std::vector<S>& g = hook_buffer<S>(1, size_t(b.nq) * A);
    std::vector<S>& uk = hook_buffer<S>(2, size_t(b.nk));
    for (int r = 0; r < b.nq; ++r)
      for (int c = 0; c < d; ++c) qv[size_t(r) * d + c] = b.q[size_t(r) * ld + c] + v[c];
    gemm(Op::N, Op::T, b.nq, A, d, qv.data(), d, age_rows(b, lo), width(), g.data(), A, false);
    gemm(Op::N, Op::T, 1, b.nk, d, u, d, b.k, ld, uk.data(), b.nk, false);
    const bool keys_run = consecutive(b.kpos, b.nk);
    for (int r = 0; r < b.nq; ++r) {
      S* s = scores + size_t(r) * b.nk;
      const S* gr = &g[size_t(r) * A];
      const int t0 = b.key_begin(r), t1 = b.key_end(r);
      if (keys_run) {  // key t's age is qpos - kpos[0] - t
        const int a0 = b.qpos[r] - b.kpos[0] - lo;
        for (int t = t0; t < t1; ++t) s[t] += scale * (gr[a0 - t] + uk[t]);
      } else {
        for (int t = t0; t < t1; ++t) s[t] += scale * (gr[b.qpos[r] - b.kpos[t] - lo] + uk[t]);
      }
    }
  }
  // undoes it, with e = ds / sqrt(d) at the visible keys (0 at the others): dg[r][age - lo] += e,
  // col[t] = sum_r e; then (undoes g = QV R^T) dQV = dg R, which goes to dq and (summed over rows)
  // dv_h, dR += dg^T QV; and (undoes uk = K u) du_h += sum_t col[t] k_t, dk_t += col[t] u_h.
  void score_block_backward(CParamView<S> P, ParamView<S> G, const AttnBlock<S>& b, const S* ds, S* dq, S* dk,
                            S* dtables) const override {
    const int d = b.dh, ld = int(b.ld);
    const S scale = S(1) / std::sqrt(S(d));
    const auto [lo, hi] = block_visible_age_range(b);
    if (lo > hi) return;
    const int A = hi - lo + 1;
    const S *u = P.data(u_) + size_t(b.head) * d, *v = P.data(v_) + size_t(b.head) * d;
    S *du = G.data(u_) + size_t(b.head) * d, *dv = G.data(v_) + size_t(b.head) * d;
    std::vector<S>& qv = hook_buffer<S>(0, size_t(b.nq) * d);
    std::vector<S>& dg = hook_scratch<S>(1, size_t(b.nq) * A);
    std::vector<S>& col = hook_scratch<S>(2, size_t(b.nk));
    std::vector<S>& dqv = hook_buffer<S>(3, size_t(b.nq) * d);
    for (int r = 0; r < b.nq; ++r)
      for (int c = 0; c < d; ++c) qv[size_t(r) * d + c] = b.q[size_t(r) * ld + c] + v[c];
    const bool keys_run = consecutive(b.kpos, b.nk);
    for (int r = 0; r < b.nq; ++r) {
      const S* dsr = ds + size_t(r) * b.nk;
      S* dgr = &dg[size_t(r) * A];
      const int t0 = b.key_begin(r), t1 = b.key_end(r);
      if (keys_run) {  // one key per age: dg's row takes the row of e reversed
        const int a0 = b.qpos[r] - b.kpos[0] - lo;
        for (int t = t0; t < t1; ++t) {
          const S e = scale * dsr[t];
          dgr[a0 - t] += e;
          col[t] += e;
        }
      } else {
        for (int t = t0; t < t1; ++t) {
          const S e = scale * dsr[t];
          dgr[b.qpos[r] - b.kpos[t] - lo] += e;
          col[t] += e;
        }
      }
    }
    gemm(Op::N, Op::N, b.nq, d, A, dg.data(), A, age_rows(b, lo), width(), dqv.data(), d, false);
    for (int r = 0; r < b.nq; ++r)
      for (int c = 0; c < d; ++c) {
        dq[size_t(r) * ld + c] += dqv[size_t(r) * d + c];
        dv[c] += dqv[size_t(r) * d + c];
      }
    gemm(Op::T, Op::N, A, d, b.nq, dg.data(), A, qv.data(), d, dtables + (age_rows(b, lo) - b.tables), width(), true);
    for (int t = 0; t < b.nk; ++t)
      for (int c = 0; c < d; ++c) {
        du[c] += col[t] * b.k[size_t(t) * ld + c];
        dk[size_t(t) * ld + c] += col[t] * u[c];
      }
  }

 private:
  double base_;
  int width() const { return this->cfg_.n_heads * this->cfg_.d_head; }
  // rho for ages -(span-1) .. span-1: [2 span - 1, d_model], a view of the prepared rows
  CMatMap<S> rho(int span) const {
    if (span - 1 > max_age_) throw Error("txl: ages outside the prepared range; call prepare()");
    const int D = this->cfg_.d_model;
    return CMatMap<S>(&rho_[size_t(max_age_ - (span - 1)) * D], 2 * span - 1, D);
  }
  // R row of key t's age for the row's head (the table's row 0 is age -(span-1)).
  const S* age_row(const AttnRow<S>& r, int t) const {
    return r.tables + size_t(r.span - 1 + r.qpos - r.kpos[t]) * width() + size_t(r.head) * r.dh;
  }
  // The R rows of ages a, a + 1, ... for the block's head (row stride width()).
  const S* age_rows(const AttnBlock<S>& b, int a) const {
    return b.tables + size_t(b.span - 1 + a) * width() + size_t(b.head) * b.dh;
  }
  std::vector<S> rho_;  // [2 max_age_ + 1, d_model]: row max_age_ + a is rho(a)
  int max_age_ = -1;
  std::vector<int> w_r_;
  int u_ = -1, v_ = -1;
};

}  // namespace pe
