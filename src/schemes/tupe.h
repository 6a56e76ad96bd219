// `tupe` (untied positional attention, TUPE-A): a learned absolute table p [rows, d_model] (the
// learned_rows setting) with its own projections U_Q, U_K per layer ([d_model, heads * d]); nothing
// is added to the token state:
//   s(m,n) = [ <x_m W_Q, x_n W_K> + <p_m U_Q, p_n U_K> ] / sqrt(2d).
// tupe_relative (TUPE-R) adds the t5 bucket bias (t5_buckets, t5_max_distance). Like `learned`,
// a position past the table has no row: can_read() is false there. PQ = p U_Q and PK = p U_K are
// derived tables of each layer, computed once per forward call. Init: p ~ N(0, embed_init_std^2),
// U_Q, U_K as linear layers.
#pragma once
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/errors.h"
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
  bool acts_on_scores() const override { return true; }
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

  // tables = [PQ; PK]: [2 * rows, heads * d]
  size_t tables_size(int, int) const override { return size_t(2 * rows()) * width(); }
  void tables_forward(CParamView<S> P, int layer, int, S* tables) const override {
    MatMap<S>(tables, rows(), width()).noalias() = P(p_) * P(u_q_[layer]);
    MatMap<S>(tables + size_t(rows()) * width(), rows(), width()).noalias() = P(p_) * P(u_k_[layer]);
  }
  // undoes PQ = p U_Q, PK = p U_K
  void tables_backward(CParamView<S> P, ParamView<S> G, int layer, int, const S* dtables) const override {
    const CMatMap<S> dPQ(dtables, rows(), width()), dPK(dtables + size_t(rows()) * width(), rows(), width());
    G(u_q_[layer]).noalias() += P(p_).transpose() * dPQ;
    G(u_k_[layer]).noalias() += P(p_).transpose() * dPK;
    G(p_).noalias() += dPQ * P(u_q_[layer]).transpose() + dPK * P(u_k_[layer]).transpose();
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

 private:
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
