// `kerple` (Chi et al. 2022, "KERPLE: Kernelized Relative Positional Embedding for Length
// Extrapolation"): a learned conditionally positive definite kernel of the distance d = |m - n|, added
// to every score, one pair (r1, r2) per head and layer:
//   log form (kerple_kernel "log"):     s(m,n) = c(m,n) - r1 log(1 + r2 d)
//   power form (kerple_kernel "power"): s(m,n) = c(m,n) - r1 d^r2,   0 < r2 <= 2
// The paper keeps r1, r2 positive by clamping them after each step (at 1e-2; the power form's r2 also at
// 2). pe-bench trains them through a smooth map instead, so the hand-written gradient is the function's:
// r1 = exp(a), and r2 = exp(b) (log form) or 2 sigmoid(b) (power form), with (a, b) the tensor
// pos.layer<l>.kerple [2, n_heads] (row 0: a, row 1: b). Init as the paper's: r1 ~ U(0, 2), and
// r2 ~ U(0, 1) (log) or U(0, 2) (power), each at least 1e-2 (and the power form's r2 below 2).
// The hooks, and the gradient of the kernel in (a, b), are the distance-bias ones (schemes/distance_bias.h).
#pragma once
#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "core/errors.h"
#include "core/math.h"
#include "schemes/distance_bias.h"

namespace pe {

template <class S>
class KerpleScheme final : public DistanceBiasScheme<S> {
 public:
  explicit KerpleScheme(SchemeConfig cfg) : DistanceBiasScheme<S>(std::move(cfg), "kerple", 2) {
    const std::string kernel = this->cfg_.template setting<std::string>("kerple_kernel");
    if (kernel != "log" && kernel != "power")
      throw ConfigError(
          fmt::format("kerple_kernel is '{}': choose log (-r1 log(1 + r2 d)) or power (-r1 d^r2)", kernel));
    power_ = kernel == "power";
  }
  std::string name() const override { return "kerple"; }

  void init(ParamView<S> P, Rng& rng) const override {
    const int H = this->cfg_.n_heads;
    for (int id : this->tensors()) {
      S* x = P.data(id);
      for (int h = 0; h < H; ++h) x[h] = S(math::log(std::max(1e-2, 2.0 * rng.uniform())));  // r1 ~ U(0, 2)
      for (int h = 0; h < H; ++h) {
        const double r2 = std::clamp((power_ ? 2.0 : 1.0) * rng.uniform(), 1e-2, 2.0 - 1e-2);
        x[H + h] = S(power_ ? math::log(r2 / (2.0 - r2)) : math::log(r2));  // b = r2's inverse map
      }
    }
  }

 protected:
  // r1 = exp(a); r2 = exp(b) (log form) or 2 sigmoid(b) (power form)
  DistanceKernel kernel_of(const S* x, int head) const override {
    const int H = this->cfg_.n_heads;
    DistanceKernel k;
    k.form = power_ ? DistanceKernel::Form::Power : DistanceKernel::Form::Log;
    k.r1 = math::exp(double(x[head]));
    const double b = double(x[H + head]);
    if (power_) {
      const double sig = 1.0 / (1.0 + math::exp(-b));
      k.r2 = 2.0 * sig, k.dr2 = 2.0 * sig * (1.0 - sig);
    } else {
      k.r2 = math::exp(b), k.dr2 = k.r2;
    }
    return k;
  }

 private:
  bool power_ = false;
};

}  // namespace pe
