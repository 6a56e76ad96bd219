// `sinusoidal`: h_m = E[x_m] + p(m), p(m)[2j] = sin(m theta_j), p(m)[2j+1] = cos(m theta_j),
// full amplitude, computed in double and cast. Defined for every integer position.
#pragma once
#include "core/frequencies.h"
#include "schemes/scheme.h"

namespace pe {

template <class S>
class SinusoidalScheme final : public Scheme<S> {
 public:
  explicit SinusoidalScheme(SchemeConfig cfg)
      : Scheme<S>(std::move(cfg)), base_(this->cfg_.template setting<double>("base")) {}
  std::string name() const override { return "sinusoidal"; }
  bool acts_on_embedding() const override { return true; }
  PositionGeometry geometry() const override { return {PositionGeometry::Kind::AddedCode, base_, {}}; }

  // Caches p(m) for m = 0..max_pos (the same rows every training step).
  void prepare(int max_pos) override {
    const int d = this->cfg_.d_model;
    if (max_pos <= cached_) return;
    code_.resize(size_t(max_pos + 1) * d);
    std::vector<double> row(d);
    for (int m = cached_ + 1; m <= max_pos; ++m) {
      sinusoidal_code(double(m), d, base_, row.data());
      for (int c = 0; c < d; ++c) code_[size_t(m) * d + c] = S(row[c]);
    }
    cached_ = max_pos;
  }

  // out: [n, d]; out[i] += p(pos[i]) (from the cache, or computed for positions outside it).
  void embed_forward(CParamView<S> P, const int* pos, int n, S* out) const override {
    const int d = this->cfg_.d_model;
    std::vector<double> row(d);
    for (int i = 0; i < n; ++i) {
      S* o = out + size_t(i) * d;
      if (pos[i] >= 0 && pos[i] <= cached_) {
        const S* p = &code_[size_t(pos[i]) * d];
        for (int c = 0; c < d; ++c) o[c] += p[c];
      } else {
        sinusoidal_code(double(pos[i]), d, base_, row.data());
        for (int c = 0; c < d; ++c) o[c] += S(row[c]);
      }
    }
  }
  // No parameters: nothing to accumulate.

 private:
  double base_;
  int cached_ = -1;
  std::vector<S> code_;  // [cached_ + 1, d]
};

}  // namespace pe
