// The char LM's documents and packing (tasks/charlm/documents.h, docs/tasks.md "Packing"): the
// paragraphs of a text, the windows each policy trains on, the invariants of a paragraph's piece in a
// window (isolated with reset positions: as read alone; PAD rows: no loss, the content as alone),
// whole-document reading, the keys, and a run under each policy (none and packed: the same bits).
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <sstream>

#include "core/errors.h"
#include "core/files.h"
#include "harness/config.h"
#include "harness/task.h"
#include "scratch.h"
#include "tasks/charlm/checkpoint.h"
#include "tasks/charlm/document_reading.h"
#include "tasks/charlm/documents.h"
#include "tasks/charlm/training.h"

using namespace pe;
using nlohmann::json;

namespace charlm_packing_test {

const std::string kTimeMachine = std::string(PEBENCH_SOURCE_DIR) + "/data/timemachine.txt";

BlockStackConfig model_config(const std::string& scheme) {
  BlockStackConfig c;
  c.vocab = 28;
  c.d_model = 32;
  c.n_heads = 4;
  c.n_layers = 2;
  c.scheme.name = scheme;
  c.scheme.train_length = 512;  // learned rows
  return c;
}

json experiment(const std::string& dir, const json& changes) {
  json cfg = default_config("charlm");
  cfg["corpus"] = kTimeMachine;
  cfg["runs_dir"] = dir + "/runs";
  cfg["out_dir"] = dir;
  for (auto& [k, v] : changes.items()) cfg[k] = v;
  return cfg;
}

// The largest |a - b| over the token losses of rows [row0, row0 + n) of `window` and 0 .. n-1 of `alone`.
double loss_gap(const std::vector<double>& alone, const std::vector<double>& window, int row0, int n) {
  double gap = 0;
  for (int t = 0; t < n; ++t) gap = std::max(gap, std::fabs(alone[size_t(t)] - window[size_t(row0 + t)]));
  return gap;
}

}  // namespace charlm_packing_test

TEST_CASE("charlm packing: paragraphs start after a blank line, in the preprocessed text") {
  const std::string text = "Ab cd\n\nEf  gh\n \r\nIj\nkl.";
  CHECK(d2l_preprocess(text) == "ab cd ef gh ij kl ");
  CHECK(paragraph_starts(text) == std::vector<int>{0, 6, 12});  // "kl" follows a single line end
  CHECK(paragraph_starts("one paragraph only") == std::vector<int>{0});
  const CharCorpus c = load_char_corpus(charlm_packing_test::kTimeMachine, kTimeMachineSha1);
  REQUIRE(c.doc_starts.size() > 100);
  for (size_t d = 1; d < c.doc_starts.size(); ++d) {
    const int s = c.doc_starts[d];
    CHECK(c.ids[size_t(s) - 1] == 0);  // after the space its gap became
    CHECK(c.ids[size_t(s)] >= 2);      // at a letter
    CHECK(c.doc_of(s) == int(d));
    CHECK(c.doc_of(s - 1) == int(d) - 1);
    CHECK(c.doc_end(int(d) - 1) == s);
  }
  CHECK(c.doc_end(int(c.doc_starts.size()) - 1) == long(c.ids.size()));
}

TEST_CASE("charlm packing: padded windows are the pieces of paragraphs; the others every start") {
  const CharCorpus c = load_char_corpus(charlm_packing_test::kTimeMachine, kTimeMachineSha1);
  const int T = 128, n = 20000;
  const TrainingWindows all = charlm_training_windows(c, Packing::IsolatedReset, n, T);
  REQUIRE(all.size() == n);
  CHECK(all.start[n - 1] == n - 1);
  CHECK(all.content[0] == T);
  const TrainingWindows padded = charlm_training_windows(c, Packing::Padded, n, T);
  REQUIRE(padded.size() > 0);
  long covered = 0;
  for (int w = 0; w < padded.size(); ++w) {
    const int s = padded.start[size_t(w)], L = padded.content[size_t(w)], d = c.doc_of(s);
    CHECK(s < n);
    CHECK(L >= 1);
    CHECK(L <= T);
    CHECK(s + L <= c.doc_end(d));                   // inside one paragraph
    CHECK((s - c.doc_starts[size_t(d)]) % T == 0);  // cut from its start
    if (s + L < c.doc_end(d)) CHECK(L == T);        // only a paragraph's last piece is short
    if (w > 0 && c.doc_of(padded.start[size_t(w) - 1]) == d) CHECK(padded.start[size_t(w) - 1] + T == s);
    covered += L;
  }
  CHECK(covered >= n);  // every character before n lies in a piece
}

TEST_CASE("charlm packing: a paragraph's piece isolated with reset positions reads as alone; PAD rows add nothing") {
  const CharCorpus c = load_char_corpus(charlm_packing_test::kTimeMachine, kTimeMachineSha1);
  const int T = 96;
  // a window that holds the end of one paragraph, then the start of the next
  const long start = c.doc_starts[40] - 30;
  const std::vector<int> pieces = window_pieces(c, start, T);
  REQUIRE(pieces.size() >= 2);
  CHECK(pieces[0] == 30);
  for (const std::string scheme : {"none", "sinusoidal", "learned", "rope", "alibi", "t5", "hybrid"}) {
    CAPTURE(scheme);
    BlockStack<float> model(charlm_packing_test::model_config(scheme));
    model.init(5);
    model.prepare(T);
    BlockStackCache<float> cache;
    std::vector<std::vector<double>> losses;
    std::vector<int> x(T), y(T);
    for (Packing p : {Packing::Packed, Packing::IsolatedReset, Packing::IsolatedGlobal}) {
      BatchCoordinates at;
      charlm_window(c, p, int(start), T, T, x.data(), y.data(), at);
      CHECK((at.view() == nullptr) == (p == Packing::Packed));
      model.forward(x.data(), y.data(), 1, T, cache, 0, Visibility{}, nullptr, at.view());
      losses.push_back(cache.token_loss);
    }
    const int row0 = pieces[0], L = pieces[1];  // the second piece, read alone from position 0
    model.forward(x.data() + row0, y.data() + row0, 1, L, cache);
    const std::vector<double> alone = cache.token_loss;
    CHECK(charlm_packing_test::loss_gap(alone, losses[1], row0, L) < 1e-5);
    CHECK(charlm_packing_test::loss_gap(alone, losses[0], row0, L) > 1e-5);  // the first piece is seen
    const double global = charlm_packing_test::loss_gap(alone, losses[2], row0, L);
    if (scheme == "sinusoidal" || scheme == "learned")
      CHECK(global > 1e-5);  // absolute positions: the offset shows
    else
      CHECK(global < 1e-5);  // relative (or none): only offsets are read

    // a padded window: the content alone, PAD rows unscored
    BatchCoordinates at;
    charlm_window(c, Packing::Padded, c.doc_starts[40], 50, T, x.data(), y.data(), at);
    for (int t = 50; t < T; ++t) CHECK(y[size_t(t)] == -1);
    model.forward(x.data(), y.data(), 1, T, cache, 0, Visibility{}, nullptr, at.view());
    const std::vector<double> padded = cache.token_loss;
    model.forward(x.data(), y.data(), 1, 50, cache);
    CHECK(charlm_packing_test::loss_gap(cache.token_loss, padded, 0, 50) < 1e-5);
    for (int t = 50; t < T; ++t) CHECK(padded[size_t(t)] == 0);
  }
}

TEST_CASE("charlm packing: whole-document reading averages each paragraph's tokens, read alone") {
  const std::string dir = pe::test::fresh_scratch_dir("charlm-docs");
  // three paragraphs (12, 30 and 7 characters after preprocessing), then text past the last one
  const std::string text =
      "Eleven char \n\nthirty characters of a longer \n\nsevens\n\nand the rest of the text goes on";
  write_file_atomic(dir + "/text.txt", text);
  const CharCorpus c = load_char_corpus(dir + "/text.txt", "");
  REQUIRE(c.doc_starts == std::vector<int>{0, 12, 42, 49});
  BlockStack<float> model(charlm_packing_test::model_config("rope"));
  model.init(9);
  CHECK(charlm_document_perplexities(model, c, {8}, 0, 49).documents == 2);  // the third's last target is ids[49]
  const DocumentPerplexities r = charlm_document_perplexities(model, c, {8, 16}, 0, 50);
  CHECK(r.documents == 3);
  CHECK(r.tokens == std::vector<long>{8 + 8 + 7, 12 + 16 + 7});
  CHECK(r.reaching == std::vector<int>{2, 1});
  // the figure at 16 by hand: each paragraph alone, to at most 16 characters
  BlockStackCache<float> cache;
  double sum = 0, first = 0;
  for (int d = 0; d < 3; ++d) {
    const int L = std::min<int>(16, int(c.doc_end(d) - c.doc_starts[size_t(d)]));
    std::vector<int> x(L), y(L);
    char_window(c, c.doc_starts[size_t(d)], L, x.data(), y.data());
    model.forward(x.data(), y.data(), 1, L, cache);
    for (int t = 0; t < L; ++t) sum += cache.token_loss[size_t(t)];
    first += cache.token_loss[0];
  }
  CHECK(r.results[1].loss == doctest::Approx(sum / 35).epsilon(1e-12));
  CHECK(r.position_loss[0] == doctest::Approx(first / 3).epsilon(1e-12));
  // read to 40: the longest paragraph (30) reaches position 29, none reaches 30
  const DocumentPerplexities far = charlm_document_perplexities(model, c, {40}, 0, 50);
  REQUIRE(far.position_loss.size() == 40);
  CHECK(!std::isnan(far.position_loss[29]));
  CHECK(std::isnan(far.position_loss[30]));
  CHECK(far.reaching == std::vector<int>{0});
  CHECK_THROWS_AS(charlm_document_perplexities(model, c, {8}, 13, 45), DataError);  // none lies inside [13, 45)
}

TEST_CASE("charlm packing: the keys are checked, naming the key") {
  const std::string dir = pe::test::fresh_scratch_dir("charlm-packing-keys");
  const Task& task = find_task("charlm");
  auto check = [&](const json& changes, const std::string& key) {
    json cfg = charlm_packing_test::experiment(dir, changes);
    try {
      complete_config(cfg);
      task.validate(cfg);
      ExperimentConfig::from_json(cfg);
      FAIL("accepted " << changes.dump());
    } catch (const ConfigError& err) {
      CHECK(std::string(err.what()).find(key) != std::string::npos);
    }
  };
  check({{"packing", "stacked"}}, "packing");
  check({{"read_layouts", {"documents", "sideways"}}}, "read_layouts");
  check({{"read_layouts", {"documents", "documents"}}}, "given twice");
  check({{"packing", "isolated-reset"}, {"mem_len", 64}}, "mem_len");
  check({{"packing", "padded"}, {"train_order", "order.json"}}, "train_order");
  check({{"val_stride", 0}}, "val_stride");
  json ok = charlm_packing_test::experiment(dir, {{"packing", "packed"}, {"mem_len", 64}});
  complete_config(ok);
  task.validate(ok);  // packed is the running text: a segment memory may read it
}

TEST_CASE("charlm packing: runs under each policy record it; none and packed train the same bits") {
  const std::string dir = pe::test::fresh_scratch_dir("charlm-packing-runs");
  std::vector<std::string> metrics;
  for (const std::string policy : {"none", "packed", "padded", "isolated-reset", "isolated-global"}) {
    CAPTURE(policy);
    json cfg = charlm_packing_test::experiment(dir + "/" + policy, {{"d_model", 32},
                                                                    {"steps", 6},
                                                                    {"batch_size", 4},
                                                                    {"log_every", 1},
                                                                    {"finetune_steps", 0},
                                                                    {"packing", policy}});
    complete_config(cfg);
    const ExperimentConfig e = ExperimentConfig::from_json(cfg);
    const TrainedRun run = train_charlm(e, cfg, "alibi", 0);
    const LoadedCharLM cp = load_charlm_checkpoint(run.checkpoint);
    if (policy == "none")
      CHECK(!cp.meta.at("training").contains("packing"));
    else
      CHECK(cp.meta.at("training").at("packing").at("policy") == policy);
    metrics.push_back(read_file(run.run_dir + "/metrics.jsonl"));
    CHECK(std::isfinite(run.final_loss()));
  }
  CHECK(metrics[0] == metrics[1]);  // the same windows, the same coordinates
  CHECK(metrics[0] != metrics[2]);
  CHECK(metrics[1] != metrics[3]);  // isolation hides the other paragraphs
  CHECK(metrics[3] == metrics[4]);  // ALiBi reads offsets only: reset or global positions, the same bits
}
