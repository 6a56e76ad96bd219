// Coordinates as data (models/attention.h Coordinates, models/coordinate_cases.h): the invariants that
// define a batch model, for every scheme, at the attention layer with the scheme's Q/K transform,
// score and value terms and derived tables, in double (docs/architecture.md, "The batch model"):
//   - the dense path agrees with the reference row path under every mode;
//   - a packed batch with isolation gives each document the outputs it gets alone (positions reset
//     per document), or alone at its offset (positions global);
//   - a padded batch gives its content rows the outputs of the unpadded sequence under the matching
//     position convention, and its PAD rows exactly 0;
//   - under causal visibility no output row changes when a later key changes; under bidirectional
//     visibility it does; under a prefix, a row inside the prefix sees the prefix's later keys;
//   - a decode step at the cache position equals the full forward's row there.
// Tolerance: |a - b| <= 1e-12 max |b| (rounding of sums taken over other spans in the dense path);
// the row path, where both sides sum the same keys in the same order, is asserted bit for bit.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "core/errors.h"
#include "core/params.h"
#include "core/rng.h"
#include "models/attention.h"
#include "models/block_stack.h"
#include "models/coordinate_cases.h"

using namespace pe;

// A named namespace: the sanitizer build compiles the tests as unity files (tests/sanitizers.sh), where
// every file's anonymous namespace is one, and helper names such as Run would collide.
namespace coordinates_test {

namespace {

constexpr int kH = 2, kDh = 4, kW = kH * kDh, kSpan = 40;

// One attention layer of a scheme (layer 0, random parameters), read under any coordinates.
struct Layer {
  std::unique_ptr<Scheme<double>> scheme;
  ParamLayout layout;
  std::vector<double> params;
  Layer(const std::string& name, bool bidirectional) {
    SchemeConfig c;
    c.name = name, c.d_model = kW, c.n_heads = kH, c.d_head = kDh;
    c.n_layers = scheme_info(name).min_layers, c.train_length = 32, c.bidirectional = bidirectional;
    scheme = make_scheme<double>(c);
    scheme->declare(layout);
    params.resize(layout.total());
    Rng rng(23);
    for (auto& x : params) x = 0.5 * rng.normal();
    scheme->prepare(2 * kSpan);
  }
  // out: [B*Tq, W] for inputs Q [B*Tq, W], K, V [B*Tk, W] (before the Q/K transform).
  std::vector<double> forward(const AttnShape& sh, const Coordinates& at, std::vector<double> Q, std::vector<double> K,
                              const std::vector<double>& V, AttnPath path = AttnPath::automatic) const {
    std::vector<int> qrow, krow;
    for (int b = 0; b < sh.B; ++b) {
      qrow.insert(qrow.end(), at.q_of(b, sh.Tq), at.q_of(b, sh.Tq) + sh.Tq);
      krow.insert(krow.end(), at.k_of(b, sh.Tk), at.k_of(b, sh.Tk) + sh.Tk);
    }
    if (scheme->acts_on_qk()) {
      scheme->qk_forward(0, Qk::Query, qrow.data(), sh.B * sh.Tq, Q.data());
      scheme->qk_forward(0, Qk::Key, krow.data(), sh.B * sh.Tk, K.data());
    }
    const CParamView<double> P{params.data(), &layout};
    std::vector<double> tables(scheme->tables_size(0, kSpan)), out(Q.size());
    if (!tables.empty()) scheme->tables_forward(P, 0, kSpan, tables.data());
    attention_forward(sh, Q.data(), K.data(), V.data(), at, *scheme, P, static_cast<double*>(nullptr), out.data(),
                      nullptr, AttnTables<double>{tables.data(), nullptr, kSpan}, {}, path);
    return out;
  }
};

std::vector<double> draw(size_t n, Rng& rng) {
  std::vector<double> v(n);
  for (auto& x : v) x = rng.normal();
  return v;
}
// Random queries [query_rows, W], keys and values [key_rows, W] (before the Q/K transform).
struct Qkv {
  std::vector<double> Q, K, V;
};
Qkv draw_qkv(int query_rows, int key_rows, Rng& rng) {
  Qkv x;
  x.Q = draw(size_t(query_rows) * kW, rng), x.K = draw(size_t(key_rows) * kW, rng);
  x.V = draw(size_t(key_rows) * kW, rng);
  return x;
}
// Rows `rows` of a [rows, W] array, in that order.
std::vector<double> pick(const std::vector<double>& x, const std::vector<int>& rows) {
  std::vector<double> out;
  for (int r : rows) out.insert(out.end(), x.begin() + size_t(r) * kW, x.begin() + size_t(r + 1) * kW);
  return out;
}
// Rows [r0, r0 + n) of a [rows, W] array.
std::vector<double> rows_of(const std::vector<double>& x, int r0, int n) {
  return {x.begin() + size_t(r0) * kW, x.begin() + size_t(r0 + n) * kW};
}
double max_abs(const std::vector<double>& x) {
  double m = 0;
  for (double v : x) m = std::max(m, std::abs(v));
  return m;
}
// max |a - b| <= 1e-12 max |b|
bool close(const std::vector<double>& a, const std::vector<double>& b) {
  double d = 0;
  for (size_t i = 0; i < a.size(); ++i) d = std::max(d, std::abs(a[i] - b[i]));
  return a.size() == b.size() && d <= 1e-12 * std::max(1.0, max_abs(b));
}

// The runs of equal documents of one sequence's rows: {first row, rows, document}.
struct Run {
  int r0, n, doc;
};
std::vector<Run> documents(const int* seg, int T) {
  std::vector<Run> runs;
  for (int t = 0; t < T;) {
    int e = t;
    while (e < T && seg[e] == seg[t]) ++e;
    runs.push_back({t, e - t, seg[t]});
    t = e;
  }
  return runs;
}

CoordinateCase find_case(const std::string& mode) {
  for (const CoordinateCase& c : coordinate_cases(3))
    if (c.mode == mode) return c;
  FAIL("no coordinate case " << mode);
  return {};
}

}  // namespace

TEST_CASE("every scheme under every batch mode: the dense path agrees with the row path") {
  for (const SchemeInfo& info : scheme_list())
    for (const CoordinateCase& c : coordinate_cases(3)) {
      CAPTURE(info.name);
      CAPTURE(c.mode);
      const Layer layer(info.name, c.vis.sees_later());
      Rng rng(5);
      const AttnShape sh{c.B, c.Tq, c.Tk, kH, kDh};
      const auto [Q, K, V] = draw_qkv(c.B * c.Tq, c.B * c.Tk, rng);
      const auto rows = layer.forward(sh, c.coordinates(), Q, K, V, AttnPath::rows);
      const auto dense = layer.forward(sh, c.coordinates(), Q, K, V, AttnPath::dense);
      CHECK(close(dense, rows));
    }
}

TEST_CASE("a packed batch with isolation gives each document what it gets alone") {
  for (const std::string mode : {"packed-reset", "packed-global"})
    for (const SchemeInfo& info : scheme_list())
      for (AttnPath path : {AttnPath::rows, AttnPath::dense}) {
        CAPTURE(info.name);
        CAPTURE(mode);
        const CoordinateCase c = find_case(mode);
        const Layer layer(info.name, false);
        Rng rng(8);
        const int T = c.Tq;
        const auto [Q, K, V] = draw_qkv(c.B * T, c.B * T, rng);
        const auto packed = layer.forward({c.B, T, T, kH, kDh}, c.coordinates(), Q, K, V, path);
        for (int b = 0; b < c.B; ++b)
          for (const Run& d : documents(c.qseg.data() + size_t(b) * T, T)) {
            // the document alone: its rows, at the positions it had in the pack (reset: from p0 again;
            // global: at its offset)
            const int r0 = b * T + d.r0;
            const std::vector<int> pos(c.qpos.begin() + r0, c.qpos.begin() + r0 + d.n);
            const auto alone = layer.forward({1, d.n, d.n, kH, kDh}, Coordinates{pos.data(), pos.data(), c.vis},
                                             rows_of(Q, r0, d.n), rows_of(K, r0, d.n), rows_of(V, r0, d.n), path);
            if (path == AttnPath::rows)
              CHECK(rows_of(packed, r0, d.n) == alone);
            else
              CHECK(close(rows_of(packed, r0, d.n), alone));
          }
      }
}

TEST_CASE("a padded batch gives its content rows the unpadded outputs, and its PAD rows 0") {
  for (const std::string mode : {"pad-left-content", "pad-left-storage", "pad-right-content", "pad-right-storage"})
    for (const SchemeInfo& info : scheme_list()) {
      CAPTURE(info.name);
      CAPTURE(mode);
      const CoordinateCase c = find_case(mode);
      const Layer layer(info.name, false);
      Rng rng(9);
      const int T = c.Tq;
      const auto [Q, K, V] = draw_qkv(c.B * T, c.B * T, rng);
      const auto padded = layer.forward({c.B, T, T, kH, kDh}, c.coordinates(), Q, K, V);
      for (const Run& d : documents(c.qseg.data(), T)) {  // sequence 0 holds the padding
        if (d.doc < 0) {
          CHECK(max_abs(rows_of(padded, d.r0, d.n)) == 0.0);
          continue;
        }
        // the content alone, at the positions the convention gave it
        const std::vector<int> pos(c.qpos.begin() + d.r0, c.qpos.begin() + d.r0 + d.n);
        const auto alone = layer.forward({1, d.n, d.n, kH, kDh}, Coordinates{pos.data(), pos.data(), c.vis},
                                         rows_of(Q, d.r0, d.n), rows_of(K, d.r0, d.n), rows_of(V, d.r0, d.n));
        CHECK(close(rows_of(padded, d.r0, d.n), alone));
      }
    }
}

TEST_CASE("causal rows ignore later keys; bidirectional rows and a prefix's rows see them") {
  const int T = 9;
  std::vector<int> pos(T);
  for (int t = 0; t < T; ++t) pos[t] = 3 + t;
  const int prefix_end = 3 + 4;  // positions below 7 (rows 0..3) are the prefix
  for (const SchemeInfo& info : scheme_list())
    for (const Visibility vis : {Visibility{}, Visibility::bidirectional(), Visibility::prefix_lm(prefix_end)}) {
      CAPTURE(info.name);
      CAPTURE(vis.causal);
      CAPTURE(vis.prefix);
      const Layer layer(info.name, vis.sees_later());
      Rng rng(10);
      const auto [Q, K, V] = draw_qkv(T, T, rng);
      const AttnShape sh{1, T, T, kH, kDh};
      const Coordinates at{pos.data(), pos.data(), vis};
      const auto base = layer.forward(sh, at, Q, K, V);
      // change key and value row `later`; every row before it is compared
      for (int later = 1; later < T; ++later) {
        auto K2 = K, V2 = V;
        for (int c = 0; c < kW; ++c) K2[size_t(later) * kW + c] += 1.0, V2[size_t(later) * kW + c] -= 1.0;
        const auto moved = layer.forward(sh, at, Q, K2, V2);
        for (int t = 0; t < later; ++t) {
          const bool sees = !vis.causal || pos[later] < vis.prefix;
          CAPTURE(t);
          CAPTURE(later);
          CHECK((rows_of(moved, t, 1) != rows_of(base, t, 1)) == sees);
        }
      }
    }
}

TEST_CASE("a decode step at the cache position equals the full forward's row") {
  const int T = 12, p0 = 4;
  std::vector<int> pos(T);
  for (int t = 0; t < T; ++t) pos[t] = p0 + t;
  for (const SchemeInfo& info : scheme_list()) {
    CAPTURE(info.name);
    const Layer layer(info.name, false);
    Rng rng(11);
    const auto [Q, K, V] = draw_qkv(T, T, rng);
    const auto full = layer.forward({1, T, T, kH, kDh}, Coordinates{pos.data(), pos.data(), Visibility{}}, Q, K, V);
    for (int t = 0; t < T; ++t) {
      // one query at position p0 + t over the t + 1 keys cached so far
      const auto step = layer.forward({1, 1, t + 1, kH, kDh}, Coordinates{&pos[t], pos.data(), Visibility{}},
                                      rows_of(Q, t, 1), rows_of(K, 0, t + 1), rows_of(V, 0, t + 1));
      CAPTURE(t);
      CHECK(close(step, rows_of(full, t, 1)));
    }
  }
}

TEST_CASE("sequences with the same coordinates share a visible set; a PAD query sees nothing") {
  const CoordinateCase c = find_case("pad-left-content");
  const Coordinates at = c.coordinates();
  // sequence 0: three PAD rows see no key; its first content row sees only itself
  Layer layer("none", false);
  Rng rng(12);
  const int T = c.Tq;
  const auto [Q, K, V] = draw_qkv(c.B * T, c.B * T, rng);
  const auto out = layer.forward({c.B, T, T, kH, kDh}, at, Q, K, V, AttnPath::rows);
  CHECK(max_abs(rows_of(out, 0, 3)) == 0.0);
  // content row 3 sees only key 3: its output is V's row 3
  CHECK(rows_of(out, 3, 1) == rows_of(V, 3, 1));
}

// ---- The same invariants through the block stack (embedding, two blocks, tied output): per-token
// coordinates (TokenCoordinates) reach the embedding schemes, the Q/K transform and every block.

namespace {

struct Stack {
  std::unique_ptr<BlockStack<double>> model;
  Stack(const std::string& scheme, bool bidirectional) {
    BlockStackConfig cfg;
    cfg.vocab = 7, cfg.d_model = 8, cfg.n_heads = 2, cfg.n_layers = 2, cfg.embed_init_std = 0.5;
    cfg.scheme.name = scheme, cfg.scheme.train_length = 16, cfg.scheme.bidirectional = bidirectional;
    model = std::make_unique<BlockStack<double>>(cfg);
    model->init(4);
    model->prepare(16);
  }
  // logits [B*T, V] and the mean loss
  std::vector<double> logits(const std::vector<int>& x, const std::vector<int>& y, int B, int T,
                             const TokenCoordinates* at, const Visibility& vis = Visibility{},
                             double* loss = nullptr) const {
    BlockStackCache<double> c;
    const double l = model->forward(x.data(), y.data(), B, T, c, 0, vis, nullptr, at);
    if (loss) *loss = l;
    return c.logits;
  }
};

// Rows [r0, r0 + n) of a [rows, 7] logits array.
std::vector<double> logit_rows(const std::vector<double>& x, int r0, int n) {
  return {x.begin() + size_t(r0) * 7, x.begin() + size_t(r0 + n) * 7};
}

}  // namespace

TEST_CASE("the block stack: packed documents and padded rows give what they give alone, for every scheme") {
  for (const std::string mode : {"packed-reset", "packed-global", "pad-left-content", "pad-left-storage",
                                 "pad-right-content", "pad-right-storage"})
    for (const SchemeInfo& info : scheme_list()) {
      CAPTURE(info.name);
      CAPTURE(mode);
      const CoordinateCase c = find_case(mode);
      const Stack stack(info.name, false);
      Rng rng(13);
      const int T = c.Tq;
      std::vector<int> x(size_t(c.B) * T), y(x.size());
      for (auto& v : x) v = rng.below(7);
      for (auto& v : y) v = rng.below(7);
      const TokenCoordinates at{c.qpos.data(), c.qseg.data()};
      const auto packed = stack.logits(x, y, c.B, T, &at);
      for (int b = 0; b < c.B; ++b)
        for (const Run& d : documents(c.qseg.data() + size_t(b) * T, T)) {
          if (d.doc < 0) continue;  // a PAD row's logits are read by nothing
          const int r0 = b * T + d.r0;
          const std::vector<int> pos(c.qpos.begin() + r0, c.qpos.begin() + r0 + d.n);
          const std::vector<int> xa(x.begin() + r0, x.begin() + r0 + d.n), ya(y.begin() + r0, y.begin() + r0 + d.n);
          const TokenCoordinates alone_at{pos.data(), nullptr};
          const auto alone = stack.logits(xa, ya, 1, d.n, &alone_at);
          CHECK(close(logit_rows(packed, r0, d.n), alone));
        }
    }
}

TEST_CASE("the block stack: PAD rows are not scored; the loss is the content's") {
  const CoordinateCase c = find_case("pad-left-content");
  for (const SchemeInfo& info : scheme_list()) {
    CAPTURE(info.name);
    const Stack stack(info.name, false);
    const int T = c.Tq;
    std::vector<int> x(size_t(c.B) * T, 1), y(x.size(), 2);
    const TokenCoordinates at{c.qpos.data(), c.qseg.data()};
    double padded = 0, content = 0;
    stack.logits(x, y, c.B, T, &at, Visibility{}, &padded);
    // the same content without its PAD rows: sequence 0's six content tokens, sequence 1 whole
    std::vector<int> p0(c.qpos.begin() + 3, c.qpos.begin() + 9);
    const TokenCoordinates a0{p0.data(), nullptr};
    const TokenCoordinates a1{c.qpos.data() + T, nullptr};
    double l0 = 0, l1 = 0;
    stack.logits(std::vector<int>(6, 1), std::vector<int>(6, 2), 1, 6, &a0, Visibility{}, &l0);
    stack.logits(std::vector<int>(T, 1), std::vector<int>(T, 2), 1, T, &a1, Visibility{}, &l1);
    content = (6 * l0 + T * l1) / (6 + T);
    CHECK(padded == doctest::Approx(content).epsilon(1e-12));
  }
}

TEST_CASE("the block stack: a causal model ignores later tokens, a bidirectional one does not") {
  const int T = 8;
  std::vector<int> pos(T);
  for (int t = 0; t < T; ++t) pos[t] = 2 + t;
  const TokenCoordinates at{pos.data(), nullptr};
  for (const SchemeInfo& info : scheme_list())
    for (const Visibility vis : {Visibility{}, Visibility::bidirectional()}) {
      CAPTURE(info.name);
      CAPTURE(vis.causal);
      const Stack stack(info.name, vis.sees_later());
      std::vector<int> x = {1, 2, 3, 4, 5, 6, 0, 1}, y(T, 0);
      const auto base = stack.logits(x, y, 1, T, &at, vis);
      x[5] = (x[5] + 3) % 7;  // a later token changes
      const auto moved = stack.logits(x, y, 1, T, &at, vis);
      for (int t = 0; t < 5; ++t) {
        CAPTURE(t);
        CHECK((logit_rows(moved, t, 1) != logit_rows(base, t, 1)) == !vis.causal);
      }
    }
}

TEST_CASE("the block stack refuses what it cannot honour, in one line") {
  const Stack causal("learned", false);
  std::vector<int> x(4, 1), y(4, 2), pos = {0, 1, 2, 40};
  const TokenCoordinates past{pos.data(), nullptr};
  // a position past the learned table is an error naming it, never a clamp
  CHECK_THROWS_WITH_AS(causal.logits(x, y, 1, 4, &past), doctest::Contains("position 40 of sequence 0, token 3"),
                       Error);
  CHECK_THROWS_WITH_AS(causal.logits(x, y, 1, 4, &past), doctest::Contains("16 rows"), Error);
  // a causal model read with later keys visible, and the other way round
  CHECK_THROWS_AS(causal.logits(x, y, 1, 4, nullptr, Visibility::bidirectional()), UsageError);
  const Stack encoder("alibi", true);
  CHECK_THROWS_AS(encoder.logits(x, y, 1, 4, nullptr, Visibility{}), UsageError);
  CHECK_NOTHROW(encoder.logits(x, y, 1, 4, nullptr, Visibility::prefix_lm(2)));
}

TEST_CASE("interleaved documents far apart: every path reads only inside its tables, and dense equals rows") {
  // documents alternate token by token; document 1 sits 20 positions after document 0, so a row's keys
  // between its first and last visible one include the other document's, at ages outside the visible
  // ones (a block hook reads them, masked, and must not index its age tables outside their range)
  CoordinateCase c;
  c.B = 1, c.Tq = c.Tk = 10, c.vis = Visibility{};
  for (int i = 0; i < 10; ++i) {
    c.qseg.push_back(i % 2);
    c.qpos.push_back(i % 2 ? 20 + i / 2 : i / 2);
  }
  c.kpos = c.qpos, c.kseg = c.qseg;
  for (const SchemeInfo& info : scheme_list()) {
    CAPTURE(info.name);
    const Layer layer(info.name, false);
    Rng rng(14);
    const AttnShape sh{1, 10, 10, kH, kDh};
    const auto [Q, K, V] = draw_qkv(10, 10, rng);
    const auto rows = layer.forward(sh, c.coordinates(), Q, K, V, AttnPath::rows);
    const auto dense = layer.forward(sh, c.coordinates(), Q, K, V, AttnPath::dense);
    CHECK(close(dense, rows));
    // each document alone
    for (int d = 0; d < 2; ++d) {
      std::vector<int> pos, rowsd;
      for (int i = d; i < 10; i += 2) pos.push_back(c.qpos[i]), rowsd.push_back(i);
      const auto alone = layer.forward({1, 5, 5, kH, kDh}, Coordinates{pos.data(), pos.data(), Visibility{}},
                                       pick(Q, rowsd), pick(K, rowsd), pick(V, rowsd));
      CHECK(close(pick(rows, rowsd), alone));
    }
  }
}

}  // namespace coordinates_test
