// A positional scheme is one object. It declares where it acts — the embedding state, the Q/K
// transform, the score bias — owns its parameters (declared into the model's flat buffers) and
// implements the forward and backward of each hook. Models call the hooks; they never look at names.
#pragma once
#include <algorithm>
#include <climits>
#include <cmath>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/errors.h"
#include "core/keys.h"
#include "core/math.h"
#include "core/params.h"
#include "core/rng.h"
#include "schemes/frequency_maps.h"
#include "schemes/frequency_plan.h"

namespace pe {

struct SchemeConfig {
  std::string name;
  int d_model = 16;  // width of the embedding state
  int n_heads = 1;   // heads per attention layer
  int d_head = 16;   // width of one head (even)
  int n_layers = 1;  // attention layers of the model (per-layer tables, hybrids)
  // The model's context, not settings (a checkpoint's scheme section does not carry them):
  int train_length = 0;   // the training context ("0: the training length" settings resolve to it)
  double init_std = 0.3;  // the model's embedding init std; a scheme's trained tables start N(0, std^2)
  // Some query of the model sees a key after its own position (bidirectional or prefix visibility,
  // Visibility::sees_later): schemes with an encoder form take it (t5's two-sided buckets, alibi's
  // symmetric bias); the others read signed offsets as they are.
  bool bidirectional = false;
  // Settings a scheme declares in its registry entry (scheme_keys()), by key; a missing key takes
  // the declared default (make_scheme fills them in).
  nlohmann::json settings = nlohmann::json::object();
  template <class T>
  T setting(const std::string& key) const {
    if (!settings.contains(key)) throw Error("scheme setting '" + key + "' was not filled in");
    return settings.at(key).get<T>();
  }
};

void fill_scheme_settings(SchemeConfig& cfg);  // (declared with the registry, below)

// The visible keys of one query row of one head: key t's head row is
// base + (index ? index[keys[t]] : first + keys[t]) * stride.
template <class S>
struct KeyRows {
  S* base = nullptr;
  size_t stride = 0;
  const int* keys = nullptr;
  const int* index = nullptr;
  size_t first = 0;
  S* operator()(int t) const {
    const size_t r = index ? size_t(index[keys[t]]) : first + size_t(keys[t]);
    return base + r * stride;
  }
};

// Which rows a Q/K transform is given: the queries of a pass or its keys.
enum class Qk { Query, Key };

// One query row of one head in one layer, as the score and value hooks see it.
template <class S>
struct AttnRow {
  int layer = 0, head = 0, dh = 0;
  int qpos = 0;
  const S* q = nullptr;       // [dh] the query, after the Q/K transform
  int nk = 0;                 // visible keys
  const int* kpos = nullptr;  // [nk] their positions (ascending)
  KeyRows<const S> keys;      // keys(t): [dh] the t-th visible key, after the Q/K transform
  const S* tables = nullptr;  // the scheme's derived tables for this layer (tables_forward), or nullptr
  int span = 0;               // the span they were computed for
};

// A block of query rows of one head against a span of keys of their sequence, as the dense attention
// path holds them (models/attention.cpp): a scheme whose score terms are products of the rows with a
// table (Transformer-XL's R, DeBERTa's Kr and Qr) adds them to the whole block at once, as GEMMs,
// instead of one dot product per (query, key).
template <class S>
struct AttnBlock {
  int layer = 0, head = 0, dh = 0;
  int nq = 0;                 // query rows
  const S* q = nullptr;       // row r: q + r * ld, [dh] (after the Q/K transform)
  const int* qpos = nullptr;  // [nq]
  int nk = 0;                 // keys of the span: their positions ascend within each row's visible keys, and
                              // across the span only when the batch's do (a packed batch with positions
                              // reset per document does not): test consecutive() before relying on it
  const S* k = nullptr;       // key t: k + t * ld, [dh]
  const int* kpos = nullptr;  // [nk]
  size_t ld = 0;              // row stride of q and k (and of the gradients dq, dk)
  const S* tables = nullptr;  // the scheme's derived tables for this layer
  int span = 0;               // the span they were computed for
  // Row r sees keys only inside [key_begin(r), key_end(r)) of the span (a causal row: none after its
  // own position). A hook may leave the other pairs alone: their scores are never read and their
  // score gradients are 0. first/last: [nq] each row's first and last visible key, counted from the
  // span's key key0 (last < first: none); nullptr: every key of the span.
  const int* first = nullptr;
  const int* last = nullptr;
  int key0 = 0;
  // A scheme whose key terms read the other visible keys (Scheme::contextual_scores) is given a block
  // only when each row's visible keys are exactly [key_begin(r), key_end(r)); else its row hooks.
  int key_begin(int r) const { return first ? first[r] - key0 : 0; }
  int key_end(int r) const { return first ? std::max(first[r], last[r] + 1) - key0 : nk; }
};

// The lowest and highest age qpos[r] - kpos[t] of a block's pairs.
template <class S>
std::pair<int, int> block_age_range(const AttnBlock<S>& b) {
  const auto [q0, q1] = std::minmax_element(b.qpos, b.qpos + b.nq);
  const auto [k0, k1] = std::minmax_element(b.kpos, b.kpos + b.nk);
  return {*q0 - *k1, *q1 - *k0};
}

// The lowest and highest age qpos[r] - kpos[t] over each row's keys [key_begin(r), key_end(r)) ({0, -1}:
// none), every key a block hook reads for the row: for a causal block the ages are >= 0, where
// block_age_range's also count the masked keys after each row. When the span's positions ascend the
// ends of each row's keys bound it; otherwise (documents interleaved, positions reset per document)
// every key in between is counted too, masked or not.
template <class S>
std::pair<int, int> block_visible_age_range(const AttnBlock<S>& b) {
  int lo = INT_MAX, hi = INT_MIN;
  const bool ascend = std::is_sorted(b.kpos, b.kpos + b.nk);
  for (int r = 0; r < b.nq; ++r) {
    const int t0 = b.key_begin(r), t1 = b.key_end(r);
    if (t0 >= t1) continue;
    if (ascend) {
      lo = std::min(lo, b.qpos[r] - b.kpos[t1 - 1]), hi = std::max(hi, b.qpos[r] - b.kpos[t0]);
      continue;
    }
    for (int t = t0; t < t1; ++t) lo = std::min(lo, b.qpos[r] - b.kpos[t]), hi = std::max(hi, b.qpos[r] - b.kpos[t]);
  }
  return lo > hi ? std::pair{0, -1} : std::pair{lo, hi};
}

// <a, b> over n entries for the hooks: Eigen's vectorised reduction (a fixed order, so the same bits
// on every run and thread count; a plain loop cannot vectorise a reduction without fast-math).
template <class S>
inline S hook_dot(const S* a, const S* b, int n) {
  using V = Eigen::Matrix<S, Eigen::Dynamic, 1>;
  return Eigen::Map<const V>(a, n).dot(Eigen::Map<const V>(b, n));
}

// x[0] + ... + x[n-1] in a fixed order: eight running sums (lane j takes the entries i = j mod 8),
// added pairwise at the end. It vectorises without fast-math and gives the same bits on any
// alignment, thread count or x86-64 CPU.
template <class S>
S run_sum(const S* x, int n) {
  S lane[8] = {};
  int i = 0;
  for (; i + 8 <= n; i += 8)
    for (int j = 0; j < 8; ++j) lane[j] += x[i + j];
  for (int j = 0; i < n; ++i, ++j) lane[j] += x[i];
  return ((lane[0] + lane[4]) + (lane[1] + lane[5])) + ((lane[2] + lane[6]) + (lane[3] + lane[7]));
}

// The rows [first, end) of x ([rows, width], row-major) outside which every entry is 0 ({0, 0}: all
// of them): a table gradient's product can skip the rows no pair reached.
template <class S>
std::pair<int, int> nonzero_rows(const S* x, int rows, int width) {
  const auto zero = [&](int r) {
    return std::all_of(x + size_t(r) * width, x + size_t(r + 1) * width, [](S v) { return v == S(0); });
  };
  int first = 0, end = rows;
  while (first < end && zero(first)) ++first;
  if (first == end) return {0, 0};
  while (zero(end - 1)) --end;
  return {first, end};
}

// Positions pos[0], pos[0] + 1, ..., pos[0] + n - 1: a block's rows or keys whose per-pair indices
// are then arithmetic (a contiguous slice) instead of a lookup per pair.
inline bool consecutive(const int* pos, int n) {
  for (int i = 1; i < n; ++i)
    if (pos[i] != pos[0] + i) return false;
  return true;
}

// Runs of consecutive t < n with one class: f(t0, t1, u) for each maximal [t0, t1) with cls(t) = u.
// The keys of a row older than a relation clip form one run, so a hook walks them as one range.
template <class Cls, class F>
void class_runs(int n, Cls cls, F f) {
  for (int t = 0; t < n;) {
    const int u = cls(t);
    int e = t + 1;
    while (e < n && cls(e) == u) ++e;
    f(t, e, u);
    t = e;
  }
}

// acc += x[t0] + ... + x[t1 - 1], a run of one class: the entry itself, or run_sum's fixed order.
template <class S>
void add_run(const S* x, int t0, int t1, S& acc) {
  acc += t1 - t0 == 1 ? x[t0] : run_sum(x + t0, t1 - t0);
}
// acc[cls(t)] += x[t] for t < n, a run of one class summed first (run_sum) and added once: the many
// keys of a clipped relation class then cost a vector sum instead of a chain of dependent adds to
// one entry. The order is fixed by the classes alone.
template <class S, class Cls>
void add_by_class(const S* x, int n, Cls cls, S* acc) {
  class_runs(n, cls, [&](int t0, int t1, int u) { add_run(x, t0, t1, acc[u]); });
}

// A row's keys at consecutive positions k0, k0 + 1, ... (k0 + nk - 1) by x = key - query position qp,
// for a relation clipped at K (Shaw's and DeBERTa's): [0, a) with x <= -K, [a, c) with |x| < K (one
// relation per key), [c, nk) with x >= K.
struct ClippedSpans {
  int a, c;
};
inline ClippedSpans clipped_spans(int qp, int k0, int nk, int K) {
  const int a = std::clamp(qp - K - k0 + 1, 0, nk);
  return {a, std::clamp(qp + K - k0, a, nk)};
}

// class_runs for a clipped relation u = clamp(kpos[t] - qp, -K, K) + K (Shaw's), the same runs in
// the same order; when the keys' positions are consecutive (keys_run = consecutive(kpos, nk), decided
// once for a block's rows) they come from the positions alone, not from testing every key: [0, a) of
// class 0 (K or more older), one run per key of the classes between, [c, nk) of class 2K (K or more newer).
// Only the runs that meet the row's visible keys [lo, hi) (AttnBlock::key_begin/key_end; default: all):
// a run wholly outside holds masked pairs alone, whose scores are never read and whose probabilities
// and score gradients are 0, and the runs kept are whole, so a sum over them keeps its bits.
template <class F>
void clipped_runs(int qp, const int* kpos, int nk, bool keys_run, int K, F f, int lo = 0, int hi = INT_MAX) {
  hi = std::min(hi, nk);
  if (lo >= hi) return;
  if (!keys_run)
    return class_runs(
        nk, [&](int t) { return std::clamp(kpos[t] - qp, -K, K) + K; },
        [&](int t0, int t1, int u) {
          if (t1 > lo && t0 < hi) f(t0, t1, u);
        });
  const auto [a, c] = clipped_spans(qp, kpos[0], nk, K);
  if (a > lo) f(0, a, 0);
  for (int t = std::max(a, lo); t < std::min(c, hi); ++t) f(t, t + 1, kpos[t] - qp + K);
  if (c < hi) f(c, nk, 2 * K);
}

// A per-thread scratch buffer of n zeros for a hook (hooks run on many threads at once); slots
// 0..3 let one hook hold several at a time.
template <class S>
std::vector<S>* hook_slots() {
  thread_local std::vector<S> buf[4];
  return buf;
}
template <class S>
std::vector<S>& hook_scratch(int slot, size_t n) {
  std::vector<S>& b = hook_slots<S>()[slot];
  b.assign(n, S(0));
  return b;
}
// The same buffer of n entries left as they are: for a hook that writes every entry before reading
// it (a product's output), so the zeros would be wasted work.
template <class S>
std::vector<S>& hook_buffer(int slot, size_t n) {
  std::vector<S>& b = hook_slots<S>()[slot];
  b.resize(n);
  return b;
}

// Initialisers the schemes share, drawing from rng element by element in row-major order:
// N(0, std^2), and a linear layer's U(-1/sqrt(fan_in), 1/sqrt(fan_in)) (PyTorch's nn.Linear default).
template <class S>
void init_normal(MatMap<S> t, double std, Rng& rng) {
  for (Eigen::Index i = 0; i < t.size(); ++i) t.data()[i] = S(std * rng.normal());
}
template <class S>
void init_linear(MatMap<S> w, int fan_in, Rng& rng) {
  const double bound = 1.0 / std::sqrt(double(fan_in));
  for (Eigen::Index i = 0; i < w.size(); ++i) w.data()[i] = S(bound * (2.0 * rng.uniform() - 1.0));
}

// How position enters a head's scores, in the terms the readings of a trained head take
// (tasks/cue/geometry.h): a scheme of one of these shapes says which (Scheme::geometry), with the
// numbers the reading needs; any other scheme is Other and is not read that way.
struct PositionGeometry {
  enum class Kind {
    Other,
    Rotation,    // q and k planes rotated by position at frequencies from `base` (RoPE)
    AddedCode,   // the fixed sin/cos code of frequency base `base` added to the token embedding
    LinearBias,  // -slopes[h] * (query position - key position) added to the scores of head h (ALiBi)
  };
  Kind kind = Kind::Other;
  double base = 0;             // Rotation, AddedCode
  std::vector<double> slopes;  // LinearBias: one per head
};

template <class S>
class Scheme {
 public:
  // The settings are filled in here (declared defaults, context-dependent ones resolved), so a
  // scheme always reads complete settings however it was built.
  explicit Scheme(SchemeConfig cfg) : cfg_(std::move(cfg)) { fill_scheme_settings(cfg_); }
  virtual ~Scheme() = default;
  const SchemeConfig& config() const { return cfg_; }
  virtual std::string name() const = 0;

  // Parameters: declared into the model's layout (names prefixed "pos."), initialised from rng.
  virtual void declare(ParamLayout& layout) {}
  virtual void init(ParamView<S> params, Rng& rng) const {}

  // Largest position the scheme can represent, or -1 when every position is defined.
  virtual int max_position() const { return -1; }
  bool can_read(int position) const { return max_position() < 0 || position <= max_position(); }

  // Where it acts.
  virtual bool acts_on_embedding() const { return false; }
  virtual bool acts_on_qk() const { return false; }
  virtual bool acts_on_scores() const { return false; }
  virtual bool acts_on_values() const { return false; }
  // Whether a key's score term reads the other visible keys of its row (CoPE's count of the keys between):
  // a score then cannot be made once per key and looked up (ScoreLookup, models/attention.h).
  virtual bool contextual_scores() const { return false; }
  // The shape of its position term, for reading a trained head (PositionGeometry; default: Other).
  virtual PositionGeometry geometry() const { return {}; }
  // Whether the scores read positions only through offsets m - n (a relative scheme): shifting every
  // position by c leaves the logits as they were (`pe-bench doctor`'s shift invariant). A scheme that
  // adds an absolute code or reads an absolute table does not (its drift is measured, not a failure).
  virtual bool offsets_only() const { return !acts_on_embedding(); }
  // One line: what it does with a key after the query (bidirectional and prefix visibility; its encoder
  // form, docs/schemes.md), for `pe-bench schemes`.
  virtual std::string later_keys() const { return "unchanged: its position term does not depend on the mask"; }

  // Visibility of a layer: keys older than this many positions are hidden (0: no window). A window
  // is visibility, never a bias; the model combines it with the caller's band.
  virtual int window(int layer) const { return 0; }

  // Embedding state. out: [n, d_model]; out[i] += p(pos[i]).
  virtual void embed_forward(CParamView<S> P, const int* pos, int n, S* out) const {}
  // dout: [n, d_model]; adds dL/dp into the scheme's gradients.
  virtual void embed_backward(CParamView<S> P, ParamView<S> G, const int* pos, int n, const S* dout) const {}

  // Q/K transform of one layer, in place. x: [n, n_heads * d_head], row i at position pos[i]. Call
  // prepare() with the largest position first (it fills caches; not thread-safe, the transforms are).
  virtual void prepare(int max_pos) {}
  // Positions lo..hi only (a scheme may prepare more; the default prepares 0..hi).
  virtual void prepare_range(int lo, int hi) { prepare(hi); }
  // side: whether x holds queries or keys (a scheme may treat them differently: xPos scales a query
  // up and a key down by its position; RoPE turns both alike).
  virtual void qk_forward(int layer, Qk side, const int* pos, int n, S* x) const {}
  // dx: [n, n_heads * d_head], in place: dL/d(input) from dL/d(output).
  virtual void qk_backward(int layer, Qk side, const int* pos, int n, S* dx) const {}
  void qk_forward(Qk side, const int* pos, int n, S* x) const { qk_forward(0, side, pos, n, x); }
  void qk_backward(Qk side, const int* pos, int n, S* dx) const { qk_backward(0, side, pos, n, dx); }
  // Multiplier on the content score q.k/sqrt(d) (1 except for maps such as YaRN and for schemes
  // whose score is a sum of several terms).
  virtual S content_scale(int layer) const { return S(1); }
  S content_scale() const { return content_scale(0); }

  // Context-extension maps: a scheme that reads its angles from a FrequencyPlan builds the plan of
  // a map for a (training length, read length) pair and accepts it at read time.
  virtual bool accepts_frequency_plan() const { return false; }
  // pass_len: the length of the pass the plan is for (0: read_len; only length-dependent maps differ).
  // `map` is parsed where it entered (parse_map): a map travels as a value, never as text.
  virtual FrequencyPlan plan_for(const MapSpec& map, int train_len, int read_len, int pass_len = 0) const {
    throw UsageError(name() + " has no frequencies to rescale");
  }
  virtual void set_frequency_plan(FrequencyPlan plan) { throw UsageError(name() + " has no frequencies to rescale"); }
  // The plan each layer reads with now (a layer without frequencies: an empty theta); empty for a
  // scheme without frequencies. What keys made now were turned under (a decoder's cache remembers it).
  virtual std::vector<FrequencyPlan> frequency_plans() const { return {}; }
  // One reading's plan, passed with the reading: the plan of `map` for train_len -> read_len (the
  // identity map: the trained frequencies), set before every reading so that no reading inherits
  // another's. A scheme without frequencies reads only with the identity map.
  void read_with(const MapSpec& map, int train_len, int read_len, int pass_len = 0) {
    if (!reads_map(map)) throw UsageError(name() + " has no frequencies to rescale");
    if (map.scales_by_length() && train_len < 2)
      throw UsageError(
          fmt::format("{} scales logits by ln n / ln L and needs a training length L of at least 2 (got {})",
                      map.written, train_len));
    length_scaling_ = map.scales_by_length() ? train_len : 0;
    log_length_ = length_scaling_ ? math::log(double(length_scaling_)) : 0.0;
    if (accepts_frequency_plan()) set_frequency_plan(plan_for(map, train_len, read_len, pass_len));
  }
  // Whether the scheme reads with `map`: the identity map and log-length scaling always, the others
  // when it reads its angles from a plan.
  bool reads_map(const MapSpec& map) const { return map_is_read(map, accepts_frequency_plan()); }
  // Log-length scaling (the map logn, set by read_with): every logit of a query that sees n keys,
  // content and scheme terms alike, is multiplied by this before the softmax, max(1, ln n / ln L) with
  // L the training length; 1 when the reading has none. Every attention path asks it per query row.
  S length_scale(int n_visible) const {
    if (length_scaling_ == 0 || n_visible <= length_scaling_) return S(1);
    return S(math::log(double(n_visible)) / log_length_);
  }
  int length_scaling() const { return length_scaling_; }  // L, or 0: none

  // Derived tables of one layer, computed once per forward call from the parameters (e.g. a
  // projected position code), for position differences below span in magnitude. The model keeps them (and their
  // gradient) in its workspace and passes them to the score and value hooks as AttnRow::tables.
  virtual size_t tables_size(int layer, int span) const { return 0; }
  virtual void tables_forward(CParamView<S> P, int layer, int span, S* tables) const {}
  // tables: as tables_forward wrote them; dtables: their gradient, accumulated by the score and value
  // hooks; adds into G.
  virtual void tables_backward(CParamView<S> P, ParamView<S> G, int layer, int span, const S* tables,
                               const S* dtables) const {}

  // Score hook. scores: [nk], the scaled content scores of one query row; adds the scheme's terms
  // for the visible keys. Called only when acts_on_scores().
  virtual void score_forward(CParamView<S> P, const AttnRow<S>& r, S* scores) const {}
  // dscores: [nk], dL/d(score). Adds into the scheme's gradients G, into dtables, and (for terms
  // that read the vectors) into dq: [dh] and dkeys(t): [dh].
  virtual void score_backward(CParamView<S> P, ParamView<S> G, const AttnRow<S>& r, const S* dscores, S* dq,
                              const KeyRows<S>& dkeys, S* dtables) const {}

  // Block score hooks (AttnBlock): a scheme that has them gets its score terms asked for a block of
  // query rows at once in the dense path (the row hooks above still serve the row path). scores:
  // [nq, nk] (row stride nk), the scaled content scores of the block; adds the scheme's terms to
  // every entry, masked pairs included (the caller reads only the visible ones).
  virtual bool block_scores(int layer) const { return false; }
  virtual void score_block_forward(CParamView<S> P, const AttnBlock<S>& b, S* scores) const {}
  // ds: [nq, nk], dL/d(score), zero at masked pairs. Adds into G, dtables, dq (row r: dq + r * ld)
  // and dk (key t: dk + t * ld).
  virtual void score_block_backward(CParamView<S> P, ParamView<S> G, const AttnBlock<S>& b, const S* ds, S* dq, S* dk,
                                    S* dtables) const {}
  // What the dense path calls to undo the block's terms: score_block_backward, unless the scheme's terms
  // read the block's content scores themselves (CoPE's gates), when it may instead add their share of
  // dL/d(content score) into ds (in place, zero at masked pairs), which the path then carries to q and k
  // with its own products rather than the hook with two more. The same gradients either way, to rounding.
  virtual void score_block_backward_in_place(CParamView<S> P, ParamView<S> G, const AttnBlock<S>& b, S* ds, S* dq,
                                             S* dk, S* dtables) const {
    score_block_backward(P, G, b, ds, dq, dk, dtables);
  }

  // Block value hooks, likewise: p: [nq, nk] at row stride ldp (zero at masked pairs); out: row r at
  // out + r * b.ld; adds the scheme's value term to every row of the block.
  virtual bool block_values(int layer) const { return false; }
  virtual void value_block_forward(CParamView<S> P, const AttnBlock<S>& b, const S* p, size_t ldp, S* out) const {}
  // dout: row r at dout + r * b.ld; dp: [nq, nk] (row stride nk); adds dL/dp into dp and into G.
  virtual void value_block_backward(CParamView<S> P, ParamView<S> G, const AttnBlock<S>& b, const S* p, size_t ldp,
                                    const S* dout, S* dp) const {}

  // Value hook, after the softmax. p: [nk], the probabilities of the visible keys; out: [dh], the
  // head's output row; adds the scheme's term. Called only when acts_on_values().
  virtual void value_forward(CParamView<S> P, const AttnRow<S>& r, const S* p, S* out) const {}
  // dout: [dh]; adds dL/dp into dp: [nk] and into G.
  virtual void value_backward(CParamView<S> P, ParamView<S> G, const AttnRow<S>& r, const S* p, const S* dout,
                              S* dp) const {}

 protected:
  SchemeConfig cfg_;

 private:
  int length_scaling_ = 0;  // read_with: L of log-length scaling, 0 when the reading has none
  double log_length_ = 0;   // ln L, once per reading
};

// The registry: names, one-line descriptions, and construction in float or double.
struct SchemeInfo {
  std::string name, description;
  std::vector<KeySpec> keys;  // its own settings (SchemeConfig::settings)
  int min_layers = 1;         // a per-layer hybrid needs a model with several layers
  // Resolves settings that depend on the model's context (e.g. learned_rows 0 -> the training
  // length) once the defaults are in; what it leaves is what checkpoints record. May be null.
  void (*complete)(SchemeConfig&) = nullptr;
  // The scheme gives attention no position at all (the causal mask is the only source of order):
  // tables put the exact best reader without positions beside it.
  bool positionless = false;
  // The settings the gradient checks give a model of n_layers layers when the declared defaults do
  // not fit it (a hybrid names one entry per layer). May be null: the defaults.
  nlohmann::json (*check_settings)(int n_layers) = nullptr;
};

// Fills cfg.settings with the declared defaults of cfg.name's keys that are missing and resolves
// the context-dependent ones (SchemeInfo::complete); throws ConfigError for a key the scheme does
// not declare, UsageError for an unknown scheme. Idempotent.
void fill_scheme_settings(SchemeConfig& cfg);

// Settings several schemes declare (one spelling, one default).
inline KeySpec base_key() {
  return {"base", KeyType::Float, 10000.0, "sinusoidal, rope, txl, xpos: frequency base of the position code",
          1,      1e12,           true};
}
inline KeySpec learned_rows_key() {
  return {"learned_rows", KeyType::Int, 0, "learned, tupe: rows of the position table (0: the training length)", 0,
          65536};
}
// learned_rows 0 means the training length; a table must cover it.
inline void complete_learned_rows(SchemeConfig& c) {
  int rows = c.settings.at("learned_rows").get<int>();
  if (rows == 0) rows = c.train_length;
  if (rows < 1) throw ConfigError("learned_rows must be positive, or 0 for the training length");
  if (c.train_length > 0 && rows < c.train_length)
    throw ConfigError(
        fmt::format("learned_rows is {} but train_length is {}: the table needs a row for every "
                    "training position (give at least {}, or 0 for the training length)",
                    rows, c.train_length, c.train_length));
  c.settings["learned_rows"] = rows;
}
const std::vector<SchemeInfo>& scheme_list();
bool scheme_exists(const std::string& name);
// Throws UsageError listing the known schemes when the name is unknown.
template <class S>
std::unique_ptr<Scheme<S>> make_scheme(const SchemeConfig& cfg);
const SchemeInfo& scheme_info(const std::string& name);  // throws UsageError when unknown
// Every key any scheme declares (the experiment key table lists them).
std::vector<KeySpec> scheme_keys();

// ALiBi slopes for H heads by the reference rule (schemes.md).
std::vector<double> alibi_reference_slopes(int n_heads);

}  // namespace pe
