// A linear probe of the absolute position from the residual stream (issue 52, the d2l exercise 10: does a
// model without positional encoding learn where it is?). For each state a block stack keeps (the input to
// each block, h_in[0] the embedding, and the final state h_in[L]) a ridge regression of the token's position
// t from its D features and a constant:
//   w = argmin sum (t - [x, 1] w)^2 + lambda |w_x|^2,   lambda = kRidge * tr(X^T X) / D (the constant unpenalised)
// fitted on one set of windows and scored on another (held out): R^2 = 1 - SSE / SST over every test token,
// and per range of positions [lo, hi] the RMSE in positions and the R^2 within the range (its own mean). The
// fit needs only the normal equations, and the scores only X^T X, X^T t and t^T t of each test range, so no
// state is kept: each forward adds its tokens to the sums of its split.
#pragma once
#include <vector>

#include <nlohmann/json.hpp>

#include "models/block_stack.h"

namespace pe {

inline constexpr double kRidge = 1e-4;

class PositionProbe {
 public:
  // states: the states read (L + 1 for a stack of L blocks); ranges: [lo, hi] position ranges scored apart.
  PositionProbe(int states, int D, std::vector<std::pair<int, int>> ranges);
  // Adds the tokens of one forward of B windows of T tokens at positions pos[t] (the same for every window)
  // to the sums of the fitting split (fit = true) or the held-out one.
  void add(const BlockStackCache<float>& cache, int B, int T, const std::vector<int>& pos, bool fit);
  // Per state: {"state", "r2", "rmse", "ranges": [{"lo", "hi", "tokens", "r2", "rmse"}]} on the held-out split.
  nlohmann::json fit_and_score() const;

 private:
  struct Sums {
    std::vector<double> xx, xy;  // [(D+1)^2], [D+1] (the constant last)
    double yy = 0, n = 0;
  };
  int states_, D_;
  std::vector<std::pair<int, int>> ranges_;
  std::vector<Sums> fit_;                // [state]
  std::vector<std::vector<Sums>> test_;  // [state][range], every test token in range 0 .. ranges.size()-1
  std::vector<Sums> test_all_;           // [state]
};

}  // namespace pe
