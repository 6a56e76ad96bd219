// `rope`: after projection, rotate plane j of the query at position m by m*theta_j and of the key at
// position n by n*theta_j: (x, y) -> (x cos a - y sin a, x sin a + y cos a). Values are not rotated.
// Angles are computed in double from the active FrequencyPlan and cast. Partial RoPE: only the
// first round(rotary_fraction * d/2) planes rotate.
#pragma once
#include <cmath>

#include "core/errors.h"
#include "core/math.h"
#include "schemes/frequency_plan.h"
#include "schemes/scheme.h"

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
  PositionGeometry geometry() const override { return {PositionGeometry::Kind::Rotation, base_, {}}; }
  int rotating_planes() const { return rotating_; }

  bool accepts_frequency_plan() const override { return true; }
  FrequencyPlan plan_for(const MapSpec& map, int train_len, int read_len, int pass_len = 0) const override {
    return map.plan(this->cfg_.d_head, base_, rotating_, train_len, read_len, pass_len);
  }
  void set_frequency_plan(FrequencyPlan plan) override { set_plan(std::move(plan)); }
  std::vector<FrequencyPlan> frequency_plans() const override { return {plan_}; }
  // Replaces the frequencies (a context-extension map); clears the angle caches unless the angles
  // are the same (a length-dependent plan re-made for a longer pass often is).
  void set_plan(FrequencyPlan plan) {
    const bool same_angles =
        plan.theta == plan_.theta && plan.warp_window == plan_.warp_window && plan.warp_factor == plan_.warp_factor;
    plan_ = std::move(plan);
    if (same_angles) return;
    cached_ = -1, lo_ = 0;
    cos_.clear();
    sin_.clear();
    wcos_.clear();
    wsin_.clear();
  }
  const FrequencyPlan& plan() const { return plan_; }
  using Scheme<S>::content_scale;
  S content_scale(int) const override { return S(plan_.logit_scale); }

  // Fills cos/sin of pos * theta_j for pos = 0..max_pos, plane-major per position (under a distance
  // warp: of theta_j d' for the distances d = 0..max_pos instead).
  void prepare(int max_pos) override {
    if (lo_ > 0) cached_ = -1, lo_ = 0;  // a range prepared alone: fill from 0 again
    if (max_pos <= cached_) return;
    const int P = int(plan_.theta.size());
    auto& c = warped() ? wcos_ : cos_;
    auto& s = warped() ? wsin_ : sin_;
    c.resize(size_t(max_pos + 1) * P);
    s.resize(size_t(max_pos + 1) * P);
    for (int m = cached_ + 1; m <= max_pos; ++m) {
      const double at = warped() ? compress_distance(m, plan_.warp_window, plan_.warp_factor) : double(m);
      for (int j = 0; j < P; ++j) {
        const double a = at * plan_.theta[j];
        c[size_t(m) * P + j] = S(math::cos(a));
        s[size_t(m) * P + j] = S(math::sin(a));
      }
    }
    cached_ = max_pos;
  }

  // Only positions lo..hi (cached decoding with a plan re-made at every step needs the new token's
  // row alone, not every row from 0).
  void prepare_range(int lo, int hi) override {
    if (warped() || lo <= 0 || (lo >= lo_ && hi <= cached_)) return prepare(hi);
    const int P = int(plan_.theta.size());
    cos_.resize(size_t(hi + 1) * P);
    sin_.resize(size_t(hi + 1) * P);
    for (int m = lo; m <= hi; ++m)
      for (int j = 0; j < P; ++j) {
        const double a = double(m) * plan_.theta[j];
        cos_[size_t(m) * P + j] = S(math::cos(a));
        sin_[size_t(m) * P + j] = S(math::sin(a));
      }
    lo_ = lo, cached_ = hi;
  }

  // x: [n, H*dh]; plane j of every head of row i turns by pos[i] * theta_j. Under a distance warp the
  // queries and keys stay unturned and the score hook turns each pair by its warped distance.
  using Scheme<S>::qk_forward;
  using Scheme<S>::qk_backward;
  void qk_forward(int, Qk, const int* pos, int n, S* x) const override {
    if (!warped()) rotate(pos, n, x, S(1));
  }
  // The transpose of the rotation (turn back): dL/dx = R(-a) dL/dy.
  void qk_backward(int, Qk, const int* pos, int n, S* dx) const override {
    if (!warped()) rotate(pos, n, dx, S(-1));
  }

  // Distance warp (compress): for the pair (m, n), d = m - n, each rotating plane contributes
  // cos(theta_j d')(qa ka + qb kb) + sin(theta_j d')(qa kb - qb ka), which is q.R(-theta_j d')k, the
  // RoPE score at distance d'. The attention's content score already holds the unturned qa ka + qb kb,
  // so the hook adds scale * [(c - 1)(qa ka + qb kb) + s (qa kb - qb ka)], scale = logit_scale/sqrt(dh).
  bool acts_on_scores() const override { return warped(); }
  void score_forward(CParamView<S>, const AttnRow<S>& r, S* scores) const override {
    const S scale = S(plan_.logit_scale) / std::sqrt(S(r.dh));
    for (int t = 0; t < r.nk; ++t) {
      const S* k = r.keys(t);
      const auto [c, s] = warped_angle(r.qpos - r.kpos[t]);
      S delta = 0;
      for (int j = 0; j < rotating_; ++j) {
        const S qa = r.q[2 * j], qb = r.q[2 * j + 1], ka = k[2 * j], kb = k[2 * j + 1];
        delta += (c[j] - S(1)) * (qa * ka + qb * kb) + s.sign * s.v[j] * (qa * kb - qb * ka);
      }
      scores[t] += scale * delta;
    }
  }
  // undoes scores[t] += scale * delta: d delta/dqa = (c-1) ka + s kb, /dqb = (c-1) kb - s ka,
  // /dka = (c-1) qa - s qb, /dkb = (c-1) qb + s qa.
  void score_backward(CParamView<S>, ParamView<S>, const AttnRow<S>& r, const S* ds, S* dq, const KeyRows<S>& dkeys,
                      S*) const override {
    const S scale = S(plan_.logit_scale) / std::sqrt(S(r.dh));
    for (int t = 0; t < r.nk; ++t) {
      const S g = ds[t] * scale;
      if (g == S(0)) continue;
      const S* k = r.keys(t);
      S* dk = dkeys(t);
      const auto [c, s] = warped_angle(r.qpos - r.kpos[t]);
      for (int j = 0; j < rotating_; ++j) {
        const S qa = r.q[2 * j], qb = r.q[2 * j + 1], ka = k[2 * j], kb = k[2 * j + 1];
        const S cm = c[j] - S(1), sn = s.sign * s.v[j];
        dq[2 * j] += g * (cm * ka + sn * kb);
        dq[2 * j + 1] += g * (cm * kb - sn * ka);
        dk[2 * j] += g * (cm * qa - sn * qb);
        dk[2 * j + 1] += g * (cm * qb + sn * qa);
      }
    }
  }

 private:
  double base_;
  void rotate(const int* pos, int n, S* x, S sign) const {
    const int H = this->cfg_.n_heads, dh = this->cfg_.d_head, P = dh / 2;
    for (int i = 0; i < n; ++i) {
      if (pos[i] < lo_ || pos[i] > cached_) throw Error("rope: position outside the prepared range; call prepare()");
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

  bool warped() const { return plan_.warp_factor > 0; }
  struct Sines {
    const S* v;
    S sign;
  };
  // cos and sin of theta_j d' for distance d (sin odd in d).
  std::pair<const S*, Sines> warped_angle(int d) const {
    const int a = d < 0 ? -d : d, P = int(plan_.theta.size());
    if (a > cached_) throw Error("rope: distance outside the prepared range; call prepare()");
    return {&wcos_[size_t(a) * P], Sines{&wsin_[size_t(a) * P], d < 0 ? S(-1) : S(1)}};
  }

  int rotating_ = 0;
  FrequencyPlan plan_;
  int cached_ = -1, lo_ = 0;    // positions lo_ .. cached_ are prepared
  std::vector<S> cos_, sin_;    // by position
  std::vector<S> wcos_, wsin_;  // by distance, under a warp
};

}  // namespace pe
