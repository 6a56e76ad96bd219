// `none` (NoPE): no position anywhere; the causal mask is the only source of order.
#pragma once
#include "schemes/scheme.h"

namespace pe {

template <class S>
class NoneScheme final : public Scheme<S> {
 public:
  using Scheme<S>::Scheme;
  std::string name() const override { return "none"; }
};

}  // namespace pe
