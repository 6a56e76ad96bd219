// `deberta` (disentangled attention): relative distance delta(m,n) = clamp(m - n + K, 0, 2K - 1)
// (2K rows), a learned relative table P [2K, d_model] shared by the layers, projected per layer
// into Kr = P W_Kr and Qr = P W_Qr ([2K, heads * d] each):
//   s(m,n) = [ <q_m, k_n> + <q_m, Kr[delta(m,n)]> + <k_n, Qr[delta(n,m)]> ] / sqrt(3d)
// content-to-content, content-to-position, position-to-content. The third term reads the reversed
// index delta(n,m). Kr and Qr are derived tables of each layer, computed once per forward call.
// Init: P ~ N(0, embed_init_std^2), W_Kr and W_Qr as linear layers.
// deberta_log_buckets (DeBERTa-v2's make_log_bucket_position): the distance r = m - n is bucketed before
// the clip, delta(m,n) = clamp(bucket(r) + K, 0, 2K - 1): bucket(r) = r for |r| <= mid = K/2, else
//   sign(r) (ceil(log(|r| / mid) / log((M - 1) / mid) (mid - 1)) + mid),   M = deberta_max_distance
// so distances mid .. M - 1 share the rows mid .. K - 1 log-spaced, instead of every distance from K on
// sharing the last row. DeBERTa-v2 takes K = 256 (position_buckets) and M = 512 at a training length of
// 512; pe-bench's defaults K = 16 and M = the training length keep its ratios at the tournament's 32.
#pragma once
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/errors.h"
#include "core/gemm.h"
#include "core/math.h"
#include "schemes/scheme.h"

namespace pe {

// deberta_max_distance 0 means the training length.
inline void complete_deberta_max_distance(SchemeConfig& c) {
  if (c.settings.at("deberta_max_distance").get<int>() == 0 && c.train_length > 0)
    c.settings["deberta_max_distance"] = c.train_length;
}

template <class S>
class DebertaScheme final : public Scheme<S> {
 public:
  explicit DebertaScheme(SchemeConfig cfg) : Scheme<S>(std::move(cfg)) {
    clip_ = this->cfg_.template setting<int>("deberta_clip");
    if (clip_ < 1) throw ConfigError(fmt::format("deberta_clip must be at least 1 (got {})", clip_));
    if (this->cfg_.template setting<bool>("deberta_log_buckets"))
      log_buckets(this->cfg_.template setting<int>("deberta_max_distance"));
  }
  std::string name() const override { return "deberta"; }
  std::string later_keys() const override { return "the signed, clipped distance: later keys take rows 0 .. K-1"; }
  bool acts_on_scores() const override { return true; }
  // three terms: the content score is scaled by 1/sqrt(3d), not 1/sqrt(d)
  using Scheme<S>::content_scale;
  S content_scale(int) const override { return S(1) / std::sqrt(S(3)); }
  // delta(m, n) = clamp(bucket(m - n) + K, 0, 2K - 1)
  int delta(int m, int n) const { return std::clamp(bucket(m - n) + clip_, 0, 2 * clip_ - 1); }
  // The distance r itself, or with log buckets its bucket (the rows past the table's last saturate in delta).
  int bucket(int r) const {
    const int a = std::abs(r);
    if (far_.empty() || a <= mid_) return r;
    const int b = a - mid_ - 1 < int(far_.size()) ? far_[size_t(a - mid_ - 1)] : clip_;
    return r < 0 ? -b : b;
  }

  void declare(ParamLayout& layout) override {
    const int D = this->cfg_.d_model;
    p_ = layout.add("pos.deberta_p", 2 * clip_, D);
    for (int l = 0; l < this->cfg_.n_layers; ++l) {
      w_kr_.push_back(layout.add(fmt::format("pos.layer{}.w_kr", l), D, width()));
      w_qr_.push_back(layout.add(fmt::format("pos.layer{}.w_qr", l), D, width()));
    }
  }
  void init(ParamView<S> P, Rng& rng) const override {
    init_normal(P(p_), this->cfg_.init_std, rng);
    for (size_t l = 0; l < w_kr_.size(); ++l)
      for (int id : {w_kr_[l], w_qr_[l]}) init_linear(P(id), this->cfg_.d_model, rng);
  }

  // tables = [Kr; Qr]: [2 * 2K, heads * d]
  size_t tables_size(int, int) const override { return size_t(4 * clip_) * width(); }
  void tables_forward(CParamView<S> P, int layer, int, S* tables) const override {
    MatMap<S>(tables, 2 * clip_, width()).noalias() = P(p_) * P(w_kr_[layer]);
    MatMap<S>(tables + size_t(2 * clip_) * width(), 2 * clip_, width()).noalias() = P(p_) * P(w_qr_[layer]);
  }
  // undoes Kr = P W_Kr, Qr = P W_Qr
  void tables_backward(CParamView<S> P, ParamView<S> G, int layer, int, const S*, const S* dtables) const override {
    const CMatMap<S> dKr(dtables, 2 * clip_, width()), dQr(dtables + size_t(2 * clip_) * width(), 2 * clip_, width());
    G(w_kr_[layer]).noalias() += P(p_).transpose() * dKr;
    G(w_qr_[layer]).noalias() += P(p_).transpose() * dQr;
    G(p_).noalias() += dKr * P(w_kr_[layer]).transpose() + dQr * P(w_qr_[layer]).transpose();
  }

  // scores[t] += [ <q, Kr[delta(m, n_t)]> + <k_t, Qr[delta(n_t, m)]> ] / sqrt(3d)
  void score_forward(CParamView<S>, const AttnRow<S>& r, S* scores) const override {
    const S scale = S(1) / std::sqrt(S(3 * r.dh));
    for (int t = 0; t < r.nk; ++t) {
      const S *kr = kr_row(r, delta(r.qpos, r.kpos[t])), *qr = qr_row(r, delta(r.kpos[t], r.qpos));
      scores[t] += scale * (hook_dot(r.q, kr, r.dh) + hook_dot(r.keys(t), qr, r.dh));
    }
  }
  // undoes it, g_t = ds_t / sqrt(3d): dq += g_t Kr[.], dKr[.] += g_t q, dk_t += g_t Qr[..], dQr[..] += g_t k_t
  void score_backward(CParamView<S>, ParamView<S>, const AttnRow<S>& r, const S* ds, S* dq, const KeyRows<S>& dkeys,
                      S* dtables) const override {
    const S scale = S(1) / std::sqrt(S(3 * r.dh));
    for (int t = 0; t < r.nk; ++t) {
      const S g = scale * ds[t];
      const S *kr = kr_row(r, delta(r.qpos, r.kpos[t])), *qr = qr_row(r, delta(r.kpos[t], r.qpos));
      S *dkr = dtables + (kr - r.tables), *dqr = dtables + (qr - r.tables);
      const S* k = r.keys(t);
      S* dk = dkeys(t);
      for (int c = 0; c < r.dh; ++c) {
        dq[c] += g * kr[c];
        dkr[c] += g * r.q[c];
        dk[c] += g * qr[c];
        dqr[c] += g * k[c];
      }
    }
  }

  // A block at once (the dense path): a = Q Kr^T [nq, 2K], c = K Qr^T [nk, 2K] (this head's rows;
  // only the columns the visible pairs read: a causal block reads half of each), then at the visible
  // keys scores[r][t] += [ a[r][delta(m_r, n_t)] + c[t][delta(n_t, m_r)] ] / sqrt(3d).
  bool block_scores(int) const override { return true; }
  void score_block_forward(CParamView<S>, const AttnBlock<S>& b, S* scores) const override {
    const int d = b.dh, K2 = 2 * clip_, W = width(), ld = int(b.ld);
    const S scale = S(1) / std::sqrt(S(3 * d));
    const Columns z = columns(b);
    if (z.a1 < z.a0) return;
    std::vector<S>& a = hook_buffer<S>(0, size_t(b.nq) * K2);
    std::vector<S>& c = hook_buffer<S>(1, size_t(b.nk) * K2);
    gemm(Op::N, Op::T, b.nq, z.a1 - z.a0 + 1, d, b.q, ld, kr_rows(b) + size_t(z.a0) * W, W, a.data() + z.a0, K2, false);
    gemm(Op::N, Op::T, b.nk, z.c1 - z.c0 + 1, d, b.k, ld, qr_rows(b) + size_t(z.c0) * W, W, c.data() + z.c0, K2, false);
    const bool keys_run = far_.empty() && consecutive(b.kpos, b.nk);  // the spans are the clip's
    for (int r = 0; r < b.nq; ++r) {
      S* sr = scores + size_t(r) * b.nk;
      const S* ar = &a[size_t(r) * K2];
      const int t0 = b.key_begin(r), t1 = b.key_end(r);
      if (!keys_run) {
        for (int t = t0; t < t1; ++t)
          sr[t] += scale * (ar[delta(b.qpos[r], b.kpos[t])] + c[size_t(t) * K2 + delta(b.kpos[t], b.qpos[r])]);
        continue;
      }
      const ClippedSpans y = spans(b.qpos[r], b.kpos[0], b.nk);
      for (int t = t0; t < std::min(y.a, t1); ++t) sr[t] += scale * (ar[K2 - 1] + c[size_t(t) * K2]);
      for (int t = std::max(t0, y.a); t < std::min(y.c, t1); ++t) {
        const int x = b.kpos[0] + t - b.qpos[r];
        sr[t] += scale * (ar[clip_ - x] + c[size_t(t) * K2 + x + clip_]);
      }
      for (int t = std::max(t0, y.c); t < t1; ++t) sr[t] += scale * (ar[0] + c[size_t(t) * K2 + K2 - 1]);
    }
  }
  // undoes it, g = ds / sqrt(3d) at the visible keys (0 at the others): da[r][delta] += g,
  // dc[t][delta'] += g; then (undoes a = Q Kr^T) dq += da Kr, dKr += da^T Q, and (undoes c = K Qr^T)
  // dk += dc Qr, dQr += dc^T K, over the columns the forward computed (da and dc are 0 elsewhere).
  void score_block_backward(CParamView<S>, ParamView<S>, const AttnBlock<S>& b, const S* ds, S* dq, S* dk,
                            S* dtables) const override {
    const int d = b.dh, K2 = 2 * clip_, W = width(), ld = int(b.ld);
    const S scale = S(1) / std::sqrt(S(3 * d));
    const Columns z = columns(b);
    if (z.a1 < z.a0) return;
    std::vector<S>& da = hook_scratch<S>(0, size_t(b.nq) * K2);
    std::vector<S>& dc = hook_scratch<S>(1, size_t(b.nk) * K2);
    const bool keys_run = far_.empty() && consecutive(b.kpos, b.nk);  // the spans are the clip's
    for (int r = 0; r < b.nq; ++r) {
      const S* dsr = ds + size_t(r) * b.nk;
      S* dar = &da[size_t(r) * K2];
      const int t0 = b.key_begin(r), t1 = b.key_end(r);
      if (!keys_run) {
        for (int t = t0; t < t1; ++t) {
          const S g = scale * dsr[t];
          dar[delta(b.qpos[r], b.kpos[t])] += g;
          dc[size_t(t) * K2 + delta(b.kpos[t], b.qpos[r])] += g;
        }
        continue;
      }
      // the same sums in the same order; the far keys' shared entry of da runs in a register
      const ClippedSpans y = spans(b.qpos[r], b.kpos[0], b.nk);
      S far = dar[K2 - 1];
      for (int t = t0; t < std::min(y.a, t1); ++t) {
        const S g = scale * dsr[t];
        far += g;
        dc[size_t(t) * K2] += g;
      }
      dar[K2 - 1] = far;
      for (int t = std::max(t0, y.a); t < std::min(y.c, t1); ++t) {
        const S g = scale * dsr[t];
        const int x = b.kpos[0] + t - b.qpos[r];
        dar[clip_ - x] += g;
        dc[size_t(t) * K2 + x + clip_] += g;
      }
      S near = dar[0];
      for (int t = std::max(t0, y.c); t < t1; ++t) {
        const S g = scale * dsr[t];
        near += g;
        dc[size_t(t) * K2 + K2 - 1] += g;
      }
      dar[0] = near;
    }
    const size_t head = size_t(b.head) * d;
    const int na = z.a1 - z.a0 + 1, nc = z.c1 - z.c0 + 1;
    const S *da0 = da.data() + z.a0, *dc0 = dc.data() + z.c0;
    gemm(Op::N, Op::N, b.nq, d, na, da0, K2, kr_rows(b) + size_t(z.a0) * W, W, dq, ld, true);
    gemm(Op::T, Op::N, na, d, b.nq, da0, K2, b.q, ld, dtables + size_t(z.a0) * W + head, W, true);
    gemm(Op::N, Op::N, b.nk, d, nc, dc0, K2, qr_rows(b) + size_t(z.c0) * W, W, dk, ld, true);
    gemm(Op::T, Op::N, nc, d, b.nk, dc0, K2, b.k, ld, dtables + size_t(K2 + z.c0) * W + head, W, true);
  }

 private:
  // The columns of a (deltas a0..a1) and of c (c0..c1) a block's visible pairs read (a1 < a0: none);
  // delta is monotonic in the age (bucket is), so the visible ages' range bounds them.
  struct Columns {
    int a0, a1, c0, c1;
  };
  Columns columns(const AttnBlock<S>& b) const {
    const auto [lo, hi] = block_visible_age_range(b);
    if (lo > hi) return {0, -1, 0, -1};
    const auto at = [&](int x) { return std::clamp(bucket(x) + clip_, 0, 2 * clip_ - 1); };
    return {at(lo), at(hi), at(-hi), at(-lo)};
  }
  // A block row's keys by span (clipped_spans): [0, a) far older (delta(m, n) = 2K - 1, delta(n, m) = 0),
  // [a, c) near (K - x and x + K), [c, nk) far newer (0 and 2K - 1).
  ClippedSpans spans(int qp, int k0, int nk) const { return clipped_spans(qp, k0, nk, clip_); }
  int width() const { return this->cfg_.n_heads * this->cfg_.d_head; }
  // this head's Kr and Qr: 2K rows each at row stride width()
  const S* kr_rows(const AttnBlock<S>& b) const { return b.tables + size_t(b.head) * b.dh; }
  const S* qr_rows(const AttnBlock<S>& b) const {
    return b.tables + size_t(2 * clip_) * width() + size_t(b.head) * b.dh;
  }
  const S* kr_row(const AttnRow<S>& r, int i) const { return r.tables + size_t(i) * width() + size_t(r.head) * r.dh; }
  const S* qr_row(const AttnRow<S>& r, int i) const {
    return r.tables + size_t(2 * clip_ + i) * width() + size_t(r.head) * r.dh;
  }

  // far_[a - mid - 1]: the bucket of distance a > mid, up to the first that reaches K (every later one is K).
  void log_buckets(int max_distance) {
    mid_ = clip_ / 2;
    if (mid_ < 2 || max_distance - 1 <= mid_)
      throw ConfigError(fmt::format(
          "deberta_log_buckets needs deberta_clip at least 4 and deberta_max_distance above deberta_clip / 2 + 1 "
          "(got {} and {})",
          clip_, max_distance));
    const double span = math::log(double(max_distance - 1) / mid_);
    for (int a = mid_ + 1;; ++a) {
      const int b = int(std::ceil(math::log(double(a) / mid_) / span * (mid_ - 1))) + mid_;
      if (b >= clip_) break;
      far_.push_back(b);
    }
  }

  int clip_ = 16, p_ = -1, mid_ = 0;
  std::vector<int> far_;  // empty: no log buckets
  std::vector<int> w_kr_, w_qr_;
};

}  // namespace pe
