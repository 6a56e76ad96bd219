// `learned`: h_m = E[x_m] + P[m], P a trained [rows, d] table initialised N(0, std^2).
// A position >= rows has no row: can_read() is false there and callers report null.
#pragma once
#include "core/errors.h"
#include "schemes/scheme.h"

namespace pe {

template <class S>
class LearnedScheme final : public Scheme<S> {
 public:
  explicit LearnedScheme(SchemeConfig cfg)
      : Scheme<S>(std::move(cfg)), rows_(this->cfg_.template setting<int>("learned_rows")) {}
  std::string name() const override { return "learned"; }
  void declare(ParamLayout& layout) override { table_ = layout.add("pos.table", rows_, this->cfg_.d_model); }
  void init(ParamView<S> P, Rng& rng) const override { init_normal(P(table_), this->cfg_.init_std, rng); }
  int max_position() const override { return rows_ - 1; }
  bool acts_on_embedding() const override { return true; }

  // out: [n, d]; out[i] += P[pos[i]].
  void embed_forward(CParamView<S> P, const int* pos, int n, S* out) const override {
    const auto T = P(table_);
    const int d = this->cfg_.d_model;
    for (int i = 0; i < n; ++i) {
      if (!this->can_read(pos[i])) throw UsageError("learned table has no row for position " + std::to_string(pos[i]));
      for (int c = 0; c < d; ++c) out[size_t(i) * d + c] += T(pos[i], c);
    }
  }
  // Undoes out[i] += P[pos[i]]: dP[pos[i]] += dout[i].
  void embed_backward(CParamView<S> P, ParamView<S> G, const int* pos, int n, const S* dout) const override {
    auto dT = G(table_);
    const int d = this->cfg_.d_model;
    for (int i = 0; i < n; ++i)
      for (int c = 0; c < d; ++c) dT(pos[i], c) += dout[size_t(i) * d + c];
  }

 private:
  int rows_;
  int table_ = -1;
};

}  // namespace pe
