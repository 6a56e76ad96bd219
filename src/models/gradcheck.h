// Gradient checks: every hand-written gradient against central differences, in double precision.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "core/params.h"

namespace pe {

struct GradCheckRow {
  std::string what;    // "cue/rope", "attention/alibi", ...
  std::string tensor;  // parameter or input name
  size_t count = 0;    // elements checked
  double max_rel = 0;  // worst |a - n| / max(|a|, |n|), over elements with max(|a|,|n|) > floor
  double max_abs = 0;  // worst |a - n|
  bool ok = false;
};

// Tolerances: an element passes when |a - n| <= abs_tol or the relative error <= rel_tol.
inline constexpr double kGradRelTol = 1e-5, kGradAbsTol = 1e-8;

// The general attention layer (batch 2, 3 heads, 5 queries x 6 keys, causal, shifted positions; and
// 70 x 70 under a band of 40, so several query blocks of the dense path),
// composed with the scheme's Q/K transform and bias: gradients of Q, K, V and scheme parameters.
std::vector<GradCheckRow> gradcheck_attention(const std::string& scheme);
// Compares the analytic gradient `ana` of f at x[0..n) with central differences (one row).
GradCheckRow compare_gradient(const std::string& what, const std::string& tensor, double* x, const double* ana,
                              size_t n, const std::function<double()>& f);
// Every tensor of a model's layout: analytic `grad` against central differences of `loss` in `params`.
std::vector<GradCheckRow> compare_all(const std::string& what, const ParamLayout& layout, std::vector<double>& params,
                                      const std::vector<double>& grad, const std::function<double()>& loss);

}  // namespace pe
