// `alibi-learned`: ALiBi (Press et al. 2022) with its slopes trained, one per head and layer:
//   s(m,n) = c(m,n) - slope_{l,h} |m - n|
// For a causal model this is ALiBi's -slope (m - n) on every visible key; a model whose queries see later keys
// gets the symmetric form, as alibi's encoder form. The slopes start at ALiBi's fixed geometric ones
// (2^(-8h/H), Press et al.) in every layer and stay positive through slope = exp(a), with a the tensor
// pos.layer<l>.alibi_slope [1, n_heads]. The paper keeps its slopes fixed, reporting that trained ones did not
// extrapolate well; the variant is here to measure that. The hooks, and the gradient in a, are the distance-bias ones
// (schemes/distance_bias.h): this is KERPLE's family with the kernel -r1 d.
#pragma once
#include <string>
#include <vector>

#include "core/math.h"
#include "schemes/distance_bias.h"

namespace pe {

template <class S>
class AlibiLearnedScheme final : public DistanceBiasScheme<S> {
 public:
  explicit AlibiLearnedScheme(SchemeConfig cfg) : DistanceBiasScheme<S>(std::move(cfg), "alibi_slope", 1) {}
  std::string name() const override { return "alibi-learned"; }

  // Every layer's slopes start at ALiBi's fixed ones (the generator is not read: the init is the reference).
  void init(ParamView<S> P, Rng&) const override {
    const std::vector<double> slopes = alibi_reference_slopes(this->cfg_.n_heads);
    for (int id : this->tensors()) {
      S* x = P.data(id);
      for (size_t h = 0; h < slopes.size(); ++h) x[h] = S(math::log(slopes[h]));
    }
  }

 protected:
  // slope = exp(a)
  DistanceKernel kernel_of(const S* x, int head) const override {
    DistanceKernel k;
    k.form = DistanceKernel::Form::Linear;
    k.r1 = math::exp(double(x[head]));
    return k;
  }
};

}  // namespace pe
