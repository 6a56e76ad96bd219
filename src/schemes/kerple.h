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
// The kernel reads |m - n|, so a key d before the query and one d after get the same bias (its encoder
// form is itself). The bias of each distance is computed once per head in double (core/math: the same bits
// on every CPU), and the row and block paths add the same values in the same order.
#pragma once
#include <algorithm>
#include <cmath>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "core/errors.h"
#include "core/math.h"
#include "schemes/scheme.h"

namespace pe {

template <class S>
class KerpleScheme final : public Scheme<S> {
 public:
  explicit KerpleScheme(SchemeConfig cfg) : Scheme<S>(std::move(cfg)) {
    const std::string kernel = this->cfg_.template setting<std::string>("kerple_kernel");
    if (kernel != "log" && kernel != "power")
      throw ConfigError(
          fmt::format("kerple_kernel is '{}': choose log (-r1 log(1 + r2 d)) or power (-r1 d^r2)", kernel));
    power_ = kernel == "power";
  }
  std::string name() const override { return "kerple"; }
  std::string later_keys() const override {
    return "the same kernel of |m - n|: a key d before and one d after get the same bias (no direction)";
  }
  bool acts_on_scores() const override { return true; }

  void declare(ParamLayout& layout) override {
    for (int l = 0; l < this->cfg_.n_layers; ++l)
      ab_.push_back(layout.add(fmt::format("pos.layer{}.kerple", l), 2, this->cfg_.n_heads));
  }
  void init(ParamView<S> P, Rng& rng) const override {
    const int H = this->cfg_.n_heads;
    for (int id : ab_) {
      S* x = P.data(id);
      for (int h = 0; h < H; ++h) x[h] = S(math::log(std::max(1e-2, 2.0 * rng.uniform())));  // r1 ~ U(0, 2)
      for (int h = 0; h < H; ++h) {
        const double r2 = std::clamp((power_ ? 2.0 : 1.0) * rng.uniform(), 1e-2, 2.0 - 1e-2);
        x[H + h] = S(power_ ? math::log(r2 / (2.0 - r2)) : math::log(r2));  // b = r2's inverse map
      }
    }
  }

  // scores[t] += k(|qpos - kpos[t]|)
  void score_forward(CParamView<S> P, const AttnRow<S>& r, S* scores) const override {
    const Kernel k = kernel(P, r.layer, r.head);
    for (int t = 0; t < r.nk; ++t) scores[t] += S(k.bias(std::abs(r.qpos - r.kpos[t])));
  }
  // undoes it: da += sum_t ds[t] dk/da, db += sum_t ds[t] dk/db (summed in double per row, keys ascending)
  void score_backward(CParamView<S> P, ParamView<S> G, const AttnRow<S>& r, const S* ds, S*, const KeyRows<S>&,
                      S*) const override {
    const Kernel k = kernel(P, r.layer, r.head);
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
    const Kernel k = kernel(P, b.layer, b.head);
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
    const Kernel k = kernel(P, b.layer, b.head);
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

 private:
  // One head's kernel: r1 = exp(a); r2 = exp(b) (log form) or 2 sigmoid(b) (power form).
  struct Kernel {
    double r1 = 1, r2 = 1, dr2 = 1;  // dr2: dr2/db
    bool power = false;
    double bias(int d) const {
      if (power) return d == 0 ? 0.0 : -r1 * math::pow(double(d), r2);
      return -r1 * math::log(1.0 + r2 * double(d));
    }
    // (dk/da, dk/db): dk/da = k (r1 = exp(a)); dk/db = dk/dr2 dr2/db
    std::pair<double, double> grad(int d) const {
      if (d == 0) return {0.0, 0.0};
      const double k = bias(d);
      if (power) return {k, k * math::log(double(d)) * dr2};
      return {k, -r1 * double(d) / (1.0 + r2 * double(d)) * dr2};
    }
  };
  Kernel kernel(CParamView<S> P, int layer, int head) const {
    const S* x = P.data(ab_.at(size_t(layer)));
    const int H = this->cfg_.n_heads;
    Kernel k;
    k.power = power_;
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
  void add_grad(ParamView<S> G, int layer, int head, double ga, double gb) const {
    S* g = G.data(ab_.at(size_t(layer)));
    g[head] += S(ga), g[this->cfg_.n_heads + head] += S(gb);
  }
  // The largest distance a block hook reads (every key between a row's first and last visible one).
  static int farthest(const AttnBlock<S>& b) {
    const auto [lo, hi] = block_visible_age_range(b);
    return std::max({0, std::abs(lo), std::abs(hi)});
  }
  bool power_ = false;
  std::vector<int> ab_;  // per layer: [2, H], a then b
};

}  // namespace pe
