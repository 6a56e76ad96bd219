// The laboratory's payload (lab/payload.h) recomputed from pe-bench's library: the clock's readout,
// the score curves against the RoPE geometry of tasks/cue/geometry.h, the census, the filing; and the
// page carries exactly the payload.
#include <doctest/doctest.h>

#include <cmath>

#include "core/errors.h"
#include "lab/page.h"
#include "lab/payload.h"
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
      const double direct =
          theory::sinusoidal_position(m, d, b).dot(theory::sinusoidal_position(n, d, b)) / (d / 2.0);
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
      CHECK(r["score_by_age"][100].get<double>() - r["score_by_age"][101].get<double>() == doctest::Approx(0.5).epsilon(1e-4));
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
  CHECK(p["filing"]["words"].size() == 209);
  CHECK(p["filing"]["last_mention"] == 64);
  for (auto& r : p["filing"]["readers"]) CHECK(r["answers"].size() == 209);
  const std::string page = lab::lab_page(p);
  const std::string open = "<script type=\"application/json\" id=\"payload\">";
  const size_t at = page.find(open) + open.size();
  const size_t end = page.find("</script>", at);
  REQUIRE(end != std::string::npos);
  std::string inside;  // the payload, "<\/" read back as "</"
  for (size_t i = at; i < end; ++i) {
    const bool escaped = page.compare(i, 3, "<\\/") == 0;
    inside += escaped ? "</" : std::string(1, page[i]);
    i += escaped ? 2 : 0;
  }
  CHECK(json::parse(inside) == p);
  // nothing to fetch: the one address in the page is SVG's namespace name
  const size_t http = page.find("http");
  CHECK(page.compare(http, 26, "http://www.w3.org/2000/svg") == 0);
  CHECK(page.find("http", http + 1) == std::string::npos);
  // a results directory without the inputs: one DataError naming the file and how to make it
  CHECK_THROWS_WITH_AS(lab::lab_payload(lab::LabSources::in("no-such-results"), false),
                       doctest::Contains("no-such-results/theory.json is missing"), DataError);
}
