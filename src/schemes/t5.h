// `t5`: a learned scalar bias per head and age bucket, added to the scaled content score. Causal
// (decoder) form: s(m,n) = c(m,n) + beta[bucket(max(m - n, 0)), h]. Buckets (default 32): exact for
// ages below B/2, then log-spaced up to max_distance (default 128); every older key shares the last
// bucket. Encoder form (a model whose queries see later keys, SchemeConfig::bidirectional): half the
// buckets per side, as Transformers' relative_position_bucket(bidirectional=True)
// (theory::t5_bidirectional_bucket). beta starts at 0. One table for the whole model (shared by its
// layers, as in T5).
#pragma once
#include <fmt/format.h>

#include "core/errors.h"
#include "schemes/scheme.h"
#include "schemes/t5_buckets.h"

namespace pe {

inline std::vector<KeySpec> t5_keys() {
  return {{"t5_buckets", KeyType::Int, 32, "t5 (and tupe_relative): age buckets per head (even)", 2, 1024},
          {"t5_max_distance", KeyType::Int, 128, "t5: ages from here on share the last bucket", 2, 1000000}};
}

// The bucketed bias itself, shared by t5 and TUPE-R.
template <class S>
class T5Bias {
 public:
  void configure(const SchemeConfig& c) {
    buckets_ = c.setting<int>("t5_buckets");
    max_distance_ = c.setting<int>("t5_max_distance");
    if (buckets_ < 2 || buckets_ % 2)
      throw ConfigError(fmt::format("t5_buckets must be an even number >= 2 (got {})", buckets_));
    if (max_distance_ <= buckets_ / 2)
      throw ConfigError(
          fmt::format("t5_max_distance must exceed t5_buckets / 2 = {} (got {})", buckets_ / 2, max_distance_));
    if (c.bidirectional && buckets_ < 4)
      throw ConfigError(
          fmt::format("t5_buckets must be at least 4 in the encoder form, half per side (got {})", buckets_));
    bidirectional_ = c.bidirectional;
    heads_ = c.n_heads;
  }
  void declare(ParamLayout& layout) { table_ = layout.add("pos.t5_bias", buckets_, heads_); }
  void init(ParamView<S> P) const { P(table_).setZero(); }
  // Caches the bucket of every age -max_age .. max_age (the bucket map takes a log).
  void prepare(int max_age) {
    for (int r = int(bucket_of_.size()); r <= max_age; ++r) {
      bucket_of_.push_back(map(r));
      later_bucket_of_.push_back(map(-r));
    }
  }
  int bucket(int age) const {
    if (age >= 0) return age < int(bucket_of_.size()) ? bucket_of_[age] : map(age);
    return -age < int(later_bucket_of_.size()) ? later_bucket_of_[-age] : map(age);
  }
  // scores[t] += beta[bucket(qpos - kpos[t]), head]
  void forward(CParamView<S> P, const AttnRow<S>& r, S* scores) const {
    const S* beta = P.data(table_);
    for (int t = 0; t < r.nk; ++t) scores[t] += beta[size_t(bucket(r.qpos - r.kpos[t])) * heads_ + r.head];
  }
  // undoes scores[t] += beta[...]: dbeta[bucket, head] += ds[t]
  void backward(ParamView<S> G, const AttnRow<S>& r, const S* ds) const {
    S* dbeta = G.data(table_);
    for (int t = 0; t < r.nk; ++t) dbeta[size_t(bucket(r.qpos - r.kpos[t])) * heads_ + r.head] += ds[t];
  }

  // A block at once (the dense path; scores row stride nk): the bias of each of the block's ages
  // a = lo..hi looked up once, then scores[r][t] += bias[qpos[r] - kpos[t] - lo].
  void block_forward(CParamView<S> P, const AttnBlock<S>& b, S* scores) const {
    const auto [lo, hi] = block_age_range(b);
    const S* beta = P.data(table_);
    std::vector<S>& bias = hook_scratch<S>(3, size_t(hi - lo + 1));
    for (int a = lo; a <= hi; ++a) bias[a - lo] = beta[size_t(bucket(a)) * heads_ + b.head];
    for (int r = 0; r < b.nq; ++r) {
      const int o = b.qpos[r] - lo;
      S* sr = scores + size_t(r) * b.nk;
      for (int t = 0; t < b.nk; ++t) sr[t] += bias[o - b.kpos[t]];
    }
  }
  // undoes it: dbeta[bucket, head] += ds[r][t], added row by row with keys ascending, the order of
  // the row hooks, so the sums have the same bits (ds is +-0 at masked pairs, and x + -0 = x, while a
  // sum that starts at +0 never becomes -0).
  void block_backward(ParamView<S> G, const AttnBlock<S>& b, const S* ds) const {
    const auto [lo, hi] = block_age_range(b);
    S* dbeta = G.data(table_);
    thread_local std::vector<S*> at;  // at[a - lo]: the gradient entry of age a
    at.resize(size_t(hi - lo + 1));
    for (int a = lo; a <= hi; ++a) at[a - lo] = dbeta + size_t(bucket(a)) * heads_ + b.head;
    for (int r = 0; r < b.nq; ++r) {
      const int o = b.qpos[r] - lo;
      const S* dr = ds + size_t(r) * b.nk;
      for (int t = 0; t < b.nk; ++t) *at[o - b.kpos[t]] += dr[t];
    }
  }

 private:
  // The bucket of an age: the causal map clamps a later key's negative age to 0 (the causal mask never
  // shows one); the encoder map gives later keys their own half.
  int map(int age) const {
    return bidirectional_ ? theory::t5_bidirectional_bucket(age, buckets_, max_distance_)
                          : theory::t5_bucket(age, buckets_, max_distance_);
  }
  int buckets_ = 32, max_distance_ = 128, heads_ = 1, table_ = -1;
  bool bidirectional_ = false;
  std::vector<int> bucket_of_, later_bucket_of_;  // [age], [-age]
};

template <class S>
class T5Scheme final : public Scheme<S> {
 public:
  explicit T5Scheme(SchemeConfig cfg) : Scheme<S>(std::move(cfg)) { bias_.configure(this->cfg_); }
  std::string name() const override { return "t5"; }
  std::string later_keys() const override {
    return "Transformers' bidirectional buckets: half the buckets per side, later keys in the upper half";
  }
  bool acts_on_scores() const override { return true; }
  void declare(ParamLayout& layout) override { bias_.declare(layout); }
  void init(ParamView<S> P, Rng&) const override { bias_.init(P); }  // beta = 0
  void prepare(int max_pos) override { bias_.prepare(max_pos); }
  void score_forward(CParamView<S> P, const AttnRow<S>& r, S* scores) const override { bias_.forward(P, r, scores); }
  void score_backward(CParamView<S>, ParamView<S> G, const AttnRow<S>& r, const S* ds, S*, const KeyRows<S>&,
                      S*) const override {
    bias_.backward(G, r, ds);
  }
  bool block_scores(int) const override { return true; }
  void score_block_forward(CParamView<S> P, const AttnBlock<S>& b, S* scores) const override {
    bias_.block_forward(P, b, scores);
  }
  void score_block_backward(CParamView<S>, ParamView<S> G, const AttnBlock<S>& b, const S* ds, S*, S*,
                            S*) const override {
    bias_.block_backward(G, b, ds);
  }
  const T5Bias<S>& bias() const { return bias_; }

 private:
  T5Bias<S> bias_;
};

}  // namespace pe
