#include "models/position_probe.h"

#include <Eigen/Dense>

#include <cmath>

#include "core/errors.h"

namespace pe {

PositionProbe::PositionProbe(int states, int D, std::vector<std::pair<int, int>> ranges)
    : states_(states), D_(D), ranges_(std::move(ranges)) {
  const size_t k = size_t(D) + 1;
  const Sums empty{std::vector<double>(k * k, 0.0), std::vector<double>(k, 0.0)};
  fit_.assign(size_t(states), empty);
  test_all_.assign(size_t(states), empty);
  test_.assign(size_t(states), std::vector<Sums>(ranges_.size(), empty));
}

namespace {
void accumulate(std::vector<double>& xx, std::vector<double>& xy, double& yy, double& n, const float* x, int D,
                double y) {
  const size_t k = size_t(D) + 1;
  for (size_t i = 0; i < k; ++i) {
    const double xi = i < size_t(D) ? double(x[i]) : 1.0;
    xy[i] += xi * y;
    for (size_t j = 0; j <= i; ++j) xx[i * k + j] += xi * (j < size_t(D) ? double(x[j]) : 1.0);
  }
  yy += y * y;
  n += 1;
}
}  // namespace

void PositionProbe::add(const BlockStackCache<float>& cache, int B, int T, const std::vector<int>& pos, bool fit) {
  if (int(cache.h_in.size()) != states_) throw Error("PositionProbe: the cache holds another number of states");
  for (int s = 0; s < states_; ++s) {
    const float* h = cache.h_in[size_t(s)].data();
    for (int b = 0; b < B; ++b)
      for (int t = 0; t < T; ++t) {
        const float* x = h + (size_t(b) * T + t) * D_;
        const double y = pos[size_t(t)];
        Sums& f = fit ? fit_[size_t(s)] : test_all_[size_t(s)];
        accumulate(f.xx, f.xy, f.yy, f.n, x, D_, y);
        if (fit) continue;
        for (size_t r = 0; r < ranges_.size(); ++r)
          if (pos[size_t(t)] >= ranges_[r].first && pos[size_t(t)] <= ranges_[r].second) {
            Sums& g = test_[size_t(s)][r];
            accumulate(g.xx, g.xy, g.yy, g.n, x, D_, y);
          }
      }
  }
}

nlohmann::json PositionProbe::fit_and_score() const {
  const int k = D_ + 1;
  // the lower triangle accumulated: the full symmetric matrix
  auto full = [&](const std::vector<double>& xx) {
    Eigen::MatrixXd m(k, k);
    for (int i = 0; i < k; ++i)
      for (int j = 0; j <= i; ++j) m(i, j) = m(j, i) = xx[size_t(i) * k + j];
    return m;
  };
  // SSE of w on a split's sums: t't - 2 w'X't + w'X'X w; SST about the split's own mean
  auto score = [&](const Sums& s, const Eigen::VectorXd& w) {
    const Eigen::MatrixXd xx = full(s.xx);
    const Eigen::VectorXd xy = Eigen::Map<const Eigen::VectorXd>(s.xy.data(), k);
    const double sse = std::max(0.0, s.yy - 2 * w.dot(xy) + w.dot(xx * w));
    const double mean = xy(k - 1) / s.n;  // (the constant's row: the sum of t)
    const double sst = s.yy - s.n * mean * mean;
    return std::pair<double, double>{sst > 0 ? 1 - sse / sst : 0.0, std::sqrt(sse / s.n)};
  };
  nlohmann::json out = nlohmann::json::array();
  for (int st = 0; st < states_; ++st) {
    const Sums& f = fit_[size_t(st)];
    if (f.n < 1 || test_all_[size_t(st)].n < 1) throw Error("PositionProbe: a split has no token");
    Eigen::MatrixXd a = full(f.xx);
    const double lambda = kRidge * a.topLeftCorner(D_, D_).trace() / D_;
    for (int i = 0; i < D_; ++i) a(i, i) += lambda;
    const Eigen::VectorXd w = a.ldlt().solve(Eigen::Map<const Eigen::VectorXd>(f.xy.data(), k));
    const auto [r2, rmse] = score(test_all_[size_t(st)], w);
    nlohmann::json ranges = nlohmann::json::array();
    for (size_t r = 0; r < ranges_.size(); ++r) {
      const Sums& g = test_[size_t(st)][r];
      if (g.n < 1) continue;
      const auto [rr2, rrmse] = score(g, w);
      ranges.push_back(
          {{"lo", ranges_[r].first}, {"hi", ranges_[r].second}, {"tokens", g.n}, {"r2", rr2}, {"rmse", rrmse}});
    }
    out.push_back({{"state", st}, {"r2", r2}, {"rmse", rmse}, {"ranges", ranges}});
  }
  return out;
}

}  // namespace pe
