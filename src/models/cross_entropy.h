// The loss layer of both tasks' models: cross-entropy of one row of logits against its target.
// Forward accumulates in double (a loss is a sum over many rows); backward works in the model's
// scalar. The row's largest logit is subtracted first, so exp never overflows.
#pragma once
#include "core/math.h"

namespace pe {

// The first index of the largest of l[0..C).
template <class S>
int argmax_of(const S* l, int C) {
  int arg = 0;
  for (int c = 1; c < C; ++c)
    if (l[c] > l[arg]) arg = c;
  return arg;
}

// l: [C] logits, target in [0, C). Returns log sum_c exp(l_c - m) - (l_target - m), m = max_c l_c.
// argmax (optional): the first index of the largest logit.
template <class S>
double cross_entropy_forward(const S* l, int C, int target, int* argmax = nullptr) {
  const int arg = argmax_of(l, C);
  const S m = l[arg];
  double sum = 0;
  double e[64];  // exp(l_c - m) for up to 64 classes at a time (vectorised), then summed in order
  for (int c0 = 0; c0 < C; c0 += 64) {
    const int n = C - c0 < 64 ? C - c0 : 64;
    for (int c = 0; c < n; ++c) e[c] = double(l[c0 + c] - m);
    math::exp_inplace(e, n);
    for (int c = 0; c < n; ++c) sum += e[c];
  }
  if (argmax) *argmax = arg;
  return math::log(sum) - double(l[target] - m);
}

// Undoes loss = cross_entropy_forward(l, C, target) / norm: dl = (softmax(l) - onehot(target)) / norm.
// dl: [C], written (not added).
template <class S>
void cross_entropy_backward(const S* l, int C, int target, S norm, S* dl) {
  S m = l[0];
  for (int c = 1; c < C; ++c) m = l[c] > m ? l[c] : m;
  for (int c = 0; c < C; ++c) dl[c] = l[c] - m;
  math::exp_inplace(dl, C);  // the scalar exp's bits, vectorised
  S sum = 0;
  for (int c = 0; c < C; ++c) sum += dl[c];
  for (int c = 0; c < C; ++c) dl[c] /= sum * norm;
  dl[target] -= S(1) / norm;
}

}  // namespace pe
