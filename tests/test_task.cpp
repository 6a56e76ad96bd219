// The cue task: the data stream, the exact no-position reader, pairing of the test stream; the head's
// trainer (models/cue_head_trainer.h) and the shapes the geometry analysis reads (Scheme::geometry).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "core/parallel.h"
#include "core/rng.h"
#include "models/cue_head_trainer.h"
#include "schemes/scheme.h"
#include "tasks/cue/data.h"
#include "theory/exact_reader.h"

using namespace pe;

namespace {
// Brute force over every sequence of N content tokens (symbols and marks), with the forced-mark rule
// averaged over its uniform choice: the exact accuracy of the mode-guessing reader. Independent of
// the counting route in cue_exact.cpp.
double brute_force_reader(int N, int A, double p) {
  double total = 0;
  std::vector<int> sym(N);
  const int nsym = int(std::pow(A, N));
  for (int mask = 0; mask < (1 << N); ++mask) {
    const int k = __builtin_popcount(unsigned(mask));
    const double pmask = std::pow(p, k) * std::pow(1 - p, N - k);
    for (int code = 0; code < nsym; ++code) {
      int c = code;
      for (int t = 0; t < N; ++t) sym[t] = c % A, c /= A;
      const double pseq = pmask / nsym;
      auto score = [&](int m) {  // m: the set of marked positions
        std::vector<int> count(A, 0);
        int last = -1;
        for (int t = 0; t < N; ++t)
          if (m >> t & 1) ++count[sym[t]], last = t;
        const int mx = *std::max_element(count.begin(), count.end());
        const int ties = int(std::count(count.begin(), count.end(), mx));
        return count[sym[last]] == mx ? 1.0 / ties : 0.0;
      };
      if (mask == 0) {
        double s = 0;
        for (int t = 0; t < N; ++t) s += score(1 << t);
        total += pseq * s / N;
      } else {
        total += pseq * score(mask);
      }
    }
  }
  return total;
}
}  // namespace

TEST_CASE("the exact no-position reader agrees with brute-force enumeration") {
  for (int n : {3, 5, 7}) {
    INFO("n = ", n);
    CHECK(cue_best_reader_without_positions(n, 3, 0.3) ==
          doctest::Approx(brute_force_reader(n - 1, 3, 0.3)).epsilon(1e-12));
  }
  CHECK(cue_best_reader_without_positions(6, 8, 0.1) == doctest::Approx(brute_force_reader(5, 8, 0.1)).epsilon(1e-10));
}

TEST_CASE("the exact reader's values at the tournament lengths") {
  // The published table gives 0.547 at 32 and 0.234 at 256.
  CHECK(cue_best_reader_without_positions(32) == doctest::Approx(0.5466).epsilon(5e-4));
  CHECK(cue_best_reader_without_positions(256) == doctest::Approx(0.2341).epsilon(5e-4));
  // and the bag rule on a large sample of the real stream lands within 4 standard errors
  CueTaskConfig cfg;
  for (int n : {32, 128}) {
    const CueBatch big = cue_test_set(cfg, 99, n, 40000);
    const double exact = cue_best_reader_without_positions(n), sampled = cue_bag_reader_accuracy(cfg, big);
    CHECK(std::abs(sampled - exact) < 4 * std::sqrt(exact * (1 - exact) / 40000));
  }
  CHECK(cue_accuracy_given_marks(1) == 1.0);
  CHECK(cue_accuracy_given_marks(2, 8) == doctest::Approx((1.0 / 8 * 2 + 7.0 / 8 * 1) / 2));
}

TEST_CASE("sequences follow the task: query last, target = symbol of the last mark, always a mark") {
  CueTaskConfig cfg;
  const CueBatch b = cue_train_batch(cfg, 1, 1, 500, 20);
  for (int i = 0; i < b.B; ++i) {
    const int* tok = &b.tokens[size_t(i) * 20];
    CHECK(tok[19] == cfg.query_token_id());
    int last = -1;
    for (int t = 0; t < 19; ++t) {
      CHECK(tok[t] >= 0);
      CHECK(tok[t] < 2 * cfg.alphabet);
      if (tok[t] >= cfg.alphabet) last = t;
    }
    REQUIRE(last >= 0);
    CHECK(b.targets[i] == tok[last] - cfg.alphabet);
  }
}

TEST_CASE("a sequence drawn eight tokens at a time (AVX-512 DQ, where the CPU has it) is the one drawn singly") {
  // cue_sequence's vector path hashes eight tokens' draws at once; the integers must be Rng's own.
  // (On a CPU without AVX-512 DQ both calls take the scalar path and the check is trivially true.)
  int sequences = 0, differ = 0, fallbacks = 0;
  for (int A : {2, 3, 16, 26, 1000, 65536})
    for (double mark : {0.0, 0.05, 0.3, 1.0})
      for (int n : {2, 8, 9, 10, 17, 32, 33, 64, 129, 256}) {
        CueTaskConfig cfg;
        cfg.alphabet = A;
        cfg.mark_prob = mark;
        std::vector<int> a(n), b(n);
        for (uint64_t key = 0; key < 12; ++key) {
          const uint64_t k = stream_key({kTagTest, key, uint64_t(n), uint64_t(A)});
          int ta = -1, tb = -1;
          cue_sequence(cfg, k, n, a.data(), &ta);
          cue_sequence_drawn_singly(cfg, k, n, b.data(), &tb);
          differ += a != b || ta != tb;
          int marks = 0;
          for (int t = 0; t < n - 1; ++t) marks += a[t] >= A;
          fallbacks += mark == 0.0 && marks == 1;
          ++sequences;
        }
      }
  CHECK(sequences == 6 * 4 * 10 * 12);
  CHECK(differ == 0);
  CHECK(fallbacks == 6 * 10 * 12);  // with no mark drawn, the forced one
}

TEST_CASE("the test stream is fixed by (test seed, length) and independent of training") {
  CueTaskConfig cfg;
  const CueBatch a = cue_test_set(cfg, 777, 64, 100), b = cue_test_set(cfg, 777, 64, 100);
  CHECK(a.tokens == b.tokens);
  CHECK(a.targets == b.targets);
  const CueBatch other = cue_test_set(cfg, 778, 64, 100);
  CHECK(a.tokens != other.tokens);
  const CueBatch train = cue_train_batch(cfg, 777, 64, 100, 64);
  CHECK(a.tokens != train.tokens);
  // a prefix of a larger test set is the smaller one: sequences are named by their index
  const CueBatch bigger = cue_test_set(cfg, 777, 64, 200);
  CHECK(std::equal(a.tokens.begin(), a.tokens.end(), bigger.tokens.begin()));
}

TEST_CASE("the cue head's trainer: the same bits on one thread as on two, and a step's loss is its batch's") {
  for (const char* scheme : {"rope", "alibi", "t5", "sinusoidal"}) {
    CueModelConfig cfg;
    cfg.scheme.name = scheme;
    cfg.scheme.train_length = 16;
    const int B = 130, T = 16;  // three chunks: 64 + 64 + 2 sequences
    std::vector<float> result[2];
    double first_loss[2] = {0, 0}, first_accuracy[2] = {0, 0};
    for (int threads : {1, 2}) {
      set_threads(threads);
      CueHead<float> m(cfg);
      m.init(4);
      CueHeadTrainer trainer(m, AdamConfig{0.01});
      for (int step = 1; step <= 3; ++step) {
        const CueStepStats st = trainer.step(cue_train_batch(cfg.task, 5, step, B, T), step != 2, step);
        if (step == 1) first_loss[threads - 1] = st.loss, first_accuracy[threads - 1] = st.accuracy;
        if (step == 2) CHECK(st.loss == 0.0);  // not asked for
      }
      CHECK(trainer.adam().steps() == 3);
      result[threads - 1] = m.params();
    }
    set_threads(0);
    INFO(scheme);
    CHECK(result[0] == result[1]);
    CHECK(first_loss[0] == first_loss[1]);
    // the first step's loss and accuracy: the untrained head's forward over the whole batch, to rounding
    CueHead<float> fresh(cfg);
    fresh.init(4);
    fresh.prepare(T);
    const CueBatch batch = cue_train_batch(cfg.task, 5, 1, B, T);
    CueWorkspace<float> ws;
    const BatchStats whole = fresh.forward(batch.tokens.data(), batch.targets.data(), B, T, ws);
    CHECK(first_loss[0] == doctest::Approx(whole.loss_sum / B).epsilon(1e-6));
    CHECK(std::abs(first_accuracy[0] - double(whole.correct) / B) <= 1.0 / B);  // an argmax may tie-break apart
  }
}

TEST_CASE("a scheme says the shape of its position term (Scheme::geometry), the sections the geometry analysis reads") {
  auto geometry_of = [](const std::string& name, nlohmann::json settings = nlohmann::json::object(), int heads = 1) {
    SchemeConfig c;
    c.name = name;
    c.n_heads = heads;
    c.train_length = 32;
    c.settings = std::move(settings);
    return make_scheme<float>(c)->geometry();
  };
  using Kind = PositionGeometry::Kind;
  CHECK(geometry_of("rope").kind == Kind::Rotation);
  CHECK(geometry_of("rope").base == 10000.0);
  CHECK(geometry_of("rope", {{"base", 500.0}}).base == 500.0);
  CHECK(geometry_of("sinusoidal").kind == Kind::AddedCode);
  CHECK(geometry_of("sinusoidal", {{"base", 250.0}}).base == 250.0);
  const PositionGeometry alibi = geometry_of("alibi", {{"alibi_slopes", {0.5}}});
  CHECK(alibi.kind == Kind::LinearBias);
  CHECK(alibi.slopes == std::vector<double>{0.5});
  // no slopes given: the reference rule's, the ones the scheme applies
  CHECK(geometry_of("alibi", nlohmann::json::object(), 4).slopes == alibi_reference_slopes(4));
  // every other one-layer scheme has none of these shapes
  for (auto& info : scheme_list())
    if (info.min_layers == 1 && info.name != "rope" && info.name != "sinusoidal" && info.name != "alibi") {
      INFO(info.name);
      CHECK(geometry_of(info.name).kind == Kind::Other);
    }
}
