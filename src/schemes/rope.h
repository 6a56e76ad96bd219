// `rope`: after projection, rotate plane j of the query at position m by m*theta_j and of the key at
// position n by n*theta_j: (x, y) -> (x cos a - y sin a, x sin a + y cos a). Values are not rotated.
// Angles are computed in double from the active FrequencyPlan and cast. Partial RoPE: only the
// first round(rotary_fraction * d/2) planes rotate.
#pragma once
#include <cmath>

#include "core/errors.h"
#include "schemes/frequency_plan.h"
#include "schemes/scheme.h"
#include "core/math.h"

namespace pe {

template <class S>
class RopeScheme final : public Scheme<S> {
 public:
  explicit RopeScheme(SchemeConfig cfg) : Scheme<S>(std::move(cfg)) {
    if (this->cfg_.d_head % 2 != 0) throw UsageError("rope: head width must be even");
    // base and rotary_fraction are in their declared domains (fill_scheme_settings checked them)
    base_ = this->cfg_.template setting<double>("base");
    const double fraction = this->cfg_.template setting<double>("rotary_fraction");
    rotating_ = int(std::lround(fraction * this->cfg_.d_head / 2));
    plan_ = identity_plan(this->cfg_.d_head, base_, rotating_);
  }
  std::string name() const override { return "rope"; }
  bool acts_on_qk() const override { return true; }
  int rotating_planes() const { return rotating_; }

  bool accepts_frequency_plan() const override { return true; }
  FrequencyPlan plan_for(const std::string& map, int train_len, int read_len) const override {
    return make_plan(map, this->cfg_.d_head, base_, rotating_, train_len, read_len);
  }
  void set_frequency_plan(FrequencyPlan plan) override { set_plan(std::move(plan)); }
  // Replaces the frequencies (a context-extension map); clears the angle cache.
  void set_plan(FrequencyPlan plan) {
    plan_ = std::move(plan);
    cached_ = -1;
    cos_.clear();
    sin_.clear();
  }
  const FrequencyPlan& plan() const { return plan_; }
  using Scheme<S>::content_scale;
  S content_scale(int) const override { return S(plan_.logit_scale); }

  // Fills cos/sin of pos * theta_j for pos = 0..max_pos, plane-major per position.
  void prepare(int max_pos) override {
    if (max_pos <= cached_) return;
    const int P = int(plan_.theta.size());
    cos_.resize(size_t(max_pos + 1) * P);
    sin_.resize(size_t(max_pos + 1) * P);
    for (int m = cached_ + 1; m <= max_pos; ++m)
      for (int j = 0; j < P; ++j) {
        const double a = double(m) * plan_.theta[j];
        cos_[size_t(m) * P + j] = S(math::cos(a));
        sin_[size_t(m) * P + j] = S(math::sin(a));
      }
    cached_ = max_pos;
  }

  // x: [n, H*dh]; plane j of every head of row i turns by pos[i] * theta_j.
  using Scheme<S>::qk_forward;
  using Scheme<S>::qk_backward;
  void qk_forward(int, const int* pos, int n, S* x) const override { rotate(pos, n, x, S(1)); }
  // The transpose of the rotation (turn back): dL/dx = R(-a) dL/dy.
  void qk_backward(int, const int* pos, int n, S* dx) const override { rotate(pos, n, dx, S(-1)); }

 private:
  double base_;
  void rotate(const int* pos, int n, S* x, S sign) const {
    const int H = this->cfg_.n_heads, dh = this->cfg_.d_head, P = dh / 2;
    for (int i = 0; i < n; ++i) {
      if (pos[i] < 0 || pos[i] > cached_) throw Error("rope: position outside the prepared range; call prepare()");
      const S* c = &cos_[size_t(pos[i]) * P];
      const S* s = &sin_[size_t(pos[i]) * P];
      for (int h = 0; h < H; ++h) {
        S* row = x + size_t(i) * H * dh + size_t(h) * dh;
        for (int j = 0; j < rotating_; ++j) {
          const S a = row[2 * j], b = row[2 * j + 1], sn = sign * s[j];
          row[2 * j] = a * c[j] - b * sn;
          row[2 * j + 1] = a * sn + b * c[j];
        }
      }
    }
  }

  int rotating_ = 0;
  FrequencyPlan plan_;
  int cached_ = -1;
  std::vector<S> cos_, sin_;
};

}  // namespace pe
