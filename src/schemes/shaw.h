// `shaw` (relative key and value vectors, Shaw et al.): clip c = clamp(n - m, -K, K) (key minus
// query), row u = c + K of two learned tables RK, RV of shape [2K+1, d] per layer, shared by the
// layer's heads:
//   e(m,n) = <q_m, k_n + RK[u]> / sqrt(d),   z_m = sum_n a(m,n) (v_n + RV[u]).
// Computed the compact way, never as [queries, keys, d] tensors: per query row, w[u] = <q, RK[u]>
// once per relation class, then gathered by each key's class; on the value side the probabilities
// are summed per class first (a[u] = sum of a(m,n) over keys of class u), then z += sum_u a[u] RV[u].
// shaw_per_head (a variant the notes name): each head its own pair, the layer's tensors [H (2K+1), d], head h's
// rows h (2K+1) .. (h+1)(2K+1) - 1; the paper shares them across heads.
// Init N(0, embed_init_std^2). shaw_values false (the paper's ablation, key-only): no RV tables, the values
// are the plain v_n.
#pragma once
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/errors.h"
#include "core/gemm.h"
#include "schemes/scheme.h"

namespace pe {

template <class S>
class ShawScheme final : public Scheme<S> {
 public:
  explicit ShawScheme(SchemeConfig cfg) : Scheme<S>(std::move(cfg)) {
    clip_ = this->cfg_.template setting<int>("shaw_clip");
    if (clip_ < 1) throw ConfigError(fmt::format("shaw_clip must be at least 1 (got {})", clip_));
    values_ = this->cfg_.template setting<bool>("shaw_values");
    per_head_ = this->cfg_.template setting<bool>("shaw_per_head");
  }
  std::string name() const override { return "shaw"; }
  std::string later_keys() const override { return "the signed clip: later keys take classes K+1 .. 2K"; }
  bool acts_on_scores() const override { return true; }
  bool acts_on_values() const override { return values_; }
  // The table row of a (query, key) pair: u = clamp(n - m, -K, K) + K.
  int relation(int m, int n) const { return std::clamp(n - m, -clip_, clip_) + clip_; }

  void declare(ParamLayout& layout) override {
    const int rows = (2 * clip_ + 1) * (per_head_ ? this->cfg_.n_heads : 1), d = this->cfg_.d_head;
    for (int l = 0; l < this->cfg_.n_layers; ++l) {
      rk_.push_back(layout.add(fmt::format("pos.layer{}.shaw_rk", l), rows, d));
      if (values_) rv_.push_back(layout.add(fmt::format("pos.layer{}.shaw_rv", l), rows, d));
    }
  }
  void init(ParamView<S> P, Rng& rng) const override {
    for (size_t l = 0; l < rk_.size(); ++l) {
      init_normal(P(rk_[l]), this->cfg_.init_std, rng);
      if (values_) init_normal(P(rv_[l]), this->cfg_.init_std, rng);
    }
  }

  // scores[t] += <q, RK[u_t]> / sqrt(d), through w[u] = <q, RK[u]> per class.
  void score_forward(CParamView<S> P, const AttnRow<S>& r, S* scores) const override {
    const S* RK = P.data(rk_[r.layer]) + head_offset(r.head);
    const S scale = S(1) / std::sqrt(S(r.dh));
    std::vector<S>& w = scratch(0);
    for (int u = 0; u < rows(); ++u) w[u] = scale * hook_dot(r.q, RK + size_t(u) * r.dh, r.dh);
    for (int t = 0; t < r.nk; ++t) scores[t] += w[relation(r.qpos, r.kpos[t])];
  }
  // undoes it: g[u] = sum of ds over keys of class u; dq += g[u] RK[u] / sqrt(d); dRK[u] += g[u] q / sqrt(d)
  void score_backward(CParamView<S> P, ParamView<S> G, const AttnRow<S>& r, const S* ds, S* dq, const KeyRows<S>&,
                      S*) const override {
    const S* RK = P.data(rk_[r.layer]) + head_offset(r.head);
    S* dRK = G.data(rk_[r.layer]) + head_offset(r.head);
    const S scale = S(1) / std::sqrt(S(r.dh));
    std::vector<S>& g = class_sums(r, ds);
    for (int u = 0; u < rows(); ++u) {
      if (g[u] == S(0)) continue;
      const S gu = scale * g[u];
      for (int c = 0; c < r.dh; ++c) dq[c] += gu * RK[size_t(u) * r.dh + c], dRK[size_t(u) * r.dh + c] += gu * r.q[c];
    }
  }
  // out += sum_u a[u] RV[u], a[u] = sum of p over keys of class u.
  void value_forward(CParamView<S> P, const AttnRow<S>& r, const S* p, S* out) const override {
    const S* RV = P.data(rv_[r.layer]) + head_offset(r.head);
    std::vector<S>& a = class_sums(r, p);
    for (int u = 0; u < rows(); ++u)
      if (a[u] != S(0))
        for (int c = 0; c < r.dh; ++c) out[c] += a[u] * RV[size_t(u) * r.dh + c];
  }
  // undoes it: dp[t] += <dout, RV[u_t]>; dRV[u] += a[u] dout.
  void value_backward(CParamView<S> P, ParamView<S> G, const AttnRow<S>& r, const S* p, const S* dout,
                      S* dp) const override {
    const S* RV = P.data(rv_[r.layer]) + head_offset(r.head);
    S* dRV = G.data(rv_[r.layer]) + head_offset(r.head);
    std::vector<S>& a = class_sums(r, p);
    std::vector<S>& w = scratch(1);
    for (int u = 0; u < rows(); ++u) {
      w[u] = hook_dot(dout, RV + size_t(u) * r.dh, r.dh);
      if (a[u] != S(0))
        for (int c = 0; c < r.dh; ++c) dRV[size_t(u) * r.dh + c] += a[u] * dout[c];
    }
    for (int t = 0; t < r.nk; ++t) dp[t] += w[relation(r.qpos, r.kpos[t])];
  }

  // A block at once (the dense path). Scores: w = Q RK^T [nq, 2K+1], scores[r][t] += w[r][u_rt] / sqrt(d).
  // Values: a[r][u] = sum of p[r][t] over the keys of class u, out += a RV.
  bool block_scores(int) const override { return true; }
  bool block_values(int) const override { return values_; }
  void score_block_forward(CParamView<S> P, const AttnBlock<S>& b, S* scores) const override {
    const int d = b.dh, R = rows();
    const S scale = S(1) / std::sqrt(S(d));
    std::vector<S>& w = hook_buffer<S>(0, size_t(b.nq) * R);
    gemm(Op::N, Op::T, b.nq, R, d, b.q, int(b.ld), P.data(rk_[b.layer]) + head_offset(b.head), d, w.data(), R, false);
    const bool keys_run = consecutive(b.kpos, b.nk);
    for (int r = 0; r < b.nq; ++r) {
      S* s = scores + size_t(r) * b.nk;
      const S* wr = &w[size_t(r) * R];
      clipped_runs(
          b.qpos[r], b.kpos, b.nk, keys_run, clip_,
          [&](int t0, int t1, int u) {
            const S add = scale * wr[u];
            for (int t = t0; t < t1; ++t) s[t] += add;
          },
          b.key_begin(r), b.key_end(r));
    }
  }
  // undoes it: g[r][u] = sum of ds over keys of class u, / sqrt(d); dq += g RK, dRK += g^T Q
  void score_block_backward(CParamView<S> P, ParamView<S> G, const AttnBlock<S>& b, const S* ds, S* dq, S*,
                            S*) const override {
    const int d = b.dh, R = rows();
    const S scale = S(1) / std::sqrt(S(d));
    std::vector<S>& g = hook_scratch<S>(0, size_t(b.nq) * R);
    std::vector<S>& e = hook_scratch<S>(1, size_t(b.nk));
    const bool keys_run = consecutive(b.kpos, b.nk);
    for (int r = 0; r < b.nq; ++r) {
      for (int t = 0; t < b.nk; ++t) e[t] = scale * ds[size_t(r) * b.nk + t];
      add_by_relation(e.data(), b, r, keys_run, &g[size_t(r) * R]);
    }
    gemm(Op::N, Op::N, b.nq, d, R, g.data(), R, P.data(rk_[b.layer]) + head_offset(b.head), d, dq, int(b.ld), true);
    gemm(Op::T, Op::N, R, d, b.nq, g.data(), R, b.q, int(b.ld), G.data(rk_[b.layer]) + head_offset(b.head), d, true);
  }
  void value_block_forward(CParamView<S> P, const AttnBlock<S>& b, const S* p, size_t ldp, S* out) const override {
    std::vector<S>& a = block_class_sums(b, p, ldp, 1);
    gemm(Op::N, Op::N, b.nq, b.dh, rows(), a.data(), rows(), P.data(rv_[b.layer]) + head_offset(b.head), b.dh, out,
         int(b.ld), true);
  }
  // undoes out += a RV: w = dout RV^T [nq, 2K+1], dp[r][t] += w[r][u_rt]; dRV += a^T dout
  void value_block_backward(CParamView<S> P, ParamView<S> G, const AttnBlock<S>& b, const S* p, size_t ldp,
                            const S* dout, S* dp) const override {
    const int d = b.dh, R = rows();
    std::vector<S>& a = block_class_sums(b, p, ldp, 1);
    std::vector<S>& w = hook_buffer<S>(2, size_t(b.nq) * R);
    gemm(Op::N, Op::T, b.nq, R, d, dout, int(b.ld), P.data(rv_[b.layer]) + head_offset(b.head), d, w.data(), R, false);
    const bool keys_run = consecutive(b.kpos, b.nk);
    for (int r = 0; r < b.nq; ++r) {
      S* dpr = dp + size_t(r) * b.nk;
      const S* wr = &w[size_t(r) * R];
      clipped_runs(
          b.qpos[r], b.kpos, b.nk, keys_run, clip_,
          [&](int t0, int t1, int u) {
            for (int t = t0; t < t1; ++t) dpr[t] += wr[u];
          },
          b.key_begin(r), b.key_end(r));
    }
    gemm(Op::T, Op::N, R, d, b.nq, a.data(), R, dout, int(b.ld), G.data(rv_[b.layer]) + head_offset(b.head), d, true);
  }

 private:
  int rows() const { return 2 * clip_ + 1; }
  // Where head h's table starts in a layer's tensor: [H, 2K+1, d] with shaw_per_head, else [2K+1, d] shared.
  size_t head_offset(int head) const { return per_head_ ? size_t(head) * rows() * this->cfg_.d_head : 0; }
  // a[r][u]: p[r][t] (row stride ldp) summed over the block's keys of class u, [nq, 2K+1] in scratch `slot`
  // (the keys past the clip, one run per row, as one vector sum).
  std::vector<S>& block_class_sums(const AttnBlock<S>& b, const S* p, size_t ldp, int slot) const {
    std::vector<S>& a = hook_scratch<S>(slot, size_t(b.nq) * rows());
    const bool keys_run = consecutive(b.kpos, b.nk);
    for (int r = 0; r < b.nq; ++r) add_by_relation(p + size_t(r) * ldp, b, r, keys_run, &a[size_t(r) * rows()]);
    return a;
  }
  // acc[u] += x[t] over block row r's keys by class (add_by_class's runs and order, from the positions).
  void add_by_relation(const S* x, const AttnBlock<S>& b, int r, bool keys_run, S* acc) const {
    clipped_runs(
        b.qpos[r], b.kpos, b.nk, keys_run, clip_, [&](int t0, int t1, int u) { add_run(x, t0, t1, acc[u]); },
        b.key_begin(r), b.key_end(r));
  }
  // 2K+1 zeros per thread
  std::vector<S>& scratch(int which) const { return hook_scratch<S>(which, rows()); }
  // x summed per relation class over the row's visible keys.
  std::vector<S>& class_sums(const AttnRow<S>& r, const S* x) const {
    std::vector<S>& s = scratch(2);
    for (int t = 0; t < r.nk; ++t) s[relation(r.qpos, r.kpos[t])] += x[t];
    return s;
  }

  int clip_ = 16;
  bool values_ = true;     // shaw_values: RV tables (false: key-only)
  bool per_head_ = false;  // shaw_per_head: a pair of tables per head (false: per layer, shared by its heads)
  std::vector<int> rk_, rv_;
};

}  // namespace pe
