// `sinusoidal`: h_m = E[x_m] + a p(m), p(m)[2j] = sin(m theta_j), p(m)[2j+1] = cos(m theta_j) (the
// interleaved layout, the default), or p(m)[j] = sin(m theta_j), p(m)[d/2 + j] = cos(m theta_j)
// (sinusoidal_layout "concatenated": the halves of tensor2tensor's timing signal); a =
// sinusoidal_scale (1: full amplitude, the default). Computed in double and cast. Defined for every
// integer position.
#pragma once
#include <string>
#include <vector>

#include "core/errors.h"
#include "core/frequencies.h"
#include "schemes/scheme.h"

namespace pe {

template <class S>
class SinusoidalScheme final : public Scheme<S> {
 public:
  explicit SinusoidalScheme(SchemeConfig cfg)
      : Scheme<S>(std::move(cfg)),
        base_(this->cfg_.template setting<double>("base")),
        scale_(this->cfg_.template setting<double>("sinusoidal_scale")) {
    const std::string layout = this->cfg_.template setting<std::string>("sinusoidal_layout");
    if (layout != "interleaved" && layout != "concatenated")
      throw ConfigError("sinusoidal_layout is '" + layout +
                        "': give interleaved (sin, cos of each plane side by "
                        "side, the default) or concatenated (every sine, then every cosine)");
    concatenated_ = layout == "concatenated";
  }
  std::string name() const override { return "sinusoidal"; }
  bool acts_on_embedding() const override { return true; }
  // The readings of an added code (tasks/cue/geometry.cpp, the doctor's code rows) compute the default code
  // themselves: another layout or amplitude is read as any other scheme.
  PositionGeometry geometry() const override {
    if (concatenated_ || scale_ != 1.0) return {};
    return {PositionGeometry::Kind::AddedCode, base_, {}};
  }

  // Caches p(m) for m = 0..max_pos (the same rows every training step).
  void prepare(int max_pos) override {
    const int d = this->cfg_.d_model;
    if (max_pos <= cached_) return;
    code_.resize(size_t(max_pos + 1) * d);
    std::vector<double> row(d);
    for (int m = cached_ + 1; m <= max_pos; ++m) {
      code(m, row.data());
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
        code(pos[i], row.data());
        for (int c = 0; c < d; ++c) o[c] += S(row[c]);
      }
    }
  }
  // No parameters: nothing to accumulate.

 private:
  // a p(m) in its layout, in double
  void code(int m, double* out) const {
    const int d = this->cfg_.d_model;
    sinusoidal_code(double(m), d, base_, out);
    if (concatenated_) {
      const std::vector<double> il(out, out + d);
      for (int j = 0; j < d / 2; ++j) out[j] = il[2 * j], out[d / 2 + j] = il[2 * j + 1];
    }
    if (scale_ != 1.0)
      for (int c = 0; c < d; ++c) out[c] *= scale_;
  }

  double base_, scale_;
  bool concatenated_ = false;
  int cached_ = -1;
  std::vector<S> code_;  // [cached_ + 1, d]
};

}  // namespace pe
