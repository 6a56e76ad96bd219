// The filings corpus generator (tasks/filings/corpus.h): deterministic, symbols in order of first
// appearance, statistics recomputed from the documents they describe, JSON Lines round trip.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>

#include "core/errors.h"
#include "core/files.h"
#include "core/sha1.h"
#include "scratch.h"
#include "tasks/filings/corpus.h"
#include "tasks/filings/lab_filing.h"

using namespace pe;
using nlohmann::json;

TEST_CASE("the filings generator: same seed same bytes, another seed other documents") {
  const FilingsCorpus a = generate_filings(1), b = generate_filings(1), c = generate_filings(2);
  CHECK(a.train.size() == 300);
  CHECK(a.held_out.size() == 100);
  CHECK(filings_jsonl(a.train) == filings_jsonl(b.train));
  CHECK(filings_jsonl(a.held_out) == filings_jsonl(b.held_out));
  CHECK(filings_jsonl(a.train) != filings_jsonl(c.train));
  // no held-out document is a training document
  std::set<std::vector<std::string>> seen;
  for (auto& d : a.train) seen.insert(d.words);
  for (auto& d : a.held_out) CHECK(seen.count(d.words) == 0);
}

namespace {
// The published corpus's held-out statistics (tasks.md section 2) and how close version 2 must come:
// within 10% (the first-company rule within 0.02); queries_scale: documents / 100.
void check_published_shape(const json& s, double queries_scale) {
  CHECK(std::abs(s["length_quartiles"][1].get<double>() / 198 - 1) <= 0.10);
  CHECK(std::abs(s["mentions_quartiles"][1].get<double>() / 8 - 1) <= 0.10);
  CHECK(std::abs(s["queries"].get<double>() / queries_scale / 19285 - 1) <= 0.10);
  CHECK(std::abs(s["far_share"].get<double>() / (7895.0 / 19285) - 1) <= 0.10);
  CHECK(std::abs(s["first_company_accuracy"].get<double>() - 0.766) <= 0.02);
  CHECK(std::abs(s["first_company_far_accuracy"].get<double>() - 0.739) <= 0.02);
}
}  // namespace

TEST_CASE("corpus version 2 has the published corpus's shape; version 1 is the first corpus, byte for byte") {
  // the study's held-out documents (seed 1: the published figures are held-out ones; seed 1's training
  // documents read 0.742 / 0.712 for the first company, a draw's spread, tasks.md)
  check_published_shape(filings_statistics(generate_filings(1).held_out), 1);
  // other seeds: the calibration was on the mean over seeds, so the pooled corpora of seeds 11-18
  std::vector<FilingsDocument> pooled;
  for (uint64_t seed = 11; seed <= 18; ++seed) {
    const FilingsCorpus k = generate_filings(seed, 0, 100);
    pooled.insert(pooled.end(), k.held_out.begin(), k.held_out.end());
  }
  {
    INFO("seeds 11-18 pooled");
    check_published_shape(filings_statistics(pooled), 8);
  }
  // version 1: the corpus the first filings results were trained and read on (results/filings-v1)
  const FilingsCorpus v1 = generate_filings(1, 300, 100, 1);
  CHECK(sha1_hex(filings_jsonl(v1.held_out)) == "6a8d92ba860214789fce98acacf2d4d4aec5c110");
  CHECK(sha1_hex(filings_jsonl(v1.train)) == "751f59edd4ddf48920948de1cc146cd492cd937e");
  CHECK(filings_statistics(v1.held_out)["length_quartiles"][1] == 255);
  CHECK_THROWS_AS(generate_filings(1, 1, 1, 0), ConfigError);
  CHECK_THROWS_AS(generate_filings(1, 1, 1, kFilingsCorpusVersion + 1), ConfigError);
}

TEST_CASE("the laboratory's filing has the shape the article describes") {
  const FilingsDocument d = lab_filing();
  REQUIRE(d.words.size() == size_t(kLabFilingLength));
  CHECK(d.companies ==
        std::vector<std::string>{"Marrow Freight", "Dunmore Aerospace", "Siskin Apparel", "Fenwick Logistics"});
  std::vector<int> named(4, 0);
  for (size_t i = 0; i < d.words.size(); ++i)
    if (d.marks[i]) ++named[size_t(d.symbols[i])];
  CHECK(named == std::vector<int>{6, 1, 1, 1});
  CHECK(d.words[size_t(kLabFilingLastMention)] == "Fenwick Logistics");
  CHECK(d.marks[size_t(kLabFilingLastMention)] == 1);
  // forty-five tokens later
  const std::vector<std::string> phrase = {"a", "result", "the", "company", "called", "disappointing"};
  CHECK(std::vector<std::string>(d.words.begin() + kLabFilingLastMention + 45,
                                 d.words.begin() + kLabFilingLastMention + 51) == phrase);
  const std::vector<int> t = d.targets();
  CHECK(std::count(t.begin() + kLabFilingLastMention, t.end(), 3) == kLabFilingLength - kLabFilingLastMention);
  CHECK(std::count(t.begin(), t.begin() + kLabFilingLastMention, 3) == 0);
  // written-out documents: an unknown company is named in the error
  CHECK_THROWS_WITH_AS(filings_document_from_text("x", "mdna", "@Q said", {{"@M", "Marrow Freight"}}),
                       doctest::Contains("@Q names no company"), DataError);
}

TEST_CASE("filings tokens: a mention's symbol is its company's order of first appearance; words hash stably") {
  for (auto& d : generate_filings(3, 40, 10).train) {
    REQUIRE(d.words.size() == d.symbols.size());
    REQUIRE(d.words.size() == d.marks.size());
    CHECK(d.companies.size() <= size_t(kFilingsSymbols));
    int next = 0;
    for (size_t i = 0; i < d.words.size(); ++i) {
      if (d.marks[i]) {
        CHECK(d.symbols[i] <= next);  // an old company, or the next new one
        if (d.symbols[i] == next) ++next;
        CHECK(d.companies[size_t(d.symbols[i])] == d.words[i]);
      } else {
        CHECK(d.symbols[i] == word_symbol(d.words[i]));
      }
    }
    CHECK(next == int(d.companies.size()));
    // targets: the company named last at or before each position
    const std::vector<int> t = d.targets();
    int last = -1;
    for (size_t i = 0; i < t.size(); ++i) {
      if (d.marks[i]) last = d.symbols[i];
      CHECK(t[i] == last);
    }
  }
  CHECK(word_symbol("revenue") == word_symbol("revenue"));
}

TEST_CASE("filings statistics are recomputed from the documents, and survive a JSON Lines round trip") {
  const FilingsCorpus c = generate_filings(1);
  const json s = filings_statistics(c.held_out);
  long queries = 0, far = 0, first = 0, first_far = 0;
  for (auto& d : c.held_out) {
    const std::vector<int> t = d.targets();
    int last_at = -1;
    for (size_t i = 0; i < t.size(); ++i) {
      if (d.marks[i]) last_at = int(i);
      if (t[i] < 0) continue;
      ++queries, far += int(i) - last_at > 32, first += t[i] == 0;
      first_far += int(i) - last_at > 32 && t[i] == 0;
    }
  }
  CHECK(s["queries"] == queries);
  CHECK(s["far_queries"] == far);
  CHECK(s["first_company_accuracy"].get<double>() == doctest::Approx(double(first) / queries));
  CHECK(s["first_company_far_accuracy"].get<double>() == doctest::Approx(double(first_far) / far));
  const std::string path = pe::test::scratch_path("filings.jsonl").string();
  write_file_atomic(path, filings_jsonl(c.held_out));
  const auto back = read_filings_jsonl(path);
  CHECK(filings_statistics(back) == s);
  CHECK(filings_jsonl(back) == filings_jsonl(c.held_out));
  write_file_atomic(path, "{\"id\": 1}\n");
  CHECK_THROWS_AS(read_filings_jsonl(path), DataError);
  std::filesystem::remove(path);
}
