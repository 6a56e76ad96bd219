// The filings task (tasks/filings/): the one-pass reader equals the plain per-position pass, training
// windows never cross a document and come from the training split only, and the experiment end to
// end (its counts recomputed from the corpus it describes).
#include <doctest/doctest.h>

#include <filesystem>
#include <set>

#include "core/files.h"
#include "harness/config.h"
#include "harness/experiment.h"
#include "harness/task.h"
#include "scratch.h"
#include "tasks/filings/data.h"
#include "tasks/filings/evaluation.h"
#include "tasks/filings/lab_filing.h"
#include "tasks/filings/reader.h"

using namespace pe;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {
CueModelConfig head_config(const std::string& scheme) {
  CueModelConfig c;
  c.task = filings_head_task();
  c.scheme.name = scheme;
  c.scheme.train_length = 32;
  if (scheme == "alibi") c.scheme.settings["alibi_slopes"] = {0.5};
  return c;
}
}  // namespace

TEST_CASE("the one-pass reader gives the plain per-position pass's logits and answers at every position") {
  const FilingsDocument& doc = filings_corpus(1, kFilingsCorpusVersion).held_out.at(3);
  const std::vector<int> tokens = filings_tokens(doc);
  REQUIRE(tokens.size() > 100);
  for (auto& info : scheme_list()) {
    if (info.min_layers > 1) continue;
    CueHead<float> m(head_config(info.name));
    m.init(5);
    for (const std::string map : {"none", "pi", "yarn"}) {
      if (map != "none" && !m.scheme().accepts_frequency_plan()) continue;
      if (!m.scheme().can_read(int(tokens.size()) - 1)) continue;  // a learned table of 32 rows
      INFO(info.name, " map ", map);
      plan_for_document(m, parse_map(map), 32, int(tokens.size()));
      CueWorkspace<float> ws;
      std::vector<float> one, each;
      const std::vector<int> a = read_one_pass(m, tokens, ws, &one), b = read_per_position(m, tokens, &each);
      CHECK(a == b);
      REQUIRE(one.size() == each.size());
      double worst = 0;
      for (size_t i = 0; i < one.size(); ++i) worst = std::max(worst, double(std::abs(one[i] - each[i])));
      CHECK(worst <= 1e-5);
    }
  }
}

TEST_CASE("filings training windows: inside one training document, targets from the window alone") {
  const FilingsCorpus& c = filings_corpus(1, kFilingsCorpusVersion);
  std::set<std::vector<std::string>> held_out;
  for (auto& d : c.held_out) held_out.insert(d.words);
  long queries = 0, positions = 0;
  for (int step = 1; step <= 20; ++step) {
    std::vector<FilingsWindow> w;
    const CueBatch b = filings_train_batch(c.train, 7, step, 64, 32, &w);
    REQUIRE(b.every_position);
    REQUIRE(w.size() == 64);
    for (int i = 0; i < b.B; ++i) {
      const FilingsDocument& d = c.train.at(size_t(w[i].document));
      CHECK(held_out.count(d.words) == 0);  // a held-out document is never a training window's
      REQUIRE(w[i].start >= 0);
      REQUIRE(w[i].start + 32 <= int(d.words.size()));  // never across the document's end
      const std::vector<int> x = filings_tokens(d);
      int last = -1;
      for (int t = 0; t < 32; ++t) {
        CHECK(b.tokens[size_t(i) * 32 + t] == x[size_t(w[i].start + t)]);
        if (d.marks[size_t(w[i].start + t)]) last = d.symbols[size_t(w[i].start + t)];
        CHECK(b.targets[size_t(i) * 32 + t] == last);  // -1 before the window's first mention
        queries += last >= 0, ++positions;
      }
    }
    CHECK(b.queries() <= long(b.targets.size()));
  }
  CHECK(queries > positions / 4);  // a window without a mention has no query
  // the same (seed, step) gives the same windows; another step others
  CHECK(filings_train_batch(c.train, 7, 3, 8, 32).tokens == filings_train_batch(c.train, 7, 3, 8, 32).tokens);
  CHECK(filings_train_batch(c.train, 7, 3, 8, 32).tokens != filings_train_batch(c.train, 7, 4, 8, 32).tokens);
}

TEST_CASE("the company-named-most reader, counted by hand on a small document") {
  FilingsDocument d;
  // x A B B x A: queries from position 1; A is company 0, B company 1
  d.words = {"x", "A", "B", "B", "x", "A"};
  d.symbols = {3, 0, 1, 1, 5, 0};
  d.marks = {0, 1, 1, 1, 0, 1};
  d.companies = {"A", "B"};
  // targets 0 1 1 1 0; counts after each: {1,0} {1,1} {1,2} {1,2} {2,2}: hits 1, 1/2, 1, 1, 1/2
  const auto acc = most_named_so_far_accuracy({d}, 0);
  CHECK(acc[0] == doctest::Approx(4.0 / 5.0));
  // "far" here: the answer more than 0 back — position 4 only (age 1): a hit (counts {1,2}, target 1)
  CHECK(acc[1] == doctest::Approx(1.0));
  CHECK(most_named_so_far_accuracy({d}, 1)[1] == 0.0);  // no answer more than 1 back
}

TEST_CASE("the filings experiment end to end: every held-out query counted once, the document read by every reader") {
  const std::string dir = pe::test::scratch_path("filings").string();
  fs::remove_all(dir);
  json cfg = default_config("filings");
  cfg["schemes"] = {"rope", "alibi"};
  cfg["seeds"] = {0, 1};
  cfg["steps"] = 30;
  cfg["reference"] = "";
  cfg["runs_dir"] = dir + "/runs";
  cfg["out_dir"] = dir;
  complete_config(cfg);
  CHECK_FALSE(cfg.contains("eval_lengths"));  // whole documents are read
  const Task& task = find_task("filings");
  run_experiment(task, cfg, RunControl{true, 2, false});
  const json r = json::parse(read_file(dir + "/results.json"));
  const json stats = filings_statistics(filings_corpus(1, kFilingsCorpusVersion).held_out);
  CHECK(r["queries"] == stats["queries"]);
  CHECK(r["far_queries"] == stats["far_queries"]);
  CHECK(r["first_company"][0].get<double>() == doctest::Approx(stats["first_company_accuracy"].get<double>()));
  // rope, rope+pi, rope+ntk, rope+yarn, alibi
  REQUIRE(r["rows"].size() == 5);
  CHECK(r["rows"][1]["map"] == "pi");
  for (auto& row : r["rows"])
    for (auto& sd : row["seeds"]) {
      CHECK(sd["correct"][0].get<long>() <= r["queries"].get<long>());
      CHECK(sd["accuracy"][0].get<double>() ==
            doctest::Approx(sd["correct"][0].get<double>() / r["queries"].get<double>()));
    }
  // the horizon table: both ALiBi heads, their counts within the queries
  REQUIRE(r["alibi_horizons"].size() == 2);
  for (auto& h : r["alibi_horizons"]) {
    CHECK(h["trained_on"] == "filings");
    CHECK(h["queries_inside_half_horizon"].get<long>() + h["queries_beyond_horizon"].get<long>() <=
          r["queries"].get<long>());
  }
  const json doc = json::parse(read_file(dir + "/document.json"));
  CHECK(doc["readers"].size() == 2 * 5);
  const size_t n = doc["document"]["words"].size();
  for (auto& rd : doc["readers"]) CHECK(rd["answers"].size() == n);
  // the laboratory's filing, read by the same readers; answers counted from its last mention
  const json lab = json::parse(read_file(dir + "/lab_filing.json"));
  CHECK(lab["last_mention"] == kLabFilingLastMention);
  CHECK(lab["readers"].size() == 2 * 5);
  for (auto& rd : lab["readers"]) {
    CHECK(rd["answers"].size() == size_t(kLabFilingLength));
    int counted = 0;
    for (int c : rd["answers_from_last_mention"]) counted += c;
    CHECK(counted <= kLabFilingLength - kLabFilingLastMention);
  }
  // compare reads both columns; --length does not apply
  const std::string cmp = task.reporter().compare(r, "rope+pi", "rope", 0, {});
  CHECK(cmp.find("all queries") != std::string::npos);
  CHECK(cmp.find("far queries") != std::string::npos);
  CHECK_THROWS_AS(task.reporter().compare(r, "rope+pi", "rope", 64, {}), UsageError);
  fs::remove_all(dir);
}
