// The batch modes every scheme is checked under (docs/architecture.md, "The batch model"): one small
// batch of coordinates per mode, each a Coordinates over arrays it owns. The gradient checks
// (models/gradcheck.cpp) and the invariant tests (tests/test_coordinates.cpp) read the same cases.
#pragma once
#include <string>
#include <vector>

#include "models/attention.h"

namespace pe {

struct CoordinateCase {
  std::string mode;  // "causal", "bidirectional", "prefix", "packed-reset", ...
  std::string what;  // one line: what the batch holds
  int B = 1, Tq = 1, Tk = 1;
  std::vector<int> qpos, kpos;  // [B, Tq], [B, Tk]: per row; or [Tq], [Tk] when shared
  std::vector<int> qseg, kseg;  // [B, Tq], [B, Tk], or empty: one document, no padding
  Visibility vis;
  bool shared = false;  // one set of positions for the batch (Coordinates::shared)
  // Its coordinates (pointing into this case: keep it alive while they are used).
  Coordinates coordinates() const {
    return {qpos.data(),
            kpos.data(),
            vis,
            !shared,
            qseg.empty() ? nullptr : qseg.data(),
            kseg.empty() ? nullptr : kseg.data()};
  }
  // Query row i of sequence b's position, and key row j's.
  int q_at(int b, int i) const { return qpos[shared ? i : size_t(b) * Tq + i]; }
  int k_at(int b, int j) const { return kpos[shared ? j : size_t(b) * Tk + j]; }
  int max_position() const;
  int min_position() const;
};

// The modes, in order: causal, bidirectional, prefix, packed-reset, packed-global, pad-left-content,
// pad-left-storage, pad-right-content, pad-right-storage, decode. Two sequences each, rows of
// different coordinates, positions starting at `p0`.
std::vector<CoordinateCase> coordinate_cases(int p0 = 0);

}  // namespace pe
