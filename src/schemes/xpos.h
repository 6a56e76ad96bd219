// `xpos` (Sun et al. 2022, "A Length-Extrapolatable Transformer"): RoPE whose planes also decay with the
// offset. Plane j of a query at position m is turned by m theta_j (RoPE's, base `base`) and scaled by
// zeta_j^(m/B); plane j of a key at position n is turned by n theta_j and scaled by zeta_j^(-n/B), so
// the score's plane j is zeta_j^((m-n)/B) times RoPE's: offsets only, decaying with the age for m > n.
//   zeta_j = (2j/d + g) / (1 + g),  j = 0 .. d/2 - 1   (d = d_head; g = xpos_zeta_offset, 0.4)
//   B = xpos_scale_base (0: half the training length, the paper's 512 of 1,024)
// As the reference code (torchscale's XPOS): the pairs (2j, 2j+1), theta_j = base^(-2j/d), the query
// scaled up and the key down. Departures: the reference centres positions per call (min_pos =
// -length/2) to keep the scales near 1; pe-bench scales from position 0 so that a key keeps its scale in
// a decoder's cache (the score is the same: it reads m - n). A key's scale zeta_0^(-n/B) grows with n: a
// reading where it would pass 1e30 is refused (raise xpos_scale_base). The blockwise causal attention the
// paper reads long inputs with is not here: xpos reads every key, as the other schemes do.
// No parameters: the scales and angles are fixed, and the backward is the forward's transpose
// (each plane's scale times the turn back).
#pragma once
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/errors.h"
#include "schemes/rope.h"
#include "schemes/scheme.h"

namespace pe {

// xpos_scale_base 0 means half the training length.
inline void complete_xpos_scale_base(SchemeConfig& c) {
  double b = c.settings.at("xpos_scale_base").get<double>();
  if (b == 0) {
    if (c.train_length < 1)
      throw ConfigError("xpos_scale_base 0 means half the training length, and none is known: give one");
    b = c.train_length / 2.0;
  }
  c.settings["xpos_scale_base"] = b;
}

template <class S>
class XposScheme final : public Scheme<S> {
 public:
  explicit XposScheme(SchemeConfig cfg) : Scheme<S>(std::move(cfg)), rope_(rope_config(this->cfg_)) {
    const int P = this->cfg_.d_head / 2;
    const double g = this->cfg_.template setting<double>("xpos_zeta_offset");
    scale_base_ = this->cfg_.template setting<double>("xpos_scale_base");
    for (int j = 0; j < P; ++j) log_zeta_.push_back(std::log((2.0 * j / this->cfg_.d_head + g) / (1.0 + g)));
  }
  std::string name() const override { return "xpos"; }
  bool acts_on_qk() const override { return true; }
  std::string later_keys() const override {
    return "grows: a key n after the query m scores zeta^((m-n)/B) > 1 on each plane (xPos is a causal scheme)";
  }

  void prepare(int max_pos) override {
    rope_.prepare(max_pos);
    fill_scales(max_pos);
  }
  void prepare_range(int lo, int hi) override {
    rope_.prepare_range(lo, hi);
    fill_scales(hi);
  }

  // x: [n, H*dh]; plane j of every head of row i turned by pos[i] theta_j (RoPE's) and scaled by
  // zeta_j^(pos[i]/B) (queries) or zeta_j^(-pos[i]/B) (keys).
  using Scheme<S>::qk_forward;
  using Scheme<S>::qk_backward;
  void qk_forward(int layer, Qk side, const int* pos, int n, S* x) const override {
    rope_.qk_forward(layer, side, pos, n, x);
    scale(side, pos, n, x);
  }
  // undoes both: a plane's scale is one number for its two entries, so it commutes with the turn; the
  // gradient is scaled by it and turned back.
  void qk_backward(int layer, Qk side, const int* pos, int n, S* dx) const override {
    scale(side, pos, n, dx);
    rope_.qk_backward(layer, side, pos, n, dx);
  }

 private:
  static SchemeConfig rope_config(const SchemeConfig& c) {
    SchemeConfig r = c;
    r.name = "rope";
    r.settings = {{"base", c.template setting<double>("base")}};
    return r;
  }

  // up_[p P + j] = zeta_j^(p/B) and down_ its inverse, for p = 0..max_pos (computed in double, then cast).
  void fill_scales(int max_pos) {
    const int P = int(log_zeta_.size());
    if (max_pos < cached_) return;
    up_.resize(size_t(max_pos + 1) * P);
    down_.resize(size_t(max_pos + 1) * P);
    const double largest = std::log(1e30);  // a key's scale past e^largest is refused
    for (int p = cached_ + 1; p <= max_pos; ++p)
      for (int j = 0; j < P; ++j) {
        const double e = log_zeta_[j] * p / scale_base_;
        if (-e > largest)
          throw UsageError(
              fmt::format("xpos: a key at position {} would be scaled by {:.3g}, past what float32 holds safely; "
                          "raise xpos_scale_base (now {}) or read shorter",
                          p, std::exp(-e), scale_base_));
        up_[size_t(p) * P + j] = S(std::exp(e));
        down_[size_t(p) * P + j] = S(std::exp(-e));
      }
    cached_ = max_pos;
  }

  void scale(Qk side, const int* pos, int n, S* x) const {
    const int H = this->cfg_.n_heads, dh = this->cfg_.d_head, P = dh / 2;
    const std::vector<S>& table = side == Qk::Query ? up_ : down_;
    for (int i = 0; i < n; ++i) {
      if (pos[i] < 0 || pos[i] > cached_) throw Error("xpos: position outside the prepared range; call prepare()");
      const S* s = &table[size_t(pos[i]) * P];
      for (int h = 0; h < H; ++h) {
        S* row = x + size_t(i) * H * dh + size_t(h) * dh;
        for (int j = 0; j < P; ++j) row[2 * j] *= s[j], row[2 * j + 1] *= s[j];
      }
    }
  }

  RopeScheme<S> rope_;
  double scale_base_ = 1;
  std::vector<double> log_zeta_;  // log zeta_j
  int cached_ = -1;
  std::vector<S> up_, down_;
};

}  // namespace pe
