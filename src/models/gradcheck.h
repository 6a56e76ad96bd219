// Gradient checks: every hand-written gradient against central differences, in double precision.
#pragma once
#include <cstdint>
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
  std::string mode;  // the batch mode it was checked under (models/coordinate_cases.h), or empty
};

// Tolerances: an element passes when |a - n| <= abs_tol or the relative error <= rel_tol.
inline constexpr double kGradRelTol = 1e-5, kGradAbsTol = 1e-8;

// The general attention layer (batch 2, 3 heads, 5 queries x 6 keys, causal, shifted positions; and
// 70 x 70 under a band of 40, so several query blocks of the dense path; then every batch mode of
// models/coordinate_cases.h, rows named "attention/<scheme>/<mode>": causal, bidirectional, prefix,
// packed-reset, packed-global, pad-left/right-content/storage, decode), composed with the scheme's Q/K
// transform and bias: gradients of Q, K, V and scheme parameters.
std::vector<GradCheckRow> gradcheck_attention(const std::string& scheme);
// A block stack (models/block_stack.h) of cfg, initialised with `seed`, on tokens x and targets y
// ([B, T], a target below 0 not scored) at positions p0..p0+T-1: every tensor of its layout, named
// "<what>/<scheme>". The tasks on the block stack call it with their own sequences.
struct BlockStackConfig;
std::vector<GradCheckRow> gradcheck_block_stack(const std::string& what, const BlockStackConfig& cfg, uint64_t seed,
                                                const std::vector<int>& x, const std::vector<int>& y, int B, int T,
                                                int p0 = 0);
// The same under every batch mode of models/coordinate_cases.h but decode (per-token positions,
// documents, padding, bidirectional and prefix visibility; the model made for that visibility), on
// random tokens: rows named "<what> <mode>/<scheme>".
std::vector<GradCheckRow> gradcheck_block_stack_modes(const std::string& what, BlockStackConfig cfg, uint64_t seed);
// The same with a segment memory of M rows per sequence and block (random states, a constant: no
// gradient into it), the segment at positions M .. M+T-1: W_K and W_V take the memory's gradient.
// Rows named "<what> memory/<scheme>"; none for a scheme whose positions are absolute (acts on the
// embedding).
std::vector<GradCheckRow> gradcheck_block_stack_memory(const std::string& what, const BlockStackConfig& cfg,
                                                       uint64_t seed, const std::vector<int>& x,
                                                       const std::vector<int>& y, int B, int T, int M);
// The same at depths 2, 4 and 6 (the published two-layer stacks, then the deep 3:1 and 5:1 ones;
// cfg.n_layers is ignored): each depth the scheme can hold, its settings from the scheme's
// check_settings past two layers (the declared defaults otherwise). Rows of depth d > 2 are named
// "<what> L<d>/<scheme>".
std::vector<GradCheckRow> gradcheck_block_stack_depths(const std::string& what, BlockStackConfig cfg, uint64_t seed,
                                                       const std::vector<int>& x, const std::vector<int>& y, int B,
                                                       int T, int p0 = 0);

// Compares the analytic gradient `ana` of f at x[0..n) with central differences (one row).
GradCheckRow compare_gradient(const std::string& what, const std::string& tensor, double* x, const double* ana,
                              size_t n, const std::function<double()>& f);
// Every tensor of a model's layout: analytic `grad` against central differences of `loss` in `params`.
std::vector<GradCheckRow> compare_all(const std::string& what, const ParamLayout& layout, std::vector<double>& params,
                                      const std::vector<double>& grad, const std::function<double()>& loss);

}  // namespace pe
