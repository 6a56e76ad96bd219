// `alibi`: s(m,n) = c(m,n) - slope_h * (m - n) for visible keys (the causal form). In a model whose
// queries see later keys (SchemeConfig::bidirectional) the symmetric encoder form
// s(m,n) = c(m,n) - slope_h * |m - n|: a key k places before the query and one k places after get the
// same bias, so this term cannot tell direction (docs/schemes.md). No learned parameters.
#pragma once
#include <cstdlib>

#include "core/errors.h"
#include "schemes/scheme.h"

namespace pe {

template <class S>
class AlibiScheme final : public Scheme<S> {
 public:
  explicit AlibiScheme(SchemeConfig cfg) : Scheme<S>(std::move(cfg)) {
    const auto given = this->cfg_.template setting<std::vector<double>>("alibi_slopes");
    slopes_ = given.empty() ? alibi_reference_slopes(this->cfg_.n_heads) : given;
    if (int(slopes_.size()) != this->cfg_.n_heads)
      throw UsageError("alibi: " + std::to_string(slopes_.size()) + " slopes given for " +
                       std::to_string(this->cfg_.n_heads) + " heads; give one slope per head");
  }
  std::string name() const override { return "alibi"; }
  bool acts_on_scores() const override { return true; }
  const std::vector<double>& slopes() const { return slopes_; }
  std::string later_keys() const override {
    return "the symmetric encoder form -slope |m - n|: a key k before and one k after get the same bias (no "
           "direction)";
  }
  // The readings of a linear bias assume the causal form.
  PositionGeometry geometry() const override {
    if (this->cfg_.bidirectional) return {};
    return {PositionGeometry::Kind::LinearBias, 0, slopes_};
  }

  // scores[t] -= slope_h * (qpos - kpos[t]), or slope_h * |qpos - kpos[t]| in the encoder form.
  void score_forward(CParamView<S>, const AttnRow<S>& r, S* scores) const override {
    const S s = S(slopes_[r.head]);
    if (this->cfg_.bidirectional)
      for (int t = 0; t < r.nk; ++t) scores[t] -= s * S(std::abs(r.qpos - r.kpos[t]));
    else
      for (int t = 0; t < r.nk; ++t) scores[t] -= s * S(r.qpos - r.kpos[t]);
  }
  // The bias has no parameters: nothing to accumulate.

 private:
  std::vector<double> slopes_;
};

}  // namespace pe
