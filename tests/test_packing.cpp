// Packing documents into training windows (harness/packing.h, docs/tasks.md "Packing"): the window
// layouts of each policy, the passkey task's packed windows and their key checks, training under each
// policy, and the invariants that define isolation: a document read in a packed window with isolation
// and reset positions gets the logits it gets alone; with global positions a relative scheme's are the
// same; across documents they are not.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <numeric>

#include "core/errors.h"
#include "core/files.h"
#include "harness/config.h"
#include "harness/packing.h"
#include "harness/task.h"
#include "models/block_stack_trainer.h"
#include "scratch.h"
#include "tasks/passkey/data.h"
#include "tasks/passkey/evaluation.h"
#include "tasks/passkey/packed_reading.h"
#include "tasks/passkey/training.h"

using namespace pe;
using nlohmann::json;
namespace fs = std::filesystem;

namespace packing_test {

json small_config(const std::string& runs, const std::string& packing) {
  json c = default_config("passkey");
  c["runs_dir"] = runs;
  c["steps"] = 12;
  c["batch_size"] = 8;
  c["log_every"] = 4;
  c["d_model"] = 32;
  c["train_length"] = 32;
  c["eval_lengths"] = {32};
  c["depths"] = 2;
  c["cell_sequences"] = 4;
  c["packing"] = packing;
  c["doc_min_length"] = 12;
  c["packed_windows"] = 6;
  complete_config(c);
  return c;
}

// The largest |a - b| over the answer rows' logits of a document read alone and in a window.
double answer_gap(const std::vector<float>& alone, const std::vector<float>& window, int row0, int V, int rows) {
  double gap = 0;
  for (int r = 0; r < rows; ++r)
    for (int v = 0; v < V; ++v)
      gap = std::max(gap, double(std::fabs(alone[size_t(r) * V + v] - window[size_t(row0 + r) * V + v])));
  return gap;
}

}  // namespace packing_test

TEST_CASE("packing: each policy's window lengths and layout") {
  for (int seed = 0; seed < 200; ++seed) {
    Rng rng(uint64_t(seed) + 1);
    const std::vector<int> packed = window_document_lengths(Packing::Packed, rng, 64, 16);
    CHECK(std::accumulate(packed.begin(), packed.end(), 0) == 64);
    for (int L : packed) CHECK((L >= 16 && L <= 64));
    const std::vector<int> padded = window_document_lengths(Packing::Padded, rng, 64, 16);
    REQUIRE(padded.size() == 1);
    CHECK((padded[0] >= 16 && padded[0] <= 64));
  }
  Rng rng(5);
  CHECK(window_document_lengths(Packing::None, rng, 64, 16) == std::vector<int>{64});
  CHECK(lay_out_window(Packing::None, {64}, 64).pos.empty());
  CHECK(lay_out_window(Packing::Packed, {20, 44}, 64).doc.empty());  // one document, global positions: the default
  const WindowCoordinates reset = lay_out_window(Packing::IsolatedReset, {3, 2}, 5);
  CHECK(reset.pos == std::vector<int>{0, 1, 2, 0, 1});
  CHECK(reset.doc == std::vector<int>{0, 0, 0, 1, 1});
  const WindowCoordinates global = lay_out_window(Packing::IsolatedGlobal, {3, 2}, 5);
  CHECK(global.pos == std::vector<int>{0, 1, 2, 3, 4});
  CHECK(global.doc == std::vector<int>{0, 0, 0, 1, 1});
  const WindowCoordinates pad = lay_out_window(Packing::Padded, {3}, 5);
  CHECK(pad.pos == std::vector<int>{0, 1, 2, 3, 4});  // content at 0 .. L-1, as alone
  CHECK(pad.doc == std::vector<int>{0, 0, 0, -1, -1});
  CHECK(packing_from_name("isolated-reset") == Packing::IsolatedReset);
  CHECK_THROWS_WITH_AS(packing_from_name("isolate"), doctest::Contains("key 'packing'"), ConfigError);
}

TEST_CASE("packing: a passkey window holds whole problems; none is the unpacked sequence") {
  const PasskeySpec spec;
  std::vector<int> x(64), y(64), x1(64), y1(64), lengths;
  WindowCoordinates w;
  passkey_window(spec, 99, 64, Packing::None, 16, x.data(), y.data(), w);
  passkey_sequence(spec, 99, 64, -1, x1.data(), y1.data());
  CHECK(x == x1);
  CHECK(y == y1);
  CHECK(w.pos.empty());
  for (int i = 0; i < 50; ++i) {
    passkey_test_window(spec, 777, 64, 16, i, x.data(), y.data(), lengths);
    int start = 0;
    for (int L : lengths) {  // each document: PASS somewhere, QUERY k rows before its end, k scored rows
      CHECK(x[start + L - spec.symbols] == spec.query_token());
      CHECK(std::count(x.begin() + start, x.begin() + start + L, spec.pass_token()) == 1);
      CHECK(std::count_if(y.begin() + start, y.begin() + start + L, [](int t) { return t >= 0; }) == spec.symbols);
      start += L;
    }
    CHECK(start == 64);
  }
  passkey_window(spec, 7, 64, Packing::Padded, 16, x.data(), y.data(), w, &lengths);
  REQUIRE(lengths.size() == 1);
  for (int r = lengths[0]; r < 64; ++r) CHECK((w.doc[r] == -1 && y[r] == -1));
}

TEST_CASE("packing: the passkey keys are checked, naming the key") {
  json c = packing_test::small_config("unused", "isolated-global");
  CHECK_NOTHROW(validate_config(c));
  c["packing"] = "isolate";
  CHECK_THROWS_WITH_AS(validate_config(c), doctest::Contains("key 'packing'"), ConfigError);
  c = packing_test::small_config("unused", "packed");
  c["doc_min_length"] = 40;  // longer than the window
  CHECK_THROWS_WITH_AS(validate_config(c), doctest::Contains("key 'doc_min_length'"), ConfigError);
  c["doc_min_length"] = 6;  // cannot hold a passkey of 4 symbols
  CHECK_THROWS_WITH_AS(validate_config(c), doctest::Contains("key 'doc_min_length'"), ConfigError);
  c["packing"] = "none";
  c["packed_windows"] = 0;
  CHECK_NOTHROW(validate_config(c));  // unread without packing
}

TEST_CASE("packing: isolation with reset positions reads each document as alone; across documents it does not") {
  const PasskeySpec spec;
  for (const std::string scheme : {"none", "sinusoidal", "learned", "rope", "alibi", "t5", "hybrid"}) {
    CAPTURE(scheme);
    ExperimentConfig e = ExperimentConfig::from_json(packing_test::small_config("unused", "none"));
    BlockStack<float> model(passkey_model_config(e, scheme));
    model.init(3);
    model.prepare(32);
    const int V = model.config().vocab, T = 32, k = spec.symbols;
    std::vector<int> x(T), y(T), lengths;
    int tested = 0;
    for (int i = 0; tested < 3 && i < 40; ++i) {
      passkey_test_window(spec, 777, T, 12, i, x.data(), y.data(), lengths);
      if (lengths.size() < 2) continue;
      ++tested;
      BlockStackCache<float> c;
      std::vector<std::vector<float>> logits;
      for (Packing p : packed_reading_layouts()) {
        BatchCoordinates at;
        at.append(lay_out_window(p, lengths, T));
        model.forward(x.data(), y.data(), 1, T, c, 0, Visibility{}, nullptr, at.view());
        logits.push_back(c.logits);
      }
      const int start = lengths[0], L = lengths[1];  // the second document
      model.forward(x.data() + start, y.data() + start, 1, L, c);
      const std::vector<float> alone = c.logits;
      const int row0 = L - k;
      CHECK(packing_test::answer_gap(std::vector<float>(alone.begin() + size_t(row0) * V, alone.end()), logits[1],
                                     start + row0, V, k) < 1e-4);
      const double across = packing_test::answer_gap(std::vector<float>(alone.begin() + size_t(row0) * V, alone.end()),
                                                     logits[0], start + row0, V, k);
      CHECK(across > 1e-4);  // the first document is visible: not the same reading
      const double global = packing_test::answer_gap(std::vector<float>(alone.begin() + size_t(row0) * V, alone.end()),
                                                     logits[2], start + row0, V, k);
      if (scheme == "alibi" || scheme == "t5" || scheme == "none" || scheme == "rope") CHECK(global < 1e-4);
      if (scheme == "learned" || scheme == "sinusoidal") CHECK(global > 1e-4);  // absolute: the offset shows
    }
    CHECK(tested == 3);
  }
}

TEST_CASE("packing: a passkey run under each policy trains and records it; packed windows are read") {
  const std::string dir = pe::test::fresh_scratch_dir("packing-runs");
  std::vector<std::string> checkpoints;
  for (const std::string packing : {"padded", "packed", "isolated-reset", "isolated-global"}) {
    CAPTURE(packing);
    const json cfg = packing_test::small_config(dir + "/" + packing, packing);
    const ExperimentConfig e = ExperimentConfig::from_json(cfg);
    const TrainedRun run = train_passkey(e, cfg, "rope", 0);
    CHECK(run.steps == 12);
    CHECK(std::isfinite(run.final_loss()));
    const json cp = json::parse(read_file(run.checkpoint));
    CHECK(cp["training"]["packing"]["policy"] == packing);
    checkpoints.push_back(run.checkpoint);
    // the same run again: the same bits (the windows are a function of seed and step)
    const std::string text = read_file(run.checkpoint);
    fs::remove_all(run.run_dir);
    CHECK(read_file(train_passkey(e, cfg, "rope", 0).checkpoint) == text);
  }
  const json r =
      evaluate_passkey({checkpoints[0]}, PasskeyReadSettings{{32}, {}, 2, 4, 5, /*packed_windows=*/6, 12}, false);
  REQUIRE(r.contains("packed"));
  CHECK(r["packed"]["layouts"] == json({"packed", "isolated-reset", "isolated-global"}));
  const json& row = r["packed"]["rows"][0];
  CHECK(row["scheme"] == "rope");
  for (const char* l : {"packed", "isolated-reset", "isolated-global"}) {
    const double a = row[l]["accuracy"].get<double>();
    CHECK((a >= 0 && a <= 1 && row[l]["lo"].get<double>() <= a && a <= row[l]["hi"].get<double>()));
    const double later = row[l]["later_accuracy"].get<double>();
    CHECK((later >= 0 && later <= 1 && row[l]["later_lo"].get<double>() <= later &&
           later <= row[l]["later_hi"].get<double>()));
  }
  CHECK(r["packed"]["documents"].get<long>() >= 6);
  CHECK(r["packed"]["later"].get<long>() == r["packed"]["documents"].get<long>() - 6);  // all but each window's first
  fs::remove_all(dir);
}

TEST_CASE("packing: the trainer hands each chunk its own rows' coordinates (the step's loss is the batch's)") {
  const PasskeySpec spec;
  ExperimentConfig e = ExperimentConfig::from_json(packing_test::small_config("unused", "none"));
  e.train_length = 64;
  for (Packing p : {Packing::Padded, Packing::IsolatedReset, Packing::IsolatedGlobal}) {
    const std::string name = packing_name(p);
    CAPTURE(name);
    BlockStack<float> model(passkey_model_config(e, "rope"));
    model.init(1);
    model.prepare(64);
    std::vector<int> x, y;
    BatchCoordinates at;
    const int B = 24, T = 64;  // three chunks of 8 sequences
    passkey_train_windows(spec, 5, 1, B, T, p, 16, x, y, at);
    BlockStackCache<float> c;
    const double whole = model.forward(x.data(), y.data(), B, T, c, 0, Visibility{}, nullptr, at.view());
    BlockStackTrainer trainer(model, AdamConfig{1e-3, 0.9, 0.999, 1e-8, 0});
    const double stepped = trainer.step(x.data(), y.data(), B, T, at.view());
    CHECK(stepped == doctest::Approx(whole).epsilon(1e-6));
    // read without its coordinates: a right-padded window's content rows are read alike (PAD comes after
    // them and their positions are 0 .. L-1 either way); packed documents are not
    BlockStack<float> fresh(passkey_model_config(e, "rope"));
    fresh.init(1);
    fresh.prepare(64);
    const double plain = fresh.forward(x.data(), y.data(), B, T, c);
    if (p == Packing::Padded)
      CHECK(plain == doctest::Approx(whole).epsilon(1e-6));
    else
      CHECK(std::fabs(plain - whole) > 1e-4);
  }
}
