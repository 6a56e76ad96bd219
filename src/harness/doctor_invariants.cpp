// The doctor's invariants (harness/doctor.h, docs/doctor.md): one table, one entry each (its name, what it
// checks, what a model is expected to do, and how it is measured). The reading invariants compare two reads
// of the model that a correct implementation makes equal; "equal" is within kLogitTol of the logits' scale
// (float32 sums in another order, RoPE's angles stored at other positions), against differences of 1e-2
// and more that a broken coordinate contract makes. The algebra rows read the scheme's own position code.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/errors.h"
#include "core/rng.h"
#include "harness/doctor.h"
#include "harness/doctor_twin.h"
#include "theory/finite_precision.h"

namespace pe {

namespace {

constexpr double kLogitTol = 1e-4;       // x max(1, max |logit|)
constexpr double kCodeTol = 1e-5;        // the position code's algebra, float32 entries of size 1
constexpr int kMaxInvariantLength = 96;  // the sequences the reading invariants read (at most)
constexpr int kBatch = 4;
constexpr int kShift = 100;  // the shift invariant's offset (less where a table ends sooner)

struct Expect {
  enum Kind { Holds, Moves, Skip } kind = Holds;
  std::string why;  // with Skip
};
struct Measure {
  double value = 0, tolerance = 0;
  std::string detail;
};

// What every invariant reads: the model, the sequences' length, and random sequences.
struct Context {
  DoctorModel& m;
  const DoctorSettings& s;
  int length;  // the length the model is read at
  int T;       // the reading invariants' sequences
  uint64_t seed;
};

DoctorBatch random_batch(Context& c, int B, int T, uint64_t stream) {
  Rng rng(stream_key({c.seed, 0x646f63746f72ULL, stream}));
  DoctorBatch b;
  b.B = B, b.T = T;
  b.tokens.resize(size_t(B) * T);
  const int q = c.m.query_token();
  for (auto& t : b.tokens) t = int(rng.below(uint64_t(c.m.symbols())));
  if (q >= 0)
    for (int i = 0; i < B; ++i) b.tokens[size_t(i) * T + T - 1] = q;
  return b;
}

// The larger of two measurements, NaN if either is (std::max drops a NaN on its right): a reading that gives
// NaN fails, it does not pass as 0.
double worse(double a, double b) { return std::isnan(a) || std::isnan(b) ? std::nan("") : std::max(a, b); }

double scale_of(const std::vector<float>& v) {
  double s = 1;
  for (float x : v) s = worse(s, double(std::abs(x)));
  return s;
}

// max |a[i] - b[j]| over `rows` rows of `width` starting at rows ra and rb.
double row_gap(const std::vector<float>& a, size_t ra, const std::vector<float>& b, size_t rb, int rows, int width) {
  double g = 0;
  for (size_t i = 0; i < size_t(rows) * width; ++i)
    g = worse(g, double(std::abs(a[ra * width + i] - b[rb * width + i])));
  return g;
}

// One sequence of a batch alone, its tokens from..from+n-1 at p0.
DoctorBatch piece(const DoctorBatch& b, int seq, int from, int n, int p0) {
  DoctorBatch one;
  one.B = 1, one.T = n, one.p0 = p0;
  one.tokens.assign(b.tokens.begin() + long(size_t(seq) * b.T + from),
                    b.tokens.begin() + long(size_t(seq) * b.T + from + n));
  return one;
}

Expect needs_coordinates(Context& c) {
  if (!c.m.takes_coordinates()) return {Expect::Skip, "a " + c.m.kind() + " takes no per-token positions or documents"};
  return {};
}

// 1. decode = full forward, one token at a time and in chunks
Measure decode_measure(Context& c) {
  const DoctorBatch b = random_batch(c, 1, c.T, 1);
  const std::vector<float> full = c.m.logits(b);
  const int V = c.m.width();
  std::vector<int> ones(size_t(c.T), 1), chunks;
  for (int left = c.T, k = 0; left > 0; ++k) {
    const int n = std::min(left, 1 + (k * 3) % 7);  // 1, 4, 7, 3, 6, 2, 5, ...
    chunks.push_back(n), left -= n;
  }
  const double one = row_gap(full, 0, c.m.decode(b.tokens, ones), 0, c.T, V);
  const double chunked = row_gap(full, 0, c.m.decode(b.tokens, chunks), 0, c.T, V);
  return {worse(one, chunked), kLogitTol * scale_of(full),
          fmt::format("one token at a time {:.2g}, in {} chunks {:.2g}", one, chunks.size(), chunked)};
}

// Each sequence's row inside it (T/6 - 1, 2T/6 - 1, ...), and a batch whose head reads there (the query token moved
// there).
std::vector<int> inner_rows(Context& c, DoctorBatch& b) {
  std::vector<int> rows(size_t(b.B));
  for (int i = 0; i < b.B; ++i) rows[i] = std::max(0, c.T * (i + 1) / (b.B + 2) - 1);
  if (!c.m.every_row()) {
    b.query_rows = rows;
    if (c.m.query_token() >= 0)
      for (int i = 0; i < b.B; ++i) std::swap(b.tokens[size_t(i) * c.T + c.T - 1], b.tokens[size_t(i) * c.T + rows[i]]);
  }
  return rows;
}

// 2. no future leak: tokens after row r change; rows <= r of a causal model do not
Measure future_measure(Context& c) {
  DoctorBatch b = random_batch(c, kBatch, c.T, 2);
  const std::vector<int> rows = inner_rows(c, b);
  DoctorBatch later = b;
  for (int i = 0; i < kBatch; ++i)
    for (int t = rows[i] + 1; t < c.T; ++t) {  // content tokens only: a head's query token sits at its row
      int& tok = later.tokens[size_t(i) * c.T + t];
      tok = (tok + 1) % c.m.symbols();
    }
  const std::vector<float> x = c.m.logits(b), y = c.m.logits(later);
  const int W = c.m.width();
  double gap = 0;
  for (int i = 0; i < kBatch; ++i)
    gap = c.m.every_row() ? worse(gap, row_gap(x, size_t(i) * c.T, y, size_t(i) * c.T, rows[i] + 1, W))
                          : worse(gap, row_gap(x, size_t(i), y, size_t(i), 1, W));
  return {gap, kLogitTol * scale_of(x), "the tokens after each sequence's row changed"};
}

// 3. visibility is a mask: a causal model scores a key after its query -infinity (not a finite bias); an encoder does
// not
Measure later_keys_measure(Context& c) {
  DoctorBatch b = random_batch(c, kBatch, c.T, 7);
  inner_rows(c, b);
  return {c.m.later_key_share(b), 0,
          "the share of (query, later key) pairs let through: a score above -infinity before the softmax"};
}

// 3. packed with isolation: each document's rows as it reads alone (reset: from 0; global: at its offset)
Measure packed_measure(Context& c, bool reset) {
  DoctorBatch b = random_batch(c, 2, c.T, 3);
  const int splits[2] = {c.T / 2, c.T / 3};
  for (int i = 0; i < 2; ++i)
    for (int t = 0; t < c.T; ++t) {
      const int s = std::max(1, splits[i]);
      b.pos.push_back(reset && t >= s ? t - s : t);
      b.doc.push_back(t < s ? 0 : 1);
    }
  const std::vector<float> packed = c.m.logits(b);
  const int W = c.m.width();
  double gap = 0;
  for (int i = 0; i < 2; ++i) {
    const int s = std::max(1, splits[i]);
    const std::vector<float> first = c.m.logits(piece(b, i, 0, s, 0));
    const std::vector<float> second = c.m.logits(piece(b, i, s, c.T - s, reset ? 0 : s));
    gap = worse(gap, row_gap(packed, size_t(i) * c.T, first, 0, s, W));
    gap = worse(gap, row_gap(packed, size_t(i) * c.T + s, second, 0, c.T - s, W));
  }
  return {gap, kLogitTol * scale_of(packed),
          reset ? "two documents per sequence, positions from 0 in each"
                : "two documents per sequence, positions running on across them"};
}

// 4. padded: the content rows as the unpadded sequence reads them (PAD first or last; positions counted
// over the content, or over storage)
Measure padded_measure(Context& c, bool left, bool content) {
  const int P = std::max(1, c.T / 4), n = c.T - P;
  DoctorBatch b = random_batch(c, 1, c.T, 4);
  for (int t = 0; t < c.T; ++t) {
    const bool pad = left ? t < P : t >= n;
    b.doc.push_back(pad ? -1 : 0);
    b.pos.push_back(!content ? t : pad ? 0 : t - (left ? P : 0));
  }
  const int first = left ? P : 0;
  const std::vector<float> padded = c.m.logits(b);
  const std::vector<float> alone = c.m.logits(piece(b, 0, first, n, content ? 0 : first));
  return {row_gap(padded, size_t(first), alone, 0, n, c.m.width()), kLogitTol * scale_of(alone),
          fmt::format("{} PAD tokens {}, positions over {}", P, left ? "first" : "last",
                      content ? "the content" : "storage")};
}

// The shift invariant's sequences and offset: the reading length moved by kShift, or, where a table ends
// sooner, at most half the table moved by the rest of it.
std::pair<int, int> shift_of(Context& c) {
  const int last = c.m.last_position();
  if (last < 0) return {c.T, kShift};
  const int T = std::min(c.T, (last + 1) / 2);
  return {T, std::min(kShift, last + 1 - T)};
}

// 5. shift: every position moved by c
Expect shift_expect(Context& c) {
  if (shift_of(c).first < 2) return {Expect::Skip, fmt::format("no room: positions end at {}", c.m.last_position())};
  return {c.m.scheme().offsets_only() ? Expect::Holds : Expect::Moves, ""};
}
Measure shift_measure(Context& c) {
  const auto [T, by] = shift_of(c);
  DoctorBatch b = random_batch(c, kBatch, T, 5);
  const std::vector<float> at0 = c.m.logits(b);
  b.p0 = by;
  const std::vector<float> moved = c.m.logits(b);
  // an absolute scheme must drift at all (exactly 0: its positions are not read); a relative one must not
  const double tolerance = c.m.scheme().offsets_only() ? kLogitTol * scale_of(at0) : 0.0;
  return {row_gap(at0, 0, moved, 0, int(at0.size() / c.m.width()), c.m.width()), tolerance,
          fmt::format("positions {} .. {} against 0 .. {}", by, by + T - 1, T - 1)};
}

// 6. batch independence: a sequence alone reads as it does beside others
Measure batch_measure(Context& c) {
  DoctorBatch b = random_batch(c, kBatch, c.T, 6);
  const std::vector<float> all = c.m.logits(b);
  const int rows = c.m.every_row() ? c.T : 1, W = c.m.width();
  double gap = 0;
  for (int i = 0; i < kBatch; ++i)
    gap = worse(gap, row_gap(all, size_t(i) * rows, c.m.logits(piece(b, i, 0, c.T, 0)), 0, rows, W));
  return {gap, kLogitTol * scale_of(all), fmt::format("{} sequences", kBatch)};
}

// 7. every position read is one the model can represent
Measure range_measure(Context& c) {
  const int last = c.m.last_position(), read = c.length - 1;
  if (last < 0) return {0, 1, fmt::format("reads 0 .. {}; every position is defined", read)};
  return {double(read) / std::max(1, last), 1, fmt::format("reads 0 .. {}; its table ends at {}", read, last)};
}

// The Q/K transform of layer l at position p for queries or keys, applied to the identity: M(p) [W, W],
// row i = e_i turned.
std::vector<double> qk_matrix(Scheme<float>& s, int layer, int p, Qk side = Qk::Query) {
  const int W = s.config().n_heads * s.config().d_head;
  std::vector<float> x(size_t(W) * W, 0.0f);
  for (int i = 0; i < W; ++i) x[size_t(i) * W + i] = 1.0f;
  const std::vector<int> pos(size_t(W), p);
  s.qk_forward(layer, side, pos.data(), W, x.data());
  return std::vector<double>(x.begin(), x.end());
}

Expect qk_expect(Context& c) {
  Scheme<float>& s = c.m.scheme();
  if (!s.acts_on_qk()) return {Expect::Skip, "the scheme does not turn queries and keys"};
  if (!s.offsets_only()) return {Expect::Skip, "an absolute scheme's Q/K transform need not compose"};
  for (auto& plan : s.frequency_plans())
    if (plan.warp_factor > 0)  // compress turns each (query, key) pair by its warped distance in the score hook
      return {Expect::Skip, "a distance warp (compress) turns pairs in the score hook, not queries and keys"};
  return {};
}

// The positions the algebra rows read: 0, a few inside the length, and the length's end.
std::vector<int> algebra_positions(Context& c) {
  std::vector<int> p{0, 1, 2, 7, c.length / 3, c.length / 2, c.length - 1};
  for (int& x : p) x = std::min(x, c.length - 1);
  std::sort(p.begin(), p.end());
  p.erase(std::unique(p.begin(), p.end()), p.end());
  return p;
}

// 8. the Q/K transform composes: M(a) M(b) = M(a + b) (rotations by position form a group)
Measure compose_measure(Context& c) {
  Scheme<float>& s = c.m.scheme();
  const int W = s.config().n_heads * s.config().d_head, L = s.config().n_layers;
  const std::vector<int> ps = algebra_positions(c);
  s.prepare(2 * ps.back() + 1);
  double gap = 0;
  for (int l = 0; l < L; ++l)
    for (int a : ps)
      for (int b : ps) {
        const auto A = qk_matrix(s, l, a), B = qk_matrix(s, l, b), AB = qk_matrix(s, l, a + b);
        for (int i = 0; i < W; ++i)
          for (int j = 0; j < W; ++j) {
            double v = 0;
            for (int k = 0; k < W; ++k) v += A[size_t(i) * W + k] * B[size_t(k) * W + j];
            gap = worse(gap, std::abs(v - AB[size_t(i) * W + j]));
          }
      }
  return {gap, kCodeTol, fmt::format("positions a, b in {{{}}}, every layer", fmt::join(ps, ", "))};
}

// 9. the Q/K transform keeps a query's and a key's dot product at one position: Mq(p) Mk(p)^T = I (RoPE's
// rotation is orthogonal; xPos scales a query up by what it scales a key down)
Measure orthogonal_measure(Context& c) {
  Scheme<float>& s = c.m.scheme();
  const int W = s.config().n_heads * s.config().d_head, L = s.config().n_layers;
  s.prepare(algebra_positions(c).back() + 1);
  double gap = 0;
  for (int l = 0; l < L; ++l)
    for (int p : algebra_positions(c)) {
      const auto M = qk_matrix(s, l, p, Qk::Query), N = qk_matrix(s, l, p, Qk::Key);
      for (int i = 0; i < W; ++i)
        for (int j = 0; j < W; ++j) {
          double v = 0;
          for (int k = 0; k < W; ++k) v += M[size_t(i) * W + k] * N[size_t(j) * W + k];
          gap = worse(gap, std::abs(v - (i == j ? 1.0 : 0.0)));
        }
    }
  return {gap, kCodeTol, "every layer, positions up to the length"};
}

// 10. and 11. an added code: its pure dot product e(i).e(j) depends on i - j alone; a cross-frequency one
// (column k of e(i) against column k + 2 of e(j), another frequency) does not
Expect code_expect(Context& c, bool pure) {
  if (c.m.scheme().geometry().kind != PositionGeometry::Kind::AddedCode)
    return {Expect::Skip, "the scheme adds no fixed sin/cos code"};
  return {pure ? Expect::Holds : Expect::Moves, ""};
}
Measure code_measure(Context& c, bool pure) {
  const int n = 64, D = c.m.scheme().config().d_model;  // the code's own positions 0 .. 63, whatever the length
  std::vector<int> pos(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) pos[i] = i;
  const std::vector<float> e = c.m.embedding_code(pos);
  double spread = 0;
  for (int off = 1; off < n / 2; ++off) {
    double lo = 1e300, hi = -1e300;
    for (int i = 0; i + off < n; ++i) {
      double v = 0;
      for (int k = 0; k < D; ++k) v += double(e[size_t(i) * D + k]) * e[size_t(i + off) * D + (pure ? k : (k + 2) % D)];
      if (std::isnan(v)) lo = hi = v;  // sticks: std::min and std::max keep a NaN on their left
      lo = std::min(lo, v), hi = std::max(hi, v);
    }
    spread = worse(spread, std::isfinite(lo) && std::isfinite(hi) ? hi - lo : std::nan(""));
  }
  return {spread, kCodeTol * D,
          fmt::format("the spread over i of {}, the largest over offsets d < {} ({} columns)",
                      pure ? "e(i).e(i+d)" : "column k of e(i) against column k+2 of e(i+d)", n / 2, D)};
}

// 12. the angles: the model's Q/K transform at each position against exact rotations by p * theta (double), and
// where precision would alias integer positions
Expect angles_expect(Context& c) {
  if (c.m.scheme().frequency_plans().empty()) return {Expect::Skip, "the scheme has no frequencies"};
  if (!c.m.scheme().acts_on_qk()) return {Expect::Skip, "its frequencies do not turn queries and keys"};
  for (auto& plan : c.m.scheme().frequency_plans())
    if (plan.warp_factor > 0)  // compress turns each (query, key) pair by its warped distance in the score hook
      return {Expect::Skip, "a distance warp (compress) turns pairs in the score hook, not queries and keys"};
  return {};
}
Measure angles_measure(Context& c) {
  Scheme<float>& s = c.m.scheme();
  const auto plans = s.frequency_plans();
  const int H = s.config().n_heads, dh = s.config().d_head, W = H * dh, L = s.config().n_layers;
  s.prepare(algebra_positions(c).back() + 1);
  double gap = 0;
  for (int l = 0; l < L; ++l) {
    const FrequencyPlan& plan = plans.size() > 1 ? plans.at(size_t(l)) : plans.front();
    for (int p : algebra_positions(c)) {
      const auto M = qk_matrix(s, l, p);
      for (int h = 0; h < H; ++h)
        for (int j = 0; j < dh / 2; ++j) {
          const double theta = size_t(j) < plan.theta.size() ? plan.theta[j] : 0.0;
          const double co = std::cos(p * theta), si = std::sin(p * theta);
          const size_t a = size_t(h) * dh + 2 * j, b = a + 1;  // pe-bench pairs neighbours (2j, 2j+1)
          for (double d : {M[a * W + a] - co, M[a * W + b] - si, M[b * W + a] + si, M[b * W + b] - co})
            gap = worse(gap, std::abs(d));
        }
    }
  }
  return {
      gap, kCodeTol,
      fmt::format("integer positions would alias from {} in bfloat16 and {} in float16 (pe-bench keeps them "
                  "integers and turns them in double)",
                  theory::first_aliasing_integer(theory::kBfloat16), theory::first_aliasing_integer(theory::kFloat16))};
}

// The reading against an independent one of the same weights: the PyTorch twin's logits on the checkpoint's
// export, at the last T positions of the read length (a head at its last row). A fault in the reading that leaves the
// model consistent with itself (every other invariant compares two of its own readings) shows here.
Expect twin_expect(Context& c) {
  if (!c.s.twin) return {Expect::Skip, "not asked for (--twin reads the export with the PyTorch twin)"};
  if (c.s.checkpoint.empty()) return {Expect::Skip, "no checkpoint file to export"};
  if (std::string why = twin_unavailable(); !why.empty()) return {Expect::Skip, why};
  return {};
}
Measure twin_measure(Context& c) {
  DoctorBatch b = random_batch(c, 2, c.T, 11);
  // the far end of the read length (inside a table): where a position that rounds or wraps wrongly shows
  const int end = c.m.last_position() >= 0 ? std::min(c.length, c.m.last_position() + 1) : c.length;
  b.p0 = std::max(0, end - c.T);
  const std::vector<float> mine = c.m.logits(b);
  std::vector<float> twin;
  try {
    twin = twin_logits(c.s.checkpoint, b.tokens, b.B, b.T, b.p0);
  } catch (const Error& e) {  // the twin could not read the export: nothing agreed with
    return {std::nan(""), 0, e.what()};
  }
  if (twin.size() != mine.size())
    return {std::nan(""), 0, fmt::format("the twin gave {} logits, the model {}", twin.size(), mine.size())};
  return {row_gap(mine, 0, twin, 0, 1, int(mine.size())), kLogitTol * scale_of(mine),
          fmt::format("{} sequences at positions {} .. {}, the twin in float32", b.B, b.p0, b.p0 + b.T - 1)};
}

struct Invariant {
  const char* name;
  const char* checks;
  Expect (*expect)(Context&);
  Measure (*measure)(Context&);
};

Expect always(Context&) { return {}; }

const std::vector<Invariant>& invariants() {
  static const std::vector<Invariant> table = {
      {"decode", "cached decoding (a token at a time, and a prefix in chunks) equals the full forward at every step",
       [](Context& c) {
         return c.m.decodes() ? Expect{}
                              : Expect{Expect::Skip, c.m.bidirectional() ? "an encoder does not decode"
                                                                         : "a " + c.m.kind() + " has no cache"};
       },
       decode_measure},
      {"future", "a causal model's answer at row t does not change when a token after t does",
       [](Context& c) {
         return c.m.bidirectional() ? Expect{Expect::Skip, "an encoder reads later tokens (later-keys: they are seen)"}
                                    : Expect{};
       },
       future_measure},
      {"later-keys", "a causal model gives every key after its query probability exactly 0 (an encoder does not)",
       [](Context& c) {
         return Expect{c.m.bidirectional() ? Expect::Moves : Expect::Holds, ""};
       },
       later_keys_measure},
      {"packed-reset", "packed documents with isolation read as each alone, positions from 0", needs_coordinates,
       [](Context& c) { return packed_measure(c, true); }},
      {"packed-global", "packed documents with isolation read as each alone at its offset", needs_coordinates,
       [](Context& c) { return packed_measure(c, false); }},
      {"pad-left-content", "PAD first, positions over the content: the content reads as unpadded", needs_coordinates,
       [](Context& c) { return padded_measure(c, true, true); }},
      {"pad-left-storage", "PAD first, positions over storage: the content reads as unpadded at its offset",
       needs_coordinates, [](Context& c) { return padded_measure(c, true, false); }},
      {"pad-right-content", "PAD last, positions over the content: the content reads as unpadded", needs_coordinates,
       [](Context& c) { return padded_measure(c, false, true); }},
      {"pad-right-storage", "PAD last, positions over storage: the content reads as unpadded", needs_coordinates,
       [](Context& c) { return padded_measure(c, false, false); }},
      {"shift", "every position moved by c: a relative scheme reads the same (an absolute one drifts)", shift_expect,
       shift_measure},
      {"batch", "a sequence reads the same alone as beside other sequences", always, batch_measure},
      {"range", "every position read is one the model can represent (a learned table's rows, a fine-tune's plan)",
       always, range_measure},
      {"qk-compose", "the Q/K transform composes: M(a) M(b) = M(a+b)", qk_expect, compose_measure},
      {"qk-orthogonal", "the Q/K transform keeps dot products at one position: Mq(p) Mk(p)^T = I", qk_expect,
       orthogonal_measure},
      {"code-offset", "an added sin/cos code's dot product e(i).e(j) depends on i - j alone",
       [](Context& c) { return code_expect(c, true); }, [](Context& c) { return code_measure(c, true); }},
      {"code-cross", "a cross-frequency dot product of the code depends on more than i - j",
       [](Context& c) { return code_expect(c, false); }, [](Context& c) { return code_measure(c, false); }},
      {"angles", "the Q/K transform turns plane j by p * theta_j (exact, in double) at every position read",
       angles_expect, angles_measure},
      {"twin", "the reading equals the PyTorch twin's of the checkpoint's export (--twin)", twin_expect, twin_measure},
  };
  return table;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> doctor_invariants() {
  std::vector<std::pair<std::string, std::string>> out;
  for (auto& i : invariants()) out.emplace_back(i.name, i.checks);
  out.emplace_back("export", "export then import gives the checkpoint's bytes back");
  return out;
}

std::vector<DoctorRow> run_doctor_invariants(DoctorModel& model, const DoctorSettings& settings) {
  const int length = settings.length > 0 ? settings.length : model.train_length();
  int T = std::min(length, kMaxInvariantLength);
  if (model.last_position() >= 0) T = std::min(T, model.last_position() + 1);
  Context c{model, settings, length, std::max(T, 2), settings.seed};
  std::vector<DoctorRow> rows;
  for (auto& inv : invariants()) {
    DoctorRow r;
    r.name = inv.name, r.checks = inv.checks;
    const Expect e = inv.expect(c);
    if (e.kind == Expect::Skip) {
      r.expect = r.verdict = "n/a";
      r.detail = e.why;
    } else {
      Measure m;
      try {
        m = inv.measure(c);
      } catch (const UsageError& e) {  // the model refused the reading (a cache past a table): it fails
        m = {std::numeric_limits<double>::quiet_NaN(), 0, std::string(kRefusedReading) + e.what()};
      }
      r.expect = e.kind == Expect::Holds ? "holds" : "moves";
      r.value = m.value, r.tolerance = m.tolerance, r.detail = m.detail;
      const bool within = m.value <= m.tolerance;
      r.verdict = std::isfinite(m.value) && (e.kind == Expect::Holds) == within ? "ok" : "FAIL";
    }
    rows.push_back(std::move(r));
  }
  return rows;
}

}  // namespace pe
