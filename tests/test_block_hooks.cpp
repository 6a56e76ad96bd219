// The block hooks of the dense attention path (Scheme::score_block_*, value_block_*) against the row
// hooks of the row path, the fixed-order sums they use, and the derived tables a training step makes
// once (per thread for the block stack, once for all chunks of a step for the cue head).
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>

#include "core/params.h"
#include "core/rng.h"
#include "models/attention.h"
#include "models/block_stack.h"
#include "models/cue_head.h"
#include "tasks/cue/data.h"

#include "attention_pass.h"

using namespace pe;

namespace {

using test::rel_diff;
using PathRun = test::AttentionPass;

// One attention layer in double, through the dense path (row_path false) or, with an identity
// kv_index, the row path; positions p0 .. p0 + T - 1, T = 70, derived tables for span T.
PathRun run_path(const SchemeConfig& c, int p0, bool row_path, const Visibility& vis) {
  auto scheme = make_scheme<double>(c);
  return test::attention_pass(*scheme, 70, p0, vis, 7, AttnPath::automatic, row_path);
}

}  // namespace

TEST_CASE("block hooks: the dense path with a scheme's block hooks gives what its row hooks give") {
  struct Case {
    const char* scheme;
    const char* setting;
  };
  int checked = 0;
  for (const Case k :
       {Case{"t5", ""}, Case{"tupe", ""}, Case{"tupe", "tupe_relative"}, Case{"shaw", ""}, Case{"txl", ""},
        Case{"deberta", ""}, Case{"kerple", ""}, Case{"kerple", "kerple_kernel=power"}, Case{"alibi-learned", ""},
        Case{"fire", ""}, Case{"cope", ""}, Case{"shaw", "shaw_per_head"}, Case{"deberta", "deberta_log_buckets"}}) {
    SchemeConfig c;
    c.name = k.scheme;
    c.n_heads = 2, c.d_head = 8, c.d_model = 16, c.n_layers = 1, c.train_length = 80;
    // "key" sets a flag, "key=value" a word
    const std::string setting = k.setting;
    const size_t eq = setting.find('=');
    if (eq != std::string::npos)
      c.settings[setting.substr(0, eq)] = setting.substr(eq + 1);
    else if (!setting.empty())
      c.settings[setting] = true;
    REQUIRE(make_scheme<double>(c)->block_scores(0));
    // p0 = 0: every position inside tupe's pair table (span T); p0 = 6: the last rows outside it
    for (int p0 : {0, 6})
      for (const Visibility vis : {Visibility{}, Visibility{true, 20}}) {
        const PathRun dense = run_path(c, p0, false, vis), rows = run_path(c, p0, true, vis);
        INFO(k.scheme, " ", k.setting, " p0 ", p0, " window ", vis.window);
        CHECK(rel_diff(dense.out, rows.out) < 1e-12);
        CHECK(rel_diff(dense.dQ, rows.dQ) < 1e-12);
        CHECK(rel_diff(dense.dK, rows.dK) < 1e-12);
        CHECK(rel_diff(dense.dV, rows.dV) < 1e-12);
        CHECK(rel_diff(dense.grad, rows.grad) < 1e-12);
        ++checked;
      }
  }
  CHECK(checked == 52);  // 13 cases x 2 starts x 2 visibilities
}

TEST_CASE("run_sum and add_by_class: fixed-order sums, the same bits wherever the data sits") {
  Rng rng(3);
  std::vector<float> x(203);
  for (auto& v : x) v = float(rng.normal());
  for (int n : {0, 1, 7, 8, 9, 64, 203}) {
    double exact = 0;
    for (int i = 0; i < n; ++i) exact += x[i];
    const float s = run_sum(x.data(), n);
    CHECK(std::abs(double(s) - exact) < 1e-5 * std::max(1.0, std::abs(exact)) * 10);
    // the same values at every alignment give the same bits
    for (int shift = 1; shift < 8; ++shift) {
      std::vector<float> y(n + shift);
      std::copy_n(x.begin(), n, y.begin() + shift);
      CHECK(run_sum(y.data() + shift, n) == s);
    }
  }
  // classes as Shaw's clip makes them: ages 40 .. -5 of one query row, clipped to [-16, 16]
  const int n = 46;
  auto cls = [](int t) { return std::clamp(t - 40, -16, 16) + 16; };
  std::vector<float> acc(33, 0.0f);
  std::vector<double> want(33, 0.0);
  add_by_class(x.data(), n, cls, acc.data());
  for (int t = 0; t < n; ++t) want[cls(t)] += x[t];
  for (int u = 0; u < 33; ++u) CHECK(std::abs(acc[u] - want[u]) < 1e-5);
  // a class of one key adds the key itself
  CHECK(acc[cls(n - 1)] == x[n - 1]);
}

TEST_CASE("clipped_runs: the runs class_runs finds for Shaw's clipped relation, from the positions alone") {
  // every query position against key spans before, around and after it, clip wider and narrower than
  // the span, consecutive positions (the arithmetic runs) and gapped ones (the general walk)
  using Run = std::array<int, 3>;
  int checked = 0;
  for (int K : {1, 3, 16, 200})
    for (int k0 : {0, 5, 40})
      for (int nk : {0, 1, 2, 9, 64})
        for (int gap : {1, 2})
          for (int qp = -70; qp <= 180; qp += 7) {
            std::vector<int> kpos(nk);
            for (int t = 0; t < nk; ++t) kpos[t] = k0 + gap * t;
            std::vector<Run> want, got;
            class_runs(
                nk, [&](int t) { return std::clamp(kpos[t] - qp, -K, K) + K; },
                [&](int t0, int t1, int u) {
                  want.push_back({t0, t1, u});
                });
            clipped_runs(qp, kpos.data(), nk, consecutive(kpos.data(), nk), K, [&](int t0, int t1, int u) {
              got.push_back({t0, t1, u});
            });
            CHECK(got == want);
            // only the runs that meet a row's visible keys [lo, hi), each whole
            for (auto [lo, hi] :
                 {std::pair{0, nk / 2}, std::pair{nk / 3, nk}, std::pair{1, nk - 1}, std::pair{nk, nk}}) {
              std::vector<Run> meet, part;
              for (const Run& w : want)
                if (lo < hi && w[1] > lo && w[0] < hi) meet.push_back(w);
              clipped_runs(
                  qp, kpos.data(), nk, consecutive(kpos.data(), nk), K,
                  [&](int t0, int t1, int u) {
                    part.push_back({t0, t1, u});
                  },
                  lo, hi);
              CHECK(part == meet);
            }
            ++checked;
          }
  CHECK(checked == 4 * 3 * 5 * 2 * 36);
}
TEST_CASE("a block's visible keys: the ages its rows can see, and a table gradient's rows with gradient") {
  // four causal rows at positions 10..13 over keys 0..13: rows 0-2 see keys 0..10+r, row 3 keys 5..13
  std::vector<int> qpos{10, 11, 12, 13}, kpos(14), first{0, 0, 0, 5}, last{10, 11, 12, 13};
  std::iota(kpos.begin(), kpos.end(), 0);
  AttnBlock<float> b;
  b.nq = 4, b.nk = 14, b.qpos = qpos.data(), b.kpos = kpos.data();
  CHECK(block_age_range(b) == std::pair{-3, 13});          // every pair of the span, masked ones too
  CHECK(block_visible_age_range(b) == std::pair{-3, 13});  // no visibility given: every key
  b.first = first.data(), b.last = last.data();
  CHECK(b.key_begin(0) == 0);
  CHECK(b.key_end(0) == 11);
  CHECK(b.key_end(3) == 14);
  CHECK(block_visible_age_range(b) == std::pair{0, 12});  // row 3 sees keys 5..13 alone
  first[2] = 12;                                          // row 2 sees its own key alone
  CHECK(block_visible_age_range(b) == std::pair{0, 11});
  for (int r = 0; r < 4; ++r) first[r] = 7, last[r] = 6;  // no row sees a key
  CHECK(b.key_begin(1) == b.key_end(1));
  CHECK(block_visible_age_range(b) == std::pair{0, -1});
  b.key0 = 7;  // the span starts at key 7: the ranges count from it
  CHECK(b.key_begin(1) == 0);

  std::vector<float> x(6 * 3, 0.0f);
  CHECK(nonzero_rows(x.data(), 6, 3) == std::pair{0, 0});
  x[2 * 3 + 1] = 1.0f, x[4 * 3] = -0.5f;
  CHECK(nonzero_rows(x.data(), 6, 3) == std::pair{2, 5});
  x[0] = 1.0f;
  CHECK(nonzero_rows(x.data(), 6, 3) == std::pair{0, 5});
}

TEST_CASE("derived tables made once per training step: the chunks' gradients have the bits of tables made afresh") {
  for (const char* s : {"tupe", "txl", "deberta"}) {
    BlockStackConfig cfg;
    cfg.vocab = 11, cfg.d_model = 16, cfg.n_heads = 2, cfg.n_layers = 2;
    cfg.scheme.name = s;
    cfg.scheme.train_length = 24;
    BlockStack<float> model(cfg);
    model.init(5);
    const int B = 2, T = 24;
    std::vector<int> x(B * T), y(B * T);
    for (int i = 0; i < B * T; ++i) x[i] = (i * 7) % 11, y[i] = (i * 5 + 3) % 11;
    model.prepare(T);
    auto grads = [&](BlockStackCache<float>& c) {
      std::vector<float> g(model.layout().total(), 0.0f);
      model.forward_backward(x.data(), y.data(), B, T, g.data(), c, 0, Visibility{}, 0);
      return g;
    };
    BlockStackCache<float> fresh, reused;
    reused.params_epoch = 1;
    const auto g0 = grads(fresh);
    const auto g1 = grads(reused), g2 = grads(reused);  // the second call reuses the first's tables
    INFO(s);
    CHECK(g1 == g0);
    CHECK(g2 == g0);
    // new parameters under a new epoch: the tables are made again
    for (auto& p : model.params()) p *= 0.9f;
    fresh.params_epoch = -1, reused.params_epoch = 2;
    CHECK(grads(reused) == grads(fresh));
    CHECK(grads(reused) != g0);
  }
}

TEST_CASE("the cue head's tables made once for a step's chunks: the bits of each chunk making its own") {
  for (const char* s : {"none", "sinusoidal", "learned", "rope", "alibi", "t5", "shaw", "txl", "deberta", "tupe"})
    for (bool every : {false, true}) {
      CueModelConfig cfg;
      cfg.scheme.name = s;
      cfg.scheme.train_length = 32;  // learned: rows for positions up to 31
      if (every) cfg.task.query_token = false;
      CueHead<float> m(cfg);
      m.init(4);
      const int B = 6, T = 20, p0 = every ? 0 : 3;
      CueBatch batch = cue_train_batch(CueModelConfig{}.task, 9, 1, B, T);
      std::vector<int> targets = batch.targets;
      if (every) {  // a target at every other position, tokens from the content vocabulary
        targets.assign(size_t(B) * T, -1);
        for (int i = 0; i < B * T; ++i)
          batch.tokens[i] %= cfg.task.vocab(), targets[i] = i % 2 ? batch.tokens[i] % 8 : -1;
      }
      m.prepare(p0 + T + 1);
      CueTables<float> tables;
      m.prepare_tables(T, p0, every, tables);
      std::vector<float> g_own(m.layout().total(), 0.0f), g_shared(m.layout().total(), 0.0f);
      CueWorkspace<float> own, shared;
      shared.shared = &tables;
      long rows = every ? B * T / 2 : B;
      const BatchStats a =
          m.forward_backward(batch.tokens.data(), targets.data(), B, T, rows, g_own.data(), own, p0, every);
      const BatchStats b =
          m.forward_backward(batch.tokens.data(), targets.data(), B, T, rows, g_shared.data(), shared, p0, every);
      INFO(s << (every ? " (every position)" : ""));
      CHECK(a.loss_sum == b.loss_sum);
      CHECK(own.logits == shared.logits);
      CHECK(g_own == g_shared);
      // tables made for another start are refused, not read
      CueTables<float> other;
      m.prepare_tables(T, p0 + 1, every, other);
      shared.shared = &other;
      CHECK_THROWS_AS(m.forward(batch.tokens.data(), targets.data(), B, T, shared, nullptr, p0, every), Error);
    }
}

TEST_CASE(
    "the cue head's looked-up scores: the same probabilities, logits and gradient to float rounding, for every "
    "scheme") {
  for (auto& info : scheme_list()) {
    if (info.min_layers > 1) continue;
    CueModelConfig cfg;
    cfg.scheme.name = info.name;
    cfg.scheme.train_length = 32;
    CueHead<float> m(cfg);
    m.init(5);
    const int B = 7, T = 24, p0 = 2;
    const CueBatch batch = cue_train_batch(cfg.task, 3, 2, B, T);
    m.prepare(p0 + T + 1);
    CueTables<float> tables;
    m.prepare_tables(T, p0, false, tables);
    std::vector<float> g_computed(m.layout().total(), 0.0f), g_looked(m.layout().total(), 0.0f);
    CueWorkspace<float> computed, looked;
    computed.shared = looked.shared = &tables;
    computed.lookup = false;
    const BatchStats a =
        m.forward_backward(batch.tokens.data(), batch.targets.data(), B, T, B, g_computed.data(), computed, p0);
    const BatchStats b =
        m.forward_backward(batch.tokens.data(), batch.targets.data(), B, T, B, g_looked.data(), looked, p0);
    INFO(info.name);
    CHECK(!computed.looked_up);
    // a value term needs the per-sequence rows, and so does a key score that reads the other keys (cope)
    CHECK(looked.looked_up == (!m.scheme().acts_on_values() && !m.scheme().contextual_scores()));
    CHECK(computed.probs == looked.probs);  // the scores are the same bits, looked up or computed
    CHECK(b.loss_sum == doctest::Approx(a.loss_sum).epsilon(1e-6));
    // the logits sum p (V W_out) instead of (sum p V) W_out
    float lscale = 0, lworst = 0;
    for (size_t i = 0; i < computed.logits.size(); ++i)
      lscale = std::max(lscale, std::abs(computed.logits[i])),
      lworst = std::max(lworst, std::abs(computed.logits[i] - looked.logits[i]));
    CHECK(lworst <= 1e-5f * lscale);
    float scale = 0, worst = 0;
    for (size_t i = 0; i < g_computed.size(); ++i)
      scale = std::max(scale, std::abs(g_computed[i])), worst = std::max(worst, std::abs(g_computed[i] - g_looked[i]));
    CHECK(scale > 0);
    CHECK(worst <= 1e-5f * scale);  // the same sums in another order
    // a chunk whose last token is not the query token everywhere computes its scores
    std::vector<int> tokens = batch.tokens;
    tokens[size_t(2) * T + T - 1] = 0;
    m.forward(tokens.data(), batch.targets.data(), B, T, looked, nullptr, p0);
    CHECK(!looked.looked_up);
  }
}

TEST_CASE(
    "a step whose chunks mix looked-up and computed scores: the chunks' forward_backward summed, to float rounding") {
  for (const char* s : {"rope", "t5", "learned", "deberta"}) {
    CueModelConfig cfg;
    cfg.scheme.name = s;
    cfg.scheme.train_length = 32;
    CueHead<float> m(cfg);
    m.init(8);
    const int B = 5, T = 16;
    CueBatch a = cue_train_batch(cfg.task, 2, 1, B, T), b = cue_train_batch(cfg.task, 2, 2, B, T);
    b.tokens[size_t(3) * T + T - 1] = 1;  // chunk b has a sequence without the query token last
    m.prepare(T);
    CueTables<float> tables;
    m.prepare_tables(T, 0, false, tables);
    // each chunk on its own
    std::vector<float> apart(m.layout().total(), 0.0f);
    CueWorkspace<float> wa, wb;
    wa.shared = wb.shared = &tables;
    m.forward_backward(a.tokens.data(), a.targets.data(), B, T, 2 * B, apart.data(), wa);
    m.forward_backward(b.tokens.data(), b.targets.data(), B, T, 2 * B, apart.data(), wb);
    CHECK(wa.looked_up);
    CHECK(!wb.looked_up);
    // as a training step does it, in both orders of the chunks
    for (bool looked_first : {true, false}) {
      std::vector<float> g0(m.layout().total(), 0.0f), g1(m.layout().total(), 0.0f);
      CueWorkspace<float> w0, w1;
      w0.shared = w1.shared = &tables;
      const CueBatch& first = looked_first ? a : b;
      const CueBatch& second = looked_first ? b : a;
      m.chunk_backward(first.tokens.data(), first.targets.data(), B, T, 2 * B, g0.data(), w0);
      m.chunk_backward(second.tokens.data(), second.targets.data(), B, T, 2 * B, g1.data(), w1);
      m.add_table_grads(w0, w1);
      for (size_t i = 0; i < g0.size(); ++i) g0[i] += g1[i];
      m.shared_tables_backward(w0, g0.data());
      float scale = 0, worst = 0;
      for (size_t i = 0; i < g0.size(); ++i)
        scale = std::max(scale, std::abs(apart[i])), worst = std::max(worst, std::abs(apart[i] - g0[i]));
      INFO(s << (looked_first ? " (looked-up chunk first)" : " (computed chunk first)"));
      CHECK(scale > 0);
      CHECK(worst <= 1e-5f * scale);
    }
  }
}
