// Gradient checks: every hand-written gradient against central differences, in double precision.
#pragma once
#include <string>
#include <vector>

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

// The cue model with `scheme`, every parameter element (small batch, short sequences).
std::vector<GradCheckRow> gradcheck_cue(const std::string& scheme);
// The same head in its causal form, answering at every position (the filings task's): no query
// token, several positions without a target.
std::vector<GradCheckRow> gradcheck_head_every_position(const std::string& scheme);
// The general attention layer (batch 2, 3 heads, 5 queries x 6 keys, causal, shifted positions; and
// 70 x 70 under a band of 40, so several query blocks of the dense path),
// composed with the scheme's Q/K transform and bias: gradients of Q, K, V and scheme parameters.
std::vector<GradCheckRow> gradcheck_attention(const std::string& scheme);
// The character LM (small: vocab 7, width 8, 2 heads, 2 blocks, batch 2, length 6, positions from 3).
std::vector<GradCheckRow> gradcheck_charlm(const std::string& scheme);

}  // namespace pe
