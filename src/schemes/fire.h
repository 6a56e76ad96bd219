// `fire` (Li et al. 2023, "Functional Interpolation for Relative Positions Improves Long Context
// Transformers"): a bias learned as a function of the distance d = |m - n| divided by the query's own
// scale, added to every score, one small MLP per layer with an output per head:
//   s(m,n) = c(m,n) + f_h( psi(|m - n|) / psi(max(L, m)) ),   psi(z) = log(1 + c z)
//   f(x) = W2^T relu(w1 x + b1) + b2   (1 -> fire_width units -> n_heads outputs)
// Progressive interpolation: a query past the threshold L divides by its own psi(m), so the input x stays in
// [0, 1] at every length and a longer read interpolates f instead of extrapolating it. fire_interpolate false
// is the ablation: every query divides by psi(L), so f reads x past 1 where d > L.
// Parameters per layer: pos.layer<l>.fire_in [2, W] (w1, then b1), pos.layer<l>.fire_out [W + 1, H] (W2, then
// b2) and pos.layer<l>.fire_scale [1, 2] (g, l): c = exp(g), L = L0 exp(l) with L0 = fire_threshold.
// As the paper's code: the MLP is initialised as torch.nn.Linear's default (U(+-1/sqrt(fan_in))), c starts at
// 0.1, and c and L are learned. Departures, stated: c and L stay positive through exp (the paper's code takes
// |c| and |L|), psi(max(L, m)) has no added eps (it is >= log(1 + c L) > 0), and the threshold starts at a
// quarter of the training length plus a half (the paper's 512 for its 2,048; the half keeps every integer
// position off the kink of max(L, m) at init, where central differences could not check the gradient). A key
// d before the query and one d after get the same bias (the code's |c (i - j)|): its encoder form is itself.
//
// The hooks never evaluate the MLP per key. In one row x is a function of d alone, growing with d, and f_h is
// piecewise linear in x: between the units' kinks tau_k = -b1_k / w1_k it is alpha x + beta. The units are
// sorted by kink once per call; a row walks its distances in order, passing each kink once, and reads each
// key's bias from its distance (backward: adds each distance's g into its interval's sums, then the units'
// gradients are running sums over the intervals). So a key costs a few operations, not an MLP. Computed in
// double (core/math: the same bits on every CPU); the block hook runs the row hook's code row by row (psi(d)
// computed once per block instead of once per row: the same values), so both paths give the same bits.
#pragma once
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "core/errors.h"
#include "core/math.h"
#include "schemes/scheme.h"

namespace pe {

// The threshold's starting value in positions: fire_threshold, or (0) a quarter of the training length plus a
// half (see above).
inline void complete_fire_threshold(SchemeConfig& c) {
  double t = c.settings.at("fire_threshold").get<double>();
  if (t == 0) {
    if (c.train_length < 1)
      throw ConfigError("fire_threshold 0 means a quarter of the training length, and none is known: give one");
    t = c.train_length / 4 + 0.5;
  }
  c.settings["fire_threshold"] = t;
}

// One head's f of one layer, read for a call: the units split by the sign of w1 and sorted by kink, with
// the running sums of v w1 and v b1 (v = W2[k, h]) that give alpha and beta on each interval.
template <class S>
class FireHead {
 public:
  // in: [2, W], out: [W + 1, H], scale: [1, 2] (one layer's tensors); threshold0: L0
  FireHead(const S* in, const S* out, const S* scale, int W, int H, int h, double threshold0, bool interpolate)
      : interpolate_(interpolate) {
    c_ = math::exp(double(scale[0]));
    L_ = threshold0 * math::exp(double(scale[1]));
    beta0_ = double(out[size_t(W) * H + h]);
    for (int k = 0; k < W; ++k) {
      const double w = double(in[k]), b = double(in[W + k]), v = double(out[size_t(k) * H + h]);
      if (w > 0)
        up_.push_back({-b / w, w, b, v, k});
      else if (w < 0)
        down_.push_back({-b / w, w, b, v, k});
      else
        flat_.push_back({0, w, b, v, k});  // active everywhere when b > 0, nowhere otherwise
    }
    const auto by_kink = [](const Unit& a, const Unit& b) { return a.tau < b.tau || (a.tau == b.tau && a.k < b.k); };
    std::sort(up_.begin(), up_.end(), by_kink);
    std::sort(down_.begin(), down_.end(), by_kink);
    for (const Unit& u : flat_)
      if (u.b > 0) beta0_ += u.v * u.b;
    // up: the first i units (kink < x) are active; down: units i.. (kink > x) are
    up_a_.assign(up_.size() + 1, 0), up_b_.assign(up_.size() + 1, 0);
    for (size_t i = 0; i < up_.size(); ++i)
      up_a_[i + 1] = up_a_[i] + up_[i].v * up_[i].w, up_b_[i + 1] = up_b_[i] + up_[i].v * up_[i].b;
    down_a_.assign(down_.size() + 1, 0), down_b_.assign(down_.size() + 1, 0);
    for (size_t i = down_.size(); i-- > 0;)
      down_a_[i] = down_a_[i + 1] + down_[i].v * down_[i].w, down_b_[i] = down_b_[i + 1] + down_[i].v * down_[i].b;
  }

  // A query at qpos: x(d) = psi(d) / psi(max(L, qpos)).
  struct Query {
    double norm = 1;    // psi(N), N = max(L, qpos)
    double n = 0;       // N
    bool on_L = false;  // N = L (the threshold, not the position)
  };
  Query query(int qpos) const {
    Query q;
    q.on_L = !interpolate_ || L_ >= double(qpos);
    q.n = q.on_L ? L_ : double(qpos);
    q.norm = math::log1p(c_ * q.n);
    return q;
  }
  // For d in [lo, hi]: psi[2d] = psi(d) = log(1 + c d) and psi[2d + 1] = d / (1 + c d) (dpsi/dc); entries
  // below lo are left as they are.
  void psi_table(int lo, int hi, std::vector<double>& psi) const {
    if (psi.size() < 2 * (size_t(hi) + 1)) psi.resize(2 * (size_t(hi) + 1));
    for (int d = lo; d <= hi; ++d)
      psi[2 * size_t(d)] = math::log1p(c_ * double(d)), psi[2 * size_t(d) + 1] = double(d) / (1.0 + c_ * double(d));
  }
  double c() const { return c_; }

  // scores[t] += f_h(x(|qpos - kpos[t]|)), psi[d] for every distance of the row (psi_table)
  void row_forward(int qpos, const int* kpos, int nk, const double* psi, S* scores) const {
    const auto [lo, hi] = distances(qpos, kpos, nk);
    thread_local std::vector<double> bias;
    bias.resize(size_t(hi - lo) + 1);
    walk(query(qpos), lo, hi, psi, [&](int d0, int d1, const Walk& w) {
      for (int d = d0; d < d1; ++d) bias[size_t(d - lo)] = w.alpha * (psi[2 * size_t(d)] * w.inv) + w.beta;
    });
    for (int t = 0; t < nk; ++t) scores[t] += S(bias[size_t(std::abs(qpos - kpos[t]) - lo)]);
  }

  // undoes it for one row: ds[t] = dL/d(score t). Adds into the layer's gradient tensors gin [2, W],
  // gout [W + 1, H] (column h) and gscale [1, 2], once per entry per row (the sums are in double: each
  // distance's g over the keys in order, then the distances ascending, summed per segment of one interval).
  void row_backward(int qpos, const int* kpos, int nk, const S* ds, const double* psi, S* gin, S* gout, S* gscale,
                    int W, int H, int h) const {
    const auto [lo, hi] = distances(qpos, kpos, nk);
    thread_local std::vector<double> gd, u0, u1, d0, d1;
    gd.assign(size_t(hi - lo) + 1, 0);
    for (int t = 0; t < nk; ++t) gd[size_t(std::abs(qpos - kpos[t]) - lo)] += double(ds[t]);
    // per interval: the sums of g and g x over the distances in it (up intervals 0..nu, down 0..nd)
    u0.assign(up_.size() + 1, 0), u1.assign(up_.size() + 1, 0);
    d0.assign(down_.size() + 1, 0), d1.assign(down_.size() + 1, 0);
    double g_all = 0, gx_all = 0, gfr = 0, gfx = 0;  // sums of g, g x, g f' dpsi/dc, g f' x
    const Query q = query(qpos);
    walk(q, lo, hi, psi, [&](int da, int db, const Walk& w) {
      double sg = 0, sgx = 0, sgr = 0;  // over the segment: g, g x, g dpsi/dc
      for (int d = da; d < db; ++d) {
        const double g = gd[size_t(d - lo)];
        sg += g, sgx += g * (psi[2 * size_t(d)] * w.inv), sgr += g * psi[2 * size_t(d) + 1];
      }
      u0[size_t(w.iu)] += sg, u1[size_t(w.iu)] += sgx;
      d0[size_t(w.id)] += sg, d1[size_t(w.id)] += sgx;
      g_all += sg, gx_all += sgx;
      gfr += w.alpha * sgr, gfx += w.alpha * sgx;  // f' = alpha on the segment
    });
    // undoes x = psi(d) / psi(N), c = exp(g) and N = L exp(l) (N = L on the threshold, else the position):
    //   dx/dc = (d / (1 + c d) - x N / (1 + c N)) / psi(N),   dx/dN = -x c / ((1 + c N) psi(N))
    const double cn = 1.0 + c_ * q.n;
    const double dg = c_ * (gfr - gfx * q.n / cn) / q.norm;
    const double dl = q.on_L ? -gfx * c_ / cn / q.norm * L_ : 0.0;
    // undoes f = sum_active v (w x + b) + b2: each unit's sums over the distances where it is active
    const auto unit = [&](const Unit& u, double s0, double s1) {
      gout[size_t(u.k) * H + h] += S(u.w * s1 + u.b * s0);
      gin[u.k] += S(u.v * s1), gin[W + u.k] += S(u.v * s0);
    };
    double s0 = 0, s1 = 0;  // up unit i is active on intervals i+1..nu
    for (size_t i = up_.size(); i-- > 0;) s0 += u0[i + 1], s1 += u1[i + 1], unit(up_[i], s0, s1);
    s0 = 0, s1 = 0;  // down unit i is active on intervals 0..i
    for (size_t i = 0; i < down_.size(); ++i) s0 += d0[i], s1 += d1[i], unit(down_[i], s0, s1);
    for (const Unit& u : flat_)
      if (u.b > 0) unit(u, g_all, gx_all);
    gout[size_t(W) * H + h] += S(g_all);
    gscale[0] += S(dg), gscale[1] += S(dl);
  }

  // The smallest and largest distance |qpos - kpos[t]| of a row's keys (nk > 0).
  static std::pair<int, int> distances(int qpos, const int* kpos, int nk) {
    int lo = std::abs(qpos - kpos[0]), hi = lo;
    for (int t = 1; t < nk; ++t) {
      const int d = std::abs(qpos - kpos[t]);
      lo = std::min(lo, d), hi = std::max(hi, d);
    }
    return {lo, hi};
  }

 private:
  struct Unit {
    double tau, w, b, v;
    int k;
  };
  // Where the walk is: x's interval (iu up units active: kink < x; down units id.. active: kink > x), f's
  // slope and intercept there, and 1 / psi(N) (x = psi(d) inv).
  struct Walk {
    int iu = 0, id = 0;
    double alpha = 0, beta = 0, inv = 1;
  };
  // Calls each(d0, d1, walk) for the segments of d = lo..hi over which x stays in one interval, in order:
  // x grows with d, so each kink is passed once.
  template <class F>
  void walk(const Query& q, int lo, int hi, const double* psi, F&& each) const {
    Walk w;
    w.inv = 1.0 / q.norm;
    const int nu = int(up_.size()), nd = int(down_.size());
    const auto passed = [&](double x) {
      return (w.iu < nu && up_[size_t(w.iu)].tau < x) || (w.id < nd && down_[size_t(w.id)].tau <= x);
    };
    const auto place = [&](double x) {
      while (w.iu < nu && up_[size_t(w.iu)].tau < x) ++w.iu;
      while (w.id < nd && down_[size_t(w.id)].tau <= x) ++w.id;
      w.alpha = up_a_[size_t(w.iu)] + down_a_[size_t(w.id)];
      w.beta = beta0_ + up_b_[size_t(w.iu)] + down_b_[size_t(w.id)];
    };
    place(psi[2 * size_t(lo)] * w.inv);
    int start = lo;
    for (int d = lo + 1; d <= hi; ++d) {
      const double x = psi[2 * size_t(d)] * w.inv;
      if (!passed(x)) continue;
      each(start, d, w);
      start = d;
      place(x);
    }
    each(start, hi + 1, w);
  }
  bool interpolate_ = true;
  double c_ = 0.1, L_ = 1, beta0_ = 0;
  std::vector<Unit> up_, down_, flat_;
  std::vector<double> up_a_, up_b_, down_a_, down_b_;
};

template <class S>
class FireScheme final : public Scheme<S> {
 public:
  explicit FireScheme(SchemeConfig cfg) : Scheme<S>(std::move(cfg)) {
    width_ = this->cfg_.template setting<int>("fire_width");
    threshold0_ = this->cfg_.template setting<double>("fire_threshold");
    interpolate_ = this->cfg_.template setting<bool>("fire_interpolate");
    if (!(threshold0_ > 0))
      throw ConfigError(fmt::format("fire_threshold is {}: give a positive number of positions", threshold0_));
  }
  std::string name() const override { return "fire"; }
  std::string later_keys() const override {
    return "the same function of |m - n| (scaled by the query's own psi): a key d before and one d after get the "
           "same bias";
  }
  bool acts_on_scores() const override { return true; }
  // a query past the threshold divides by psi of its own position: shifting every position moves those rows
  // (without the interpolation every query divides by psi(L): offsets only)
  bool offsets_only() const override { return !interpolate_; }

  void declare(ParamLayout& layout) override {
    const int H = this->cfg_.n_heads;
    for (int l = 0; l < this->cfg_.n_layers; ++l) {
      in_.push_back(layout.add(fmt::format("pos.layer{}.fire_in", l), 2, width_));
      out_.push_back(layout.add(fmt::format("pos.layer{}.fire_out", l), width_ + 1, H));
      scale_.push_back(layout.add(fmt::format("pos.layer{}.fire_scale", l), 1, 2));
    }
  }
  // torch.nn.Linear's default: U(-1/sqrt(fan_in), 1/sqrt(fan_in)) for weights and biases; c = 0.1, L = L0
  void init(ParamView<S> P, Rng& rng) const override {
    const int H = this->cfg_.n_heads;
    const double r2 = 1.0 / std::sqrt(double(width_));
    for (size_t l = 0; l < in_.size(); ++l) {
      S* in = P.data(in_[l]);
      for (int i = 0; i < 2 * width_; ++i) in[i] = S(2.0 * rng.uniform() - 1.0);
      S* out = P.data(out_[l]);
      for (int i = 0; i < (width_ + 1) * H; ++i) out[i] = S(r2 * (2.0 * rng.uniform() - 1.0));
      S* scale = P.data(scale_[l]);
      scale[0] = S(math::log(0.1)), scale[1] = S(0);
    }
  }

  void score_forward(CParamView<S> P, const AttnRow<S>& r, S* scores) const override {
    if (r.nk == 0) return;
    const FireHead<S> f = head(P, r.layer, r.head);
    const auto [lo, hi] = FireHead<S>::distances(r.qpos, r.kpos, r.nk);
    thread_local std::vector<double> psi;
    f.psi_table(lo, hi, psi);
    f.row_forward(r.qpos, r.kpos, r.nk, psi.data(), scores);
  }
  void score_backward(CParamView<S> P, ParamView<S> G, const AttnRow<S>& r, const S* ds, S*, const KeyRows<S>&,
                      S*) const override {
    if (r.nk == 0) return;
    const size_t l = size_t(r.layer);
    const FireHead<S> f = head(P, r.layer, r.head);
    const auto [lo, hi] = FireHead<S>::distances(r.qpos, r.kpos, r.nk);
    thread_local std::vector<double> psi;
    f.psi_table(lo, hi, psi);
    f.row_backward(r.qpos, r.kpos, r.nk, ds, psi.data(), G.data(in_[l]), G.data(out_[l]), G.data(scale_[l]), width_,
                   this->cfg_.n_heads, r.head);
  }

  // A block at once: the units sorted once, then the row hook's code row by row over each row's visible keys.
  bool block_scores(int) const override { return true; }
  void score_block_forward(CParamView<S> P, const AttnBlock<S>& b, S* scores) const override {
    const FireHead<S> f = head(P, b.layer, b.head);
    const std::vector<double>& psi = psi_of(f, b);
    for (int r = 0; r < b.nq; ++r) {
      const int t0 = b.key_begin(r), t1 = b.key_end(r);
      if (t1 > t0) f.row_forward(b.qpos[r], b.kpos + t0, t1 - t0, psi.data(), scores + size_t(r) * b.nk + t0);
    }
  }
  void score_block_backward(CParamView<S> P, ParamView<S> G, const AttnBlock<S>& b, const S* ds, S*, S*,
                            S*) const override {
    const FireHead<S> f = head(P, b.layer, b.head);
    const std::vector<double>& psi = psi_of(f, b);
    const size_t l = size_t(b.layer);
    for (int r = 0; r < b.nq; ++r) {
      const int t0 = b.key_begin(r), t1 = b.key_end(r);
      if (t1 > t0)
        f.row_backward(b.qpos[r], b.kpos + t0, t1 - t0, ds + size_t(r) * b.nk + t0, psi.data(), G.data(in_[l]),
                       G.data(out_[l]), G.data(scale_[l]), width_, this->cfg_.n_heads, b.head);
    }
  }

 private:
  // psi(d) for every distance a block's rows read (the values the row hook computes per row), kept while c
  // stays (every block of a layer's call on this thread)
  static const std::vector<double>& psi_of(const FireHead<S>& f, const AttnBlock<S>& b) {
    const auto [lo, hi] = block_visible_age_range(b);
    const int far = std::max({0, std::abs(lo), std::abs(hi)});
    thread_local std::vector<double> psi;
    thread_local double c = -1;
    thread_local int done = -1;
    if (f.c() != c) c = f.c(), done = -1;
    if (far > done) f.psi_table(done + 1, far, psi), done = far;
    return psi;
  }
  FireHead<S> head(CParamView<S> P, int layer, int h) const {
    const size_t l = size_t(layer);
    return FireHead<S>(P.data(in_.at(l)), P.data(out_.at(l)), P.data(scale_.at(l)), width_, this->cfg_.n_heads, h,
                       threshold0_, interpolate_);
  }
  int width_ = 32;
  double threshold0_ = 1;
  bool interpolate_ = true;
  std::vector<int> in_, out_, scale_;  // per layer
};

}  // namespace pe
