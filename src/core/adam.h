// Adam (and AdamW via weight_decay) over flat parameter buffers: one loop over every scalar.
#pragma once
#include <cmath>
#include <stdexcept>
#include <vector>
#include "core/math.h"

namespace pe {

struct AdamConfig {
  double lr = 1e-3, beta1 = 0.9, beta2 = 0.999, eps = 1e-8, weight_decay = 0.0;
};

template <class S>
class Adam {
 public:
  Adam(size_t n, AdamConfig cfg) : cfg_(cfg), m_(n, S(0)), v_(n, S(0)) {}
  // One step on params p given gradients g (both length n). Decoupled weight decay (AdamW).
  void step(S* p, const S* g) {
    ++t_;
    const S b1 = S(cfg_.beta1), b2 = S(cfg_.beta2);
    const S c1 = S(1.0 / (1.0 - math::pow(cfg_.beta1, double(t_))));
    const S c2 = S(1.0 / (1.0 - math::pow(cfg_.beta2, double(t_))));
    const S lr = S(cfg_.lr), eps = S(cfg_.eps), wd = S(cfg_.lr * cfg_.weight_decay);
    const size_t n = m_.size();
    for (size_t i = 0; i < n; ++i) {
      m_[i] = b1 * m_[i] + (S(1) - b1) * g[i];
      v_[i] = b2 * v_[i] + (S(1) - b2) * g[i] * g[i];
      const S mhat = m_[i] * c1, vhat = v_[i] * c2;
      p[i] -= lr * mhat / (std::sqrt(vhat) + eps) + wd * p[i];
    }
  }
  long steps() const { return t_; }
  // The learning rate of the next steps (a schedule sets it before each step).
  void set_lr(double lr) { cfg_.lr = lr; }
  // The moments and step count, to save a training run and continue it later bit for bit.
  const std::vector<S>& first_moment() const { return m_; }
  const std::vector<S>& second_moment() const { return v_; }
  void restore(std::vector<S> m, std::vector<S> v, long t) {
    if (m.size() != m_.size() || v.size() != v_.size()) throw std::invalid_argument("Adam::restore: sizes differ");
    m_ = std::move(m), v_ = std::move(v), t_ = t;
  }

 private:
  AdamConfig cfg_;
  std::vector<S> m_, v_;
  long t_ = 0;
};

}  // namespace pe
