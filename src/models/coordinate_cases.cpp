#include "models/coordinate_cases.h"

#include <algorithm>

namespace pe {

namespace {

// Positions p0 + a, p0 + a + 1, ... for n rows.
std::vector<int> run(int p0, int a, int n) {
  std::vector<int> v(n);
  for (int i = 0; i < n; ++i) v[i] = p0 + a + i;
  return v;
}
std::vector<int> cat(std::vector<int> a, const std::vector<int>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}
std::vector<int> fill(int n, int x) { return std::vector<int>(n, x); }

// A case whose queries are its keys (Tq = Tk = T), rows given per sequence.
CoordinateCase square(std::string mode, std::string what, const std::vector<std::vector<int>>& pos,
                      const std::vector<std::vector<int>>& seg, Visibility vis) {
  CoordinateCase c;
  c.mode = std::move(mode), c.what = std::move(what), c.vis = vis;
  c.B = int(pos.size()), c.Tq = c.Tk = int(pos[0].size());
  for (const auto& p : pos) c.qpos = cat(c.qpos, p);
  for (const auto& s : seg) c.qseg = cat(c.qseg, s);
  c.kpos = c.qpos, c.kseg = c.qseg;
  return c;
}

}  // namespace

int CoordinateCase::max_position() const {
  return std::max(*std::max_element(qpos.begin(), qpos.end()), *std::max_element(kpos.begin(), kpos.end()));
}
int CoordinateCase::min_position() const {
  return std::min(*std::min_element(qpos.begin(), qpos.end()), *std::min_element(kpos.begin(), kpos.end()));
}

std::vector<CoordinateCase> coordinate_cases(int p0) {
  const int T = 9;
  std::vector<CoordinateCase> cases;
  cases.push_back(
      square("causal", "two sequences at different offsets, causal", {run(p0, 0, T), run(p0, 3, T)}, {}, Visibility{}));
  cases.push_back(square("bidirectional", "two sequences, every key visible (an encoder)",
                         {run(p0, 0, T), run(p0, 2, T)}, {}, Visibility::bidirectional()));
  cases.push_back(square("prefix", "positions below p0 + 3 seen by every query, causal after (a prefix LM)",
                         {run(p0, 0, T), run(p0, 0, T)}, {}, Visibility::prefix_lm(p0 + 3)));
  cases.push_back(square("packed-reset", "two documents per sequence, positions restarting at each",
                         {cat(run(p0, 0, 4), run(p0, 0, 5)), cat(run(p0, 0, 6), run(p0, 0, 3))},
                         {cat(fill(4, 0), fill(5, 1)), cat(fill(6, 0), fill(3, 1))}, Visibility{}));
  cases.push_back(square("packed-global", "two documents per sequence, positions running on across them",
                         {run(p0, 0, T), run(p0, 0, T)}, {cat(fill(4, 0), fill(5, 1)), cat(fill(6, 0), fill(3, 1))},
                         Visibility{}));
  // padding: PAD rows are document -1; content positions counted over content (PAD rows at p0) or
  // over storage (every row at its storage index)
  cases.push_back(square("pad-left-content", "three PAD rows before the content; positions count content",
                         {cat(fill(3, p0), run(p0, 0, 6)), run(p0, 0, T)},
                         {cat(fill(3, kPadDocument), fill(6, 0)), fill(T, 0)}, Visibility{}));
  cases.push_back(square("pad-left-storage", "three PAD rows before the content; positions count storage rows",
                         {run(p0, 0, T), run(p0, 0, T)}, {cat(fill(3, kPadDocument), fill(6, 0)), fill(T, 0)},
                         Visibility{}));
  cases.push_back(square("pad-right-content", "four PAD rows after the content; positions count content",
                         {cat(run(p0, 0, 5), fill(4, p0)), run(p0, 0, T)},
                         {cat(fill(5, 0), fill(4, kPadDocument)), fill(T, 0)}, Visibility{}));
  cases.push_back(square("pad-right-storage", "four PAD rows after the content; positions count storage rows",
                         {run(p0, 0, T), run(p0, 0, T)}, {cat(fill(5, 0), fill(4, kPadDocument)), fill(T, 0)},
                         Visibility{}));
  // decode: one query per sequence at its cache position t (the cache's length), keys 0..t cached;
  // the second sequence's cache is shorter, its last slots PAD
  CoordinateCase d;
  d.mode = "decode", d.what = "one query at the cache position over the cached keys; sequence 2's cache shorter";
  d.B = 2, d.Tq = 1, d.Tk = 12;
  d.qpos = {p0 + 11, p0 + 7};
  d.kpos = cat(run(p0, 0, 12), cat(run(p0, 0, 8), fill(4, p0)));
  d.qseg = {0, 0};
  d.kseg = cat(fill(12, 0), cat(fill(8, 0), fill(4, kPadDocument)));
  cases.push_back(d);
  return cases;
}

}  // namespace pe
