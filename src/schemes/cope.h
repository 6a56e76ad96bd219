// `cope` (contextual position encoding, Golovneva et al. 2024): a query counts, by gates it computes from
// its own content scores, the keys between a key and itself, and reads a learned position row at that
// count. For a query q with visible keys k_0 .. k_{nk-1} (ascending positions):
//   z_t = q.k_t / sqrt(d)                     the content score, the gate's logit
//   g_t = sigmoid(z_t)
//   p_t = min(g_t + g_{t+1} + ... + g_{nk-1}, P - 1)   the key's contextual position
//   e_t = (1 - a) w[floor p_t] + a w[ceil p_t],  a = p_t - floor p_t,  w[j] = q.E[j] / sqrt(d)
// and e_t is added to key t's score. E: [P, d] per layer, shared by its heads; P = cope_positions (0: the
// training length + 1, the authors' default, so every count inside the training length has its row);
// a count past P - 1 is clamped, as in the authors' code (facebookresearch/RAM, projects/cope).
// The term reads no position at all: the order comes from the causal mask, which decides the keys
// counted. Under a mask that shows later keys the count runs to the row's last visible key (the authors'
// suffix sum of the masked gates), so a bidirectional query's count passes itself.
// A key's term reads every visible key after it (contextual_scores): a table of scores per key cannot
// hold it. Departure, stated: E starts N(0, std^2) like pe-bench's other tables; the authors' starts at
// zero, where no gate takes a gradient through the count until E has moved.
//
// Costs per query row: the gates (a second q.k per key), the suffix sum, one q.E[j] per count reached
// (at most min(P, nk + 1)), the interpolation; the backward recomputes them and adds the gates'
// share to dq and dk (a third and fourth pass over the keys).
#pragma once
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/errors.h"
#include "core/gemm.h"
#include "core/math.h"
#include "schemes/scheme.h"

namespace pe {

// cope_positions 0 means the training length + 1.
inline void complete_cope_positions(SchemeConfig& c) {
  int rows = c.settings.at("cope_positions").get<int>();
  if (rows == 0) rows = c.train_length + 1;
  if (rows < 2)
    throw ConfigError(fmt::format("cope_positions must be at least 2, or 0 for the training length + 1 (got {})",
                                  c.settings.at("cope_positions").get<int>()));
  c.settings["cope_positions"] = rows;
}

template <class S>
class CopeScheme final : public Scheme<S> {
 public:
  explicit CopeScheme(SchemeConfig cfg) : Scheme<S>(std::move(cfg)) {
    rows_ = this->cfg_.template setting<int>("cope_positions");
  }
  std::string name() const override { return "cope"; }
  std::string later_keys() const override {
    return "counted: a key's count runs to the row's last visible key (past the query when later keys show)";
  }
  bool acts_on_scores() const override { return true; }
  bool contextual_scores() const override { return true; }

  void declare(ParamLayout& layout) override {
    for (int l = 0; l < this->cfg_.n_layers; ++l)
      e_.push_back(layout.add(fmt::format("pos.layer{}.cope_e", l), rows_, this->cfg_.d_head));
  }
  void init(ParamView<S> P, Rng& rng) const override {
    for (int id : e_) init_normal(P(id), this->cfg_.init_std, rng);
  }

  // scores[t] += (1 - a) w[floor p_t] + a w[ceil p_t]
  void score_forward(CParamView<S> P, const AttnRow<S>& r, S* scores) const override {
    if (r.nk == 0) return;
    const Row row = counts(P, r);
    for (int t = 0; t < r.nk; ++t) {
      const Lerp l = lerp(row.p[t]);
      scores[t] += (S(1) - l.a) * row.w[l.f] + l.a * row.w[l.c];
    }
  }
  // undoes it: dw[f] += (1 - a) ds_t, dw[c] += a ds_t; dp_t = ds_t (w[c] - w[f]) (0 where clamped);
  // dg_u = sum_{t <= u} dp_t (p_t sums the gates from t on); dz_u = dg_u g_u (1 - g_u);
  // dq += dz_u k_u / sqrt(d), dk_u += dz_u q / sqrt(d); dq += dw[j] E[j] / sqrt(d), dE[j] += dw[j] q / sqrt(d)
  void score_backward(CParamView<S> P, ParamView<S> G, const AttnRow<S>& r, const S* ds, S* dq, const KeyRows<S>& dkeys,
                      S*) const override {
    if (r.nk == 0) return;
    const Row row = counts(P, r);
    const S scale = S(1) / std::sqrt(S(r.dh)), top = S(rows_ - 1);
    std::vector<S>& dw = hook_scratch<S>(3, size_t(row.top) + 1);
    S dg = 0;
    for (int t = 0; t < r.nk; ++t) {
      const Lerp l = lerp(row.p[t]);
      dw[l.f] += (S(1) - l.a) * ds[t];
      dw[l.c] += l.a * ds[t];
      if (row.p[t] <= top) dg += ds[t] * (row.w[l.c] - row.w[l.f]);
      const S g = row.g[t], dz = scale * dg * g * (S(1) - g);
      if (dz == S(0)) continue;
      const S* k = r.keys(t);
      S* dk = dkeys(t);
      for (int c = 0; c < r.dh; ++c) dq[c] += dz * k[c], dk[c] += dz * r.q[c];
    }
    const S* E = P.data(e_[r.layer]);
    S* dE = G.data(e_[r.layer]);
    for (int j = 0; j <= row.top; ++j) {
      if (dw[j] == S(0)) continue;
      const S gj = scale * dw[j];
      for (int c = 0; c < r.dh; ++c) dq[c] += gj * E[size_t(j) * r.dh + c], dE[size_t(j) * r.dh + c] += gj * r.q[c];
    }
  }

  // A block at once (the dense path), when each row's visible keys are exactly [key_begin, key_end)
  // (AttnBlock: a contextual scheme's block hooks are called only then). The gates are the sigmoid of the
  // block's scaled content scores as given (the authors' code reads its logits so); w = Q E^T / sqrt(d)
  // is one product [nq, top + 1].
  bool block_scores(int) const override { return true; }
  void score_block_forward(CParamView<S> P, const AttnBlock<S>& b, S* scores) const override {
    std::vector<S>& p = hook_buffer<S>(1, size_t(b.nq) * b.nk);
    const int top = block_counts(b, scores, nullptr, p.data());
    if (top < 0) return;
    const std::vector<S>& w = block_w(P, b, top);
    for (int r = 0; r < b.nq; ++r) {
      const S* wr = &w[size_t(r) * (top + 1)];
      const S* pr = &p[size_t(r) * b.nk];
      S* sr = scores + size_t(r) * b.nk;
      for (int t = b.key_begin(r); t < b.key_end(r); ++t) {
        const Lerp l = lerp(pr[t]);
        sr[t] += (S(1) - l.a) * wr[l.f] + l.a * wr[l.c];
      }
    }
  }
  // undoes it as the row hook does, the sums over keys and rows as products: the content scores
  // recomputed (Q K^T over the span), dz [nq, nk] and dw [nq, top + 1] scaled by 1/sqrt(d), then
  // dq += dz K + dw E, dk += dz^T Q, dE += dw^T Q.
  void score_block_backward(CParamView<S> P, ParamView<S> G, const AttnBlock<S>& b, const S* ds, S* dq, S* dk,
                            S*) const override {
    block_backward(P, G, b, ds, nullptr, dq, dk);
  }
  // the same, the gates' share added into ds for the path's own products (dz K and dz^T Q saved)
  void score_block_backward_in_place(CParamView<S> P, ParamView<S> G, const AttnBlock<S>& b, S* ds, S* dq, S*,
                                     S*) const override {
    block_backward(P, G, b, ds, ds, dq, nullptr);
  }

 private:
  // dcontent: where the gates' share of d(content score) goes (in place of ds, unscaled), or nullptr: into dq
  // and dk here.
  void block_backward(CParamView<S> P, ParamView<S> G, const AttnBlock<S>& b, const S* ds, S* dcontent, S* dq,
                      S* dk) const {
    const int d = b.dh;
    const S scale = S(1) / std::sqrt(S(d)), last = S(rows_ - 1);
    std::vector<S>& z = hook_buffer<S>(0, size_t(b.nq) * b.nk);
    gemm(Op::N, Op::T, b.nq, b.nk, d, b.q, int(b.ld), b.k, int(b.ld), z.data(), b.nk, false);
    for (S& v : z) v *= scale;
    std::vector<S>& p = hook_buffer<S>(1, size_t(b.nq) * b.nk);
    const int top = block_counts(b, z.data(), z.data(), p.data());  // z now holds the gates
    if (top < 0) return;
    const int R = top + 1;
    const std::vector<S>& w = block_w(P, b, top);
    std::vector<S>& dw = hook_scratch<S>(3, size_t(b.nq) * R);
    for (int r = 0; r < b.nq; ++r) {
      const S *wr = &w[size_t(r) * R], *pr = &p[size_t(r) * b.nk], *dsr = ds + size_t(r) * b.nk;
      S *gr = &z[size_t(r) * b.nk], *dwr = &dw[size_t(r) * R];
      const int t0 = b.key_begin(r), t1 = b.key_end(r);
      if (t0 >= t1) {  // a row that sees no key (its key_begin may lie outside the span)
        std::fill(gr, gr + b.nk, S(0));
        continue;
      }
      std::fill(gr, gr + t0, S(0));
      std::fill(gr + t1, gr + b.nk, S(0));
      S dg = 0;
      for (int t = t0; t < t1; ++t) {
        const Lerp l = lerp(pr[t]);
        dwr[l.f] += (S(1) - l.a) * dsr[t];
        dwr[l.c] += l.a * dsr[t];
        if (pr[t] <= last) dg += dsr[t] * (wr[l.c] - wr[l.f]);
        gr[t] = dg * gr[t] * (S(1) - gr[t]);  // the gate's share of d(content score)
      }
    }
    for (S& v : dw) v *= scale;
    const S* E = P.data(e_[b.layer]);
    if (dcontent) {
      for (size_t e = 0; e < z.size(); ++e) dcontent[e] += z[e];
    } else {
      for (S& v : z) v *= scale;
      gemm(Op::N, Op::N, b.nq, d, b.nk, z.data(), b.nk, b.k, int(b.ld), dq, int(b.ld), true);
      gemm(Op::T, Op::N, b.nk, d, b.nq, z.data(), b.nk, b.q, int(b.ld), dk, int(b.ld), true);
    }
    gemm(Op::N, Op::N, b.nq, d, R, dw.data(), R, E, d, dq, int(b.ld), true);
    gemm(Op::T, Op::N, R, d, b.nq, dw.data(), R, b.q, int(b.ld), G.data(e_[b.layer]), d, true);
  }

  // The block's counts p [nq, nk] (row r's keys [key_begin, key_end) only) from its content scores z
  // [nq, nk]; gates (optional, may be z): the gates written there. Returns the highest row any count
  // reaches, -1 when no row sees a key.
  int block_counts(const AttnBlock<S>& b, const S* z, S* gates, S* p) const {
    std::vector<S>& g = hook_buffer<S>(2, size_t(b.nk));
    int top = -1;
    for (int r = 0; r < b.nq; ++r) {
      const int t0 = b.key_begin(r), t1 = b.key_end(r);
      if (t0 >= t1) continue;
      const S* zr = z + size_t(r) * b.nk;
      for (int t = t0; t < t1; ++t) g[t] = -zr[t];
      math::exp_inplace(g.data() + t0, t1 - t0);
      S run = 0;
      S* pr = p + size_t(r) * b.nk;
      for (int t = t1 - 1; t >= t0; --t) {
        g[t] = S(1) / (S(1) + g[t]);
        pr[t] = run += g[t];
      }
      if (gates) std::copy(g.begin() + t0, g.begin() + t1, gates + size_t(r) * b.nk + t0);
      top = std::max(top, int(std::ceil(std::min(pr[t0], S(rows_ - 1)))));
    }
    return top;
  }
  // w = Q E[0..top]^T / sqrt(d): [nq, top + 1] in scratch slot 2.
  const std::vector<S>& block_w(CParamView<S> P, const AttnBlock<S>& b, int top) const {
    const int R = top + 1;
    std::vector<S>& w = hook_buffer<S>(2, size_t(b.nq) * R);
    gemm(Op::N, Op::T, b.nq, R, b.dh, b.q, int(b.ld), P.data(e_[b.layer]), b.dh, w.data(), R, false);
    const S scale = S(1) / std::sqrt(S(b.dh));
    for (S& v : w) v *= scale;
    return w;
  }
  // One query row's gates g [nk], counts p [nk] (unclamped) and w[j] = q.E[j] / sqrt(d) for j <= top, the
  // highest row any count reaches, in per-thread scratch (slots 0..2).
  struct Row {
    const S *g, *p, *w;
    int top;
  };
  Row counts(CParamView<S> P, const AttnRow<S>& r) const {
    const S scale = S(1) / std::sqrt(S(r.dh));
    std::vector<S>& g = hook_buffer<S>(0, size_t(r.nk));
    std::vector<S>& p = hook_buffer<S>(1, size_t(r.nk));
    // g_t = 1 / (1 + exp(-z_t))
    for (int t = 0; t < r.nk; ++t) g[t] = -scale * hook_dot(r.q, r.keys(t), r.dh);
    math::exp_inplace(g.data(), r.nk);
    for (int t = 0; t < r.nk; ++t) g[t] = S(1) / (S(1) + g[t]);
    // p_t = g_t + p_{t+1}, from the last key back (p is non-increasing: p_0 is the largest)
    S run = 0;
    for (int t = r.nk - 1; t >= 0; --t) p[t] = run += g[t];
    const int top = int(std::ceil(std::min(p[0], S(rows_ - 1))));
    std::vector<S>& w = hook_buffer<S>(2, size_t(top) + 1);
    const S* E = P.data(e_[r.layer]);
    for (int j = 0; j <= top; ++j) w[j] = scale * hook_dot(r.q, E + size_t(j) * r.dh, r.dh);
    return {g.data(), p.data(), w.data(), top};
  }
  // A count clamped to P - 1 and split into its two rows and the weight of the upper one.
  struct Lerp {
    int f, c;
    S a;
  };
  Lerp lerp(S p) const {
    const S pc = std::min(p, S(rows_ - 1)), fl = std::floor(pc);
    return {int(fl), int(std::ceil(pc)), pc - fl};
  }

  int rows_ = 0;
  std::vector<int> e_;
};

}  // namespace pe
