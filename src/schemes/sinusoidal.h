// `sinusoidal`: h_m = E[x_m] + p(m), p(m)[2j] = sin(m theta_j), p(m)[2j+1] = cos(m theta_j),
// full amplitude, computed in double and cast. Defined for every integer position.
#pragma once
#include "core/frequencies.h"
#include "schemes/scheme.h"

namespace pe {

template <class S>
class SinusoidalScheme final : public Scheme<S> {
 public:
  using Scheme<S>::Scheme;
  std::string name() const override { return "sinusoidal"; }
  nlohmann::json describe() const override { return {{"name", name()}, {"base", this->cfg_.base}}; }
  bool acts_on_embedding() const override { return true; }

  // out: [n, d]; out[i] += p(pos[i]).
  void embed_forward(CParamView<S> P, const int* pos, int n, S* out) const override {
    const int d = this->cfg_.d_model;
    std::vector<double> code(d);
    for (int i = 0; i < n; ++i) {
      sinusoidal_code(double(pos[i]), d, this->cfg_.base, code.data());
      for (int c = 0; c < d; ++c) out[size_t(i) * d + c] += S(code[c]);
    }
  }
  // No parameters: nothing to accumulate.
};

}  // namespace pe
