// The laboratory's payload (lab/payload.h) recomputed from pe-bench's library: the clock's readout,
// the score curves against the RoPE geometry of tasks/cue/geometry.h, the census, the filing; and the
// page carries exactly the payload.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <tuple>

#include "core/errors.h"
#include "core/files.h"
#include "lab/page.h"
#include "lab/payload.h"
#include "scratch.h"
#include "tasks/cue/checkpoint.h"
#include "tasks/cue/geometry.h"
#include "tasks/cue/score_curves.h"
#include "theory/sinusoidal_geometry.h"

using namespace pe;
using nlohmann::json;

namespace {
const json& committed_lab_payload() {
  static const json p = lab::lab_payload(lab::LabSources::in("results"), false);
  return p;
}
}  // namespace

TEST_CASE("the laboratory's clock: the readout is <p(m), p(n)> / (d/2) from the theory library") {
  const json& clock = committed_lab_payload()["clock"];
  for (auto& k : clock["kernels"]) {
    const int d = k["d"];
    const double b = k["base"];
    REQUIRE(k["theta"].size() == size_t(d / 2));
    CHECK(k["theta"][1].get<double>() == doctest::Approx(std::pow(b, -2.0 / d)));
    for (int m : {0, 3, 17}) {
      const int n = m + 7;
      const double direct = theory::sinusoidal_position(m, d, b).dot(theory::sinusoidal_position(n, d, b)) / (d / 2.0);
      CHECK(k["readout"][7].get<double>() == doctest::Approx(direct).epsilon(1e-12));
    }
  }
  // the published readout: m = 3, n = 10, d = 16, b = 10^4
  for (auto& k : clock["kernels"])
    if (k["d"] == 16 && k["base"] == 10000.0) CHECK(std::round(k["readout"][7].get<double>() * 1000) / 1000 == 0.737);
}

TEST_CASE("the laboratory's score curves are the heads' own scores: RoPE's agree with its offset curve") {
  const json& scores = committed_lab_payload()["scores"];
  CHECK(scores["train_length"] == 32);
  int rope_heads = 0;
  for (auto& r : scores["readers"]) {
    REQUIRE(r["score_by_age"].size() == 256);
    CHECK(r["score_by_age"][0].is_null());
    if (r["scheme"] == "learned") {
      CHECK(r["query_position"] == 31);  // its table's last row
      CHECK(r["score_by_age"][31].is_number());
      CHECK(r["score_by_age"][32].is_null());
    }
    if (r["reader"] != "rope") continue;
    ++rope_heads;
    // the geometry analysis computes RoPE's curve its own way (rotating q and k in double)
    const LoadedCheckpoint cp = load_checkpoint(r["checkpoint"]);
    const std::vector<double> curve = rope_offset_curve(*cp.model, 255);
    for (int age : {1, 31, 90, 181, 255})
      CHECK(r["score_by_age"][size_t(age)].get<double>() == doctest::Approx(curve[size_t(age)]).epsilon(1e-4));
  }
  CHECK(rope_heads == 3);
  // ALiBi's curve falls by its slope per position (content constant: every key the same token)
  for (auto& r : scores["readers"])
    if (r["reader"] == "alibi")
      CHECK(r["score_by_age"][100].get<double>() - r["score_by_age"][101].get<double>() ==
            doctest::Approx(0.5).epsilon(1e-4));
}

TEST_CASE(
    "the laboratory reads every scheme with logn when the tournament did: its curve is the plain one x ln n/ln L") {
  // the committed tournament's runs, its results as if they had read logn too
  namespace fs = std::filesystem;
  const fs::path dir = pe::test::scratch_path("lab-logn");
  fs::remove_all(dir);
  fs::create_directories(dir);
  lab::LabSources sources = lab::LabSources::in("results");
  json results = json::parse(read_file(sources.tournament_results));
  results["maps"].push_back("logn");
  sources.tournament_results = (dir / "results.json").string();
  std::ofstream(sources.tournament_results) << results.dump();
  const json scores = lab::lab_payload(sources, false)["scores"];
  fs::remove_all(dir);
  int pairs = 0;
  for (auto& plain : scores["readers"]) {
    if (plain["map"] != "none") continue;
    for (auto& scaled : scores["readers"]) {
      if (scaled["checkpoint"] != plain["checkpoint"] || scaled["map"] != "logn") continue;
      CAPTURE(scaled["reader"]);
      CHECK(scaled["reader"] == plain["scheme"].get<std::string>() + "+logn");
      ++pairs;
      // the query sees query_position + 1 keys (256, or a learned table's 32); trained at 32
      const double n = scaled["query_position"].get<double>() + 1, g = std::max(1.0, std::log(n) / std::log(32.0));
      for (int age : {1, 31, 90, 255}) {
        const json &a = plain["score_by_age"][size_t(age)], &b = scaled["score_by_age"][size_t(age)];
        if (a.is_null()) {
          CHECK(b.is_null());
          continue;
        }
        CHECK(b.get<double>() == doctest::Approx(g * a.get<double>()).epsilon(1e-5));
      }
    }
  }
  CHECK(pairs == 54 - 9);  // every head once (RoPE's three also under pi, ntk and yarn)
}

TEST_CASE("the laboratory's drift: a relative head is flat, the sinusoidal head is not") {
  const json& drift = committed_lab_payload()["drift"];
  bool rope = false, sinusoidal = false;
  for (auto& r : drift["readers"]) {
    const std::vector<double> s = r["scores"];
    REQUIRE(s.size() == size_t(256 - drift["age"].get<int>()));
    const auto [lo, hi] = std::minmax_element(s.begin(), s.end());
    if (r["scheme"] == "rope") {
      rope = true;
      CHECK(*hi - *lo < 1e-3);
    }
    if (r["scheme"] == "sinusoidal") {
      sinusoidal = true;
      CHECK(*hi - *lo > 1.0);
    }
    CHECK(r["scheme"] != "learned");  // it cannot read position 255
  }
  CHECK(rope);
  CHECK(sinusoidal);
}

TEST_CASE("the laboratory's census holds every rescaling map, the filing is the lab filing, the page the payload") {
  const json& p = committed_lab_payload();
  std::vector<std::string> maps = p["census"]["maps"];
  CHECK(std::find(maps.begin(), maps.end(), "yarn") != maps.end());
  CHECK(std::find(maps.begin(), maps.end(), "llama3") != maps.end());
  CHECK(p["census"]["kappas"].size() == 4);
  // accuracy: each reader's interval is results.json's lo and hi (no half width), around the mean
  const json results = json::parse(read_file("results/tournament/results.json"));
  REQUIRE(p["accuracy"]["readers"].size() == results["rows"].size());
  CHECK(p["accuracy"]["test_sequences"] == results["test_sequences"]);
  for (size_t i = 0; i < results["rows"].size(); ++i) {
    const json& r = p["accuracy"]["readers"][i];
    CHECK(r["lo"] == results["rows"][i]["lo"]);
    CHECK(r["hi"] == results["rows"][i]["hi"]);
    CHECK_FALSE(r.contains("half_width"));
    for (size_t j = 0; j < r["mean"].size(); ++j)
      if (!r["mean"][j].is_null()) CHECK((r["lo"][j] <= r["mean"][j] && r["mean"][j] <= r["hi"][j]));
  }
  CHECK(p["filing"]["words"].size() == 209);
  CHECK(p["filing"]["last_mention"] == 64);
  for (auto& r : p["filing"]["readers"]) CHECK(r["answers"].size() == 209);
  const std::string page = lab::lab_page(p);
  const std::string open = "<script type=\"application/json\" id=\"payload\">";
  const size_t at = page.find(open) + open.size();
  const size_t end = page.find("</script>", at);
  REQUIRE(end != std::string::npos);
  CHECK(json::parse(page.substr(at, end - at)) == p);
  // nothing to fetch: the one address in the page is SVG's namespace name
  const size_t http = page.find("http");
  CHECK(page.compare(http, 26, "http://www.w3.org/2000/svg") == 0);
  CHECK(page.find("http", http + 1) == std::string::npos);
  // a results directory without the inputs: one DataError naming the file and how to make it
  CHECK_THROWS_WITH_AS(lab::lab_payload(lab::LabSources::in("no-such-results"), false),
                       doctest::Contains("no-such-results/theory.json is missing"), DataError);
}

namespace {
// The JSON block of a laboratory page: the text between the payload's script tag and the first
// "</script>" after it (where the HTML parser ends the element).
std::string json_block(const std::string& page) {
  const std::string open = "<script type=\"application/json\" id=\"payload\">";
  const size_t at = page.find(open);
  REQUIRE(at != std::string::npos);
  const size_t end = page.find("</script>", at + open.size());
  REQUIRE(end != std::string::npos);
  return page.substr(at + open.size(), end - at - open.size());
}
size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}
}  // namespace

TEST_CASE("the laboratory's page escapes what it embeds: no string can end the element or open a comment") {
  const std::vector<std::string> hostile = {"<!--<script>",
                                            "</script><script>alert(1)</script>",
                                            "<!--",
                                            "-->",
                                            "a&amp;b",
                                            "x</SCRIPT >y",
                                            "<\\/script>",
                                            "\xE2\x80\xA8 and \xE2\x80\xA9",
                                            "]]>",
                                            "</",
                                            "<",
                                            ">",
                                            "&",
                                            "\\",
                                            "\"",
                                            "\xEF\xBF\xBF"};
  // a payload of every shape the laboratory's has, hostile strings in its values and keys, and the
  // committed payload with hostile strings where the inputs put theirs (a scheme name, a reference
  // key, a filing word, the --results path in sources)
  json synthetic = {{"sources", {{"theory", hostile[1]}}}, {"list", hostile}, {"n", 1.5}, {"nothing", nullptr}};
  for (auto& h : hostile) synthetic["keys"][h] = h;
  json committed = committed_lab_payload();
  committed["accuracy"]["readers"][0]["scheme"] = hostile[0];
  committed["accuracy"]["published"][hostile[0]] = {0.5, "n/a", nullptr};
  committed["filing"]["words"][3] = hostile[5];
  committed["filing"]["why"] = hostile[7];
  committed["sources"]["tournament_results"] = "results/<!--<script>/tournament/results.json";
  const std::string template_page = lab::lab_page(json::object());
  const size_t own_scripts = count(template_page, "<script");
  CHECK(own_scripts == 2);  // the payload's element and the page's script
  CHECK(count(template_page, "<!--") == 0);
  for (const json& payload : {synthetic, committed}) {
    const std::string page = lab::lab_page(payload);
    const std::string block = json_block(page);
    CHECK(count(page, "<script") == own_scripts);
    CHECK(count(page, "<!--") == 0);
    for (const char* raw : {"<", ">", "&", "</", "\xE2\x80\xA8", "\xE2\x80\xA9"})
      CHECK_MESSAGE(count(block, raw) == 0, raw);
    CHECK(json::parse(block) == payload);  // JSON.parse reads the \u escapes back as the characters
    CHECK(block.find("\\u003c!--\\u003cscript\\u003e") != std::string::npos);
  }
  CHECK(lab::script_json("\xE2\x80\xA8<&>") == "\"\\u2028\\u003c\\u0026\\u003e\"");
  // a string that is not UTF-8 (a path from the command line) is embedded with U+FFFD, not refused
  CHECK(json::parse(lab::script_json({{"path", "dir\xFF/x"}})) == json{{"path", "dir\xEF\xBF\xBD/x"}});
}

namespace {
namespace fs = std::filesystem;
// A results directory holding the committed inputs of the laboratory (not its runs), one of them
// edited; the payload's error for it. Every input is checked before the runs are read.
std::string lab_error(const std::string& file, const std::function<void(json&)>& edit, bool empty_runs = false) {
  const fs::path dir = pe::test::scratch_path("lab-inputs");
  fs::remove_all(dir);
  const lab::LabSources committed = lab::LabSources::in("results"), copy = lab::LabSources::in(dir.string());
  if (empty_runs) fs::create_directories(copy.tournament_runs);
  for (auto [from, to] : {std::pair{committed.theory, copy.theory},
                          {committed.tournament_results, copy.tournament_results},
                          {committed.filings_lab, copy.filings_lab},
                          {committed.failures, copy.failures}}) {
    json j = json::parse(read_file(from));
    // the file by its name, and the failure lab's results.json by its folder too (the tournament's has that name)
    const bool failures = fs::path(to).parent_path().filename() == "failures";
    if (fs::path(to).filename() == fs::path(file).filename() && failures == (file == "failures/results.json")) edit(j);
    fs::create_directories(fs::path(to).parent_path());
    std::ofstream(to) << j.dump();
  }
  std::string what;
  try {
    lab::lab_payload(copy, false);
  } catch (const DataError& e) {
    what = e.what();
  }
  fs::remove_all(dir);
  return what;
}
}  // namespace

TEST_CASE("the laboratory checks every input it reads: one DataError naming the file and the key") {
  const std::string T = "theory.json", R = "results.json", F = "lab_filing.json", FL = "failures/results.json";
  // the committed inputs pass every check: the first error is the runs directory the copy lacks
  CHECK(lab_error(T, [](json&) {}).find("tournament/runs is missing") != std::string::npos);
  // a runs directory without a head is missing input too (exit 4), not a usage error
  CHECK(lab_error(
            T, [](json&) {}, true)
            .find("no checkpoint.json under") != std::string::npos);
  const std::vector<std::tuple<std::string, std::function<void(json&)>, std::string>> cases = {
      // issue 46: 161 nulls, minutes of work, a string carried to the page, an internal error
      {T, [](json& j) { j["log_ruler"]["base"] = 1.0; },
       "theory.json: log_ruler.base must be a number in [2, 1000000000000], got 1.0"},
      {T, [](json& j) { j["log_ruler"]["rows"][0]["by_d"][0]["d"] = 0; },
       "theory.json: log_ruler.rows[0].by_d[0].d must be an integer in [2, 65536], got 0"},
      {T, [](json& j) { j["log_ruler"]["rows"][0]["by_d"][1]["d"] = 100000000; },
       "log_ruler.rows[0].by_d[1].d must be an integer in [2, 65536]"},
      {R, [](json& j) { j["rows"][0]["mean"] = "x"; }, "results.json: rows[0].mean must be a list, got \"x\""},
      // the failure lab's results (Figure C)
      {FL, [](json& j) { j["faults"][0]["models"][0]["faulty"][1] = 2.5; },
       "failures/results.json: faults[0].models[0].faulty[1] must be a number in [0, 1] or null, got 2.5"},
      {FL, [](json& j) { j["faults"][0].erase("fix"); }, "failures/results.json: faults[0].fix is missing"},
      {FL, [](json& j) { j["faults"][0]["models"][0]["doctor"]["caught_by"] = "twin"; },
       "failures/results.json: faults[0].models[0].doctor.caught_by must be a list, got \"twin\""},
      {R,
       [](json& j) {
         j = {{"rows", json::array()}};
       },
       "results.json: task is missing"},
      {R, [](json& j) { j["rows"] = json::array(); }, "results.json: rows must hold 1 to 256 entries (it holds 0)"},
      // types, domains, missing keys, sizes
      {T, [](json& j) { j = json::array(); }, "theory.json: the top level must be an object, got []"},
      {T, [](json& j) { j.erase("log_ruler"); }, "theory.json: log_ruler is missing"},
      {T, [](json& j) { j["log_ruler"]["base"] = "1e4"; }, "log_ruler.base must be a number"},
      {T, [](json& j) { j["log_ruler"]["rows"][0]["by_d"][0]["d"] = 63; }, "by_d[0].d must be even"},
      {T, [](json& j) { j["log_ruler"]["rows"][2]["delta"] = 0; },
       "log_ruler.rows[2].delta must be a number in [1, 10000]"},
      {T, [](json& j) { j["log_ruler"]["rows"][1]["limit"] = nullptr; }, "log_ruler.rows[1].limit must be a number"},
      {T, [](json& j) { j["log_ruler"]["rows"][0]["by_d"] = json::array(); },
       "log_ruler.rows[0].by_d must hold 1 to 8 entries"},
      {T, [](json& j) { j["log_ruler"]["rows"] = json::array(); },
       "log_ruler.rows must hold 1 to 64 entries (it holds 0)"},
      // another task's results: refused by their shape (no shared test set), naming their task
      {R, [](json& j) { j = json::parse(read_file("results/filings/results.json")); },
       "results.json: test_sequences is missing: the laboratory reads the tournament's results (accuracy by length on "
       "one shared test set), and this file is the \"filings\" task's"},
      {R, [](json& j) { j = json::parse(read_file("results/passkey/results.json")); },
       "this file is the \"passkey\" task's"},
      {R, [](json& j) { j["test_sequences"] = 0; },
       "results.json: test_sequences must be an integer in [1, 100000], got 0"},
      {R, [](json& j) { j["task"] = 7; }, "results.json: task must be a string of 1 to 200 bytes, got 7"},
      {R,
       [](json& j) {
         j["lengths"] = {64, 32};
       },
       "results.json: lengths[1] must be longer than the length before it"},
      {R, [](json& j) { j["lengths"][0] = 4294967297LL; }, "results.json: lengths[0] must be an integer in [2, 2048]"},
      {R, [](json& j) { j.erase("lengths"); }, "results.json: lengths is missing"},
      {R, [](json& j) { j["rows"][2]["mean"][1] = 1.5; },
       "results.json: rows[2].mean[1] must be a number in [0, 1] or null, got 1.5"},
      // the interval: lo and hi per length, in [0, 1], lo <= mean <= hi, null exactly where the mean is
      {R, [](json& j) { j["rows"][0]["lo"].erase(0); }, "results.json: rows[0].lo must hold 4 entries (it holds 3)"},
      {R, [](json& j) { j["rows"][0].erase("hi"); }, "results.json: rows[0].hi is missing"},
      {R, [](json& j) { j["rows"][1]["lo"][2] = -0.1; },
       "results.json: rows[1].lo[2] must be a number in [0, 1] or null, got -0.1"},
      {R, [](json& j) { j["rows"][1]["hi"][2] = 1.5; },
       "results.json: rows[1].hi[2] must be a number in [0, 1] or null, got 1.5"},
      {R,
       [](json& j) {
         j["rows"][1]["mean"][0] = 0.5;
         j["rows"][1]["lo"][0] = 0.6;
         j["rows"][1]["hi"][0] = 0.7;
       },
       "results.json: rows[1].lo[0] must be a number in [0, 0.5] (at most the mean 0.5), got 0.6"},
      {R,
       [](json& j) {
         j["rows"][1]["mean"][0] = 0.5;
         j["rows"][1]["lo"][0] = 0.3;
         j["rows"][1]["hi"][0] = 0.4;
       },
       "results.json: rows[1].hi[0] must be a number in [0.5, 1] (at least the mean 0.5), got 0.4"},
      {R, [](json& j) { j["rows"][1]["lo"][3] = nullptr; }, "results.json: rows[1].lo[3] must be a number in [0, "},
      {R, [](json& j) { j["rows"][1]["mean"][3] = nullptr; },
       "results.json: rows[1].lo[3] must be null where the mean is null"},
      {R, [](json& j) { j["rows"][0]["seeds"][1]["seed"] = -1; },
       "rows[0].seeds[1].seed must be an integer in [0, 2147483647]"},
      {R, [](json& j) { j["rows"][0]["seeds"][1].erase("accuracy"); }, "rows[0].seeds[1].accuracy is missing"},
      {R, [](json& j) { j["rows"][3]["scheme"] = ""; }, "rows[3].scheme must be a string of 1 to 200 bytes"},
      {R, [](json& j) { j["rows"][3]["scheme"] = std::string(201, 'x'); },
       "rows[3].scheme must be a string of 1 to 200 bytes"},
      {R,
       [](json& j) {
         j["maps"] = {"pi", "zoom"};
       },
       "results.json: maps[1] is not a map this build reads"},
      {R,
       [](json& j) {
         j["maps"] = {"pi", "pi"};
       },
       "results.json: maps[1] repeats an earlier map"},
      {R, [](json& j) { j["maps"] = "pi"; }, "results.json: maps must be a list"},
      {R, [](json& j) { j["reference"]["rows"]["rope\nx"] = {"far too long a note"}; },
       "results.json: reference.rows[\"rope\\nx\"][0] must be a number, null or a short note"},
      {F, [](json& j) { j["document"]["words"] = json::array(); },
       "lab_filing.json: document.words must hold 1 to 4096 entries (it holds 0)"},
      {F, [](json& j) { j["document"]["marks"].erase(0); }, "document.marks must hold 209 entries (it holds 208)"},
      {F, [](json& j) { j["document"]["targets"][100] = 4; },
       "document.targets[100] must be an integer in [-1, 3], got 4"},
      {F, [](json& j) { j["readers"][0]["answers"][5] = "x"; }, "readers[0].answers[5] must be an integer in [-1, 3]"},
      {F, [](json& j) { j["last_mention"] = 63; },
       "lab_filing.json: last_mention must be the position of the document's last mention"},
      {F, [](json& j) { j["last_mention"] = 209; }, "lab_filing.json: last_mention must be an integer in [0, 208]"},
      {F, [](json& j) { j["why"] = ""; }, "lab_filing.json: why must be a string of 1 to 2000 bytes"},
      {F, [](json& j) { j["document"].erase("kind"); }, "lab_filing.json: document.kind is missing"},
  };
  for (auto& [file, edit, expected] : cases) {
    const std::string what = lab_error(file, edit);
    CHECK_MESSAGE(what.find(expected) != std::string::npos, what);
    CHECK(what.find('\n') == std::string::npos);
  }
}
