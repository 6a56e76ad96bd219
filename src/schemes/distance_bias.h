// A learned bias of the distance d = |m - n| added to every score, one small kernel per head and layer read
// from the tensor pos.layer<l>.<tensor> [rows, n_heads]: the hooks that KERPLE (schemes/kerple.h) and ALiBi
// with learned slopes (schemes/alibi_learned.h) share; they differ in the kernel alone.
//   s(m,n) = c(m,n) + k_h(|m - n|)
// The kernel reads |m - n|, so a key d before the query and one d after get the same bias (its encoder form is
// itself). The bias of each distance is computed once per head in double (core/math: the same bits on every
// CPU), and the row and block paths add the same values in the same order.
#pragma once
#include <algorithm>
#include <cmath>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "core/math.h"
#include "schemes/scheme.h"

namespace pe {

// One head's kernel of the distance, with at most two parameters (a, b) and its derivatives in them.
struct DistanceKernel {
  enum class Form { Log, Power, Linear };
  Form form = Form::Log;
  double r1 = 1, r2 = 1, dr2 = 1;  // r1 = exp(a); r2 and dr2 = dr2/db (Log, Power)
  //   Log:    -r1 log(1 + r2 d)
  //   Power:  -r1 d^r2
  //   Linear: -r1 d
  double bias(int d) const {
    switch (form) {
      case Form::Power:
        return d == 0 ? 0.0 : -r1 * math::pow(double(d), r2);
      case Form::Linear:
        return -r1 * double(d);
      case Form::Log:
        break;
    }
    return -r1 * math::log(1.0 + r2 * double(d));
  }
  // (dk/da, dk/db): dk/da = k (r1 = exp(a)); dk/db = dk/dr2 dr2/db (0 for the linear form)
  std::pair<double, double> grad(int d) const {
    if (d == 0) return {0.0, 0.0};
    const double k = bias(d);
    switch (form) {
      case Form::Power:
        return {k, k * math::log(double(d)) * dr2};
      case Form::Linear:
        return {k, 0.0};
      case Form::Log:
        break;
    }
    return {k, -r1 * double(d) / (1.0 + r2 * double(d)) * dr2};
  }
};

template <class S>
class DistanceBiasScheme : public Scheme<S> {
 public:
  std::string later_keys() const override {
    return "the same kernel of |m - n|: a key d before and one d after get the same bias (no direction)";
  }
  bool acts_on_scores() const override { return true; }

  void declare(ParamLayout& layout) override {
    for (int l = 0; l < this->cfg_.n_layers; ++l)
      ids_.push_back(layout.add(fmt::format("pos.layer{}.{}", l, tensor_), rows_, this->cfg_.n_heads));
  }

  // scores[t] += k(|qpos - kpos[t]|)
  void score_forward(CParamView<S> P, const AttnRow<S>& r, S* scores) const override {
    const DistanceKernel k = kernel(P, r.layer, r.head);
    for (int t = 0; t < r.nk; ++t) scores[t] += S(k.bias(std::abs(r.qpos - r.kpos[t])));
  }
  // undoes it: da += sum_t ds[t] dk/da, db += sum_t ds[t] dk/db (summed in double per row, keys ascending)
  void score_backward(CParamView<S> P, ParamView<S> G, const AttnRow<S>& r, const S* ds, S*, const KeyRows<S>&,
                      S*) const override {
    const DistanceKernel k = kernel(P, r.layer, r.head);
    double ga = 0, gb = 0;
    for (int t = 0; t < r.nk; ++t) {
      const auto [da, db] = k.grad(std::abs(r.qpos - r.kpos[t]));
      ga += double(ds[t]) * da, gb += double(ds[t]) * db;
    }
    add_grad(G, r.layer, r.head, ga, gb);
  }

  // A block at once (the dense path): each distance's bias computed once, then added to each row's visible
  // keys, as the row hook adds them.
  bool block_scores(int) const override { return true; }
  void score_block_forward(CParamView<S> P, const AttnBlock<S>& b, S* scores) const override {
    const DistanceKernel k = kernel(P, b.layer, b.head);
    const int far = farthest(b);
    std::vector<S>& bias = hook_scratch<S>(3, size_t(far) + 1);
    for (int d = 0; d <= far; ++d) bias[size_t(d)] = S(k.bias(d));
    for (int r = 0; r < b.nq; ++r) {
      S* sr = scores + size_t(r) * b.nk;
      for (int t = b.key_begin(r); t < b.key_end(r); ++t) sr[t] += bias[size_t(std::abs(b.qpos[r] - b.kpos[t]))];
    }
  }
  // undoes it: the row hook's sums, row by row over the same keys in the same order
  void score_block_backward(CParamView<S> P, ParamView<S> G, const AttnBlock<S>& b, const S* ds, S*, S*,
                            S*) const override {
    const DistanceKernel k = kernel(P, b.layer, b.head);
    const int far = farthest(b);
    std::vector<double> ga(size_t(far) + 1), gb(size_t(far) + 1);
    for (int d = 0; d <= far; ++d) std::tie(ga[size_t(d)], gb[size_t(d)]) = k.grad(d);
    for (int r = 0; r < b.nq; ++r) {
      const S* dr = ds + size_t(r) * b.nk;
      double sa = 0, sb = 0;
      for (int t = b.key_begin(r); t < b.key_end(r); ++t) {
        const size_t d = size_t(std::abs(b.qpos[r] - b.kpos[t]));
        sa += double(dr[t]) * ga[d], sb += double(dr[t]) * gb[d];
      }
      add_grad(G, b.layer, b.head, sa, sb);
    }
  }

 protected:
  // tensor: the name of each layer's tensor (pos.layer<l>.<tensor>); rows: its parameters per head (1 or 2)
  DistanceBiasScheme(SchemeConfig cfg, std::string tensor, int rows)
      : Scheme<S>(std::move(cfg)), tensor_(std::move(tensor)), rows_(rows) {}
  // Head h's kernel from its layer's tensor x ([rows, H]: x[h], then x[H + h]).
  virtual DistanceKernel kernel_of(const S* x, int head) const = 0;
  // The tensor of each layer, as declared.
  const std::vector<int>& tensors() const { return ids_; }

 private:
  DistanceKernel kernel(CParamView<S> P, int layer, int head) const {
    return kernel_of(P.data(ids_.at(size_t(layer))), head);
  }
  void add_grad(ParamView<S> G, int layer, int head, double ga, double gb) const {
    S* g = G.data(ids_.at(size_t(layer)));
    g[head] += S(ga);
    if (rows_ > 1) g[this->cfg_.n_heads + head] += S(gb);
  }
  // The largest distance a block hook reads (every key between a row's first and last visible one).
  static int farthest(const AttnBlock<S>& b) {
    const auto [lo, hi] = block_visible_age_range(b);
    return std::max({0, std::abs(lo), std::abs(hi)});
  }
  std::string tensor_;
  int rows_;
  std::vector<int> ids_;  // per layer: [rows, H]
};

}  // namespace pe
