#include "lab/payload.h"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>

#include "core/errors.h"
#include "core/files.h"
#include "core/progress.h"
#include "harness/checkpoint.h"
#include "schemes/frequency_maps.h"
#include "tasks/cue/checkpoint.h"
#include "tasks/cue/score_curves.h"
#include "theory/census.h"
#include "theory/sinusoidal_geometry.h"

namespace pe::lab {

using nlohmann::json;

LabSources LabSources::in(const std::string& dir) {
  const std::filesystem::path d(dir);
  // the committed layout: experiments/tournament.json's and experiments/filings.json's out_dir
  return {(d / "theory.json").string(), (d / "tournament/results.json").string(), (d / "tournament/runs").string(),
          (d / "filings/lab_filing.json").string()};
}

namespace {

json read_input(const std::string& path, const std::string& make) {
  if (!std::filesystem::is_regular_file(path))
    throw DataError(fmt::format("{} is missing; make it first ({}) or point --results at a results directory that has it",
                                path, make));
  try {
    return json::parse(read_file(path));
  } catch (const json::exception& e) {
    throw DataError(fmt::format("{} is not JSON ({}); make it again ({})", path, e.what(), make));
  }
}

// Figure A, the clock: per (d, b) the plane rates theta_j = b^(-2j/d) and the readout
// <p(m), p(n)> / (d/2) for every offset |n - m| the sliders reach.
json clock_view() {
  json kernels = json::array();
  for (int d : kClockDims)
    for (double b : kClockBases) {
      json theta = json::array(), readout = json::array();
      for (int j = 0; j < d / 2; ++j) theta.push_back(std::pow(b, -2.0 * j / d));
      for (int delta = 0; delta < kClockPositions; ++delta)
        readout.push_back(theory::stationary_kernel(delta, d, b) / (d / 2.0));
      kernels.push_back({{"d", d}, {"base", b}, {"theta", theta}, {"readout", readout}});
    }
  return {{"positions", kClockPositions},
          {"dims", kClockDims},
          {"bases", kClockBases},
          {"start", {{"d", 16}, {"base", 10000.0}, {"m", 3}, {"n", 10}}},
          {"kernels", kernels}};
}

// The ruler: (2/d) kappa_d at three widths beside its limit I_b and the line, on a log grid of
// offsets; theory.json's own table rides along (the points the page marks).
json ruler_view(const json& theory) {
  const json& table = theory.at("log_ruler");
  const double b = table.at("base").get<double>();
  std::vector<int> dims;
  for (auto& x : table.at("rows").at(0).at("by_d")) dims.push_back(x.at("d").get<int>());
  json deltas = json::array(), limit = json::array(), line = json::array(), curves = json::array();
  for (int i = 0; i <= 160; ++i) deltas.push_back(std::pow(10.0, 4.0 * i / 160));
  for (auto& x : deltas) {
    limit.push_back(theory::log_ruler_limit(x.get<double>(), b));
    line.push_back(theory::log_ruler_line(x.get<double>(), b));
  }
  for (int d : dims) {
    json v = json::array();
    for (auto& x : deltas) v.push_back(theory::stationary_kernel(x.get<double>(), d, b) * 2.0 / d);
    curves.push_back({{"d", d}, {"values", v}});
  }
  return {{"base", b}, {"deltas", deltas}, {"limit", limit}, {"line", line}, {"curves", curves}, {"theory_rows", table.at("rows")}};
}

// Figure B's census: every map of the table that rescales frequencies, at kappa 2, 4, 8, 16.
json census_view() {
  std::vector<std::string> maps;
  for (auto& m : frequency_maps())
    if (!is_identity_map(m.name) && !m.takes_value) maps.push_back(m.name);
  return theory::wavelength_census_report(16, 32, kDefaultBase, {2.0, 4.0, 8.0, 16.0}, maps);
}

json optional_values(const std::vector<std::optional<double>>& v) {
  json out = json::array();
  for (auto& x : v) out.push_back(x ? json(*x) : json(nullptr));
  return out;
}

// Every tournament head's score curve (and RoPE's under each map the results read it with), the
// drift of a sinusoidal head against RoPE's, from the checkpoints.
void head_views(const std::string& runs, const json& maps, json& scores, json& drift, bool progress) {
  if (!std::filesystem::is_directory(runs))
    throw DataError(fmt::format("{} is missing; train the tournament first (make run)", runs));
  const std::vector<std::string> paths = find_checkpoints(runs);
  Progress line(!progress);
  json readers = json::array(), drifts = json::array();
  int done = 0, trained_at = 0;
  for (auto& path : paths) {
    LoadedCheckpoint cp = load_checkpoint(path);
    CueHead<float>& m = *cp.model;
    const std::string scheme = cp.meta.at("scheme").at("name");
    const int seed = cp.meta.at("training").at("seed");
    const int train_length = cp.meta.at("training").at("train_length");
    if (trained_at && train_length != trained_at)
      throw DataError(fmt::format("{} was trained at {} tokens, the heads before it at {}: one tournament at a time",
                                  path, train_length, trained_at));
    trained_at = train_length;
    std::vector<std::string> readings = {identity_map()};
    if (m.scheme().accepts_frequency_plan())
      for (auto& map : maps) readings.push_back(map.get<std::string>());
    for (auto& map : readings) {
      if (m.scheme().accepts_frequency_plan()) m.scheme().read_with(map, train_length, kScoreLength);
      m.prepare(kScoreLength);
      int read = 0;
      const auto curve = score_by_age(m, kScoreLength, &read);
      readers.push_back({{"reader", is_identity_map(map) ? scheme : scheme + "+" + map},
                         {"scheme", scheme},
                         {"map", map},
                         {"seed", seed},
                         {"query_position", read - 1},
                         {"checkpoint", path},
                         {"score_by_age", optional_values(curve)}});
    }
    if (m.scheme().accepts_frequency_plan()) m.scheme().read_with(identity_map(), train_length, kScoreLength);
    m.prepare(kScoreLength);
    const std::vector<double> d = score_by_position(m, kDriftAge, kScoreLength - 1);
    if (!d.empty()) drifts.push_back({{"scheme", scheme}, {"seed", seed}, {"checkpoint", path}, {"scores", d}});
    line.update(fmt::format("[lab] read {}/{} tournament heads", ++done, paths.size()));
  }
  line.done();
  scores = {{"length", kScoreLength}, {"train_length", trained_at}, {"readers", readers}};
  drift = {{"age", kDriftAge}, {"first_position", kDriftAge}, {"readers", drifts}};
}

json accuracy_view(const json& results, const std::string& path) {
  json readers = json::array();
  for (auto& row : results.at("rows")) {
    const std::string scheme = row.at("scheme"), map = row.value("map", identity_map());
    json seeds = json::array();
    for (auto& s : row.at("seeds")) seeds.push_back({{"seed", s.at("seed")}, {"accuracy", s.at("accuracy")}});
    readers.push_back({{"reader", is_identity_map(map) ? scheme : scheme + "+" + map},
                       {"scheme", scheme},
                       {"map", map},
                       {"mean", row.at("mean")},
                       {"half_width", row.at("half_width")},
                       {"seeds", seeds}});
  }
  json published = json::object();
  if (results.contains("reference") && results["reference"].is_object() && results["reference"].contains("rows"))
    published = results["reference"]["rows"];
  return {{"source", path}, {"lengths", results.at("lengths")}, {"readers", readers}, {"published", published}};
}

json filing_view(const json& lab) {
  json readers = json::array();
  for (auto& r : lab.at("readers"))
    readers.push_back({{"reader", r.at("reader")}, {"seed", r.at("seed")}, {"answers", r.at("answers")}});
  const json& doc = lab.at("document");
  return {{"words", doc.at("words")},       {"marks", doc.at("marks")},   {"companies", doc.at("companies")},
          {"targets", doc.at("targets")},   {"kind", doc.at("kind")},     {"last_mention", lab.at("last_mention")},
          {"window", 32},                   {"readers", readers},         {"why", lab.at("why")}};
}

}  // namespace

json lab_payload(const LabSources& s, bool progress) {
  const json theory = read_input(s.theory, "pe-bench analyze theory --out results/theory.json, or make run");
  const json tournament = read_input(s.tournament_results, "make run");
  const json lab = read_input(s.filings_lab, "make filings");
  json payload = {{"format", "pe-bench-lab"}, {"version", 1}};
  payload["sources"] = {{"theory", s.theory},
                        {"tournament_results", s.tournament_results},
                        {"tournament_runs", s.tournament_runs},
                        {"filings_lab", s.filings_lab}};
  payload["clock"] = clock_view();
  payload["ruler"] = ruler_view(theory);
  json scores, drift;
  head_views(s.tournament_runs, tournament.value("maps", json::array()), scores, drift, progress);
  payload["scores"] = scores;
  payload["drift"] = drift;
  payload["accuracy"] = accuracy_view(tournament, s.tournament_results);
  payload["census"] = census_view();
  payload["filing"] = filing_view(lab);
  return payload;
}

}  // namespace pe::lab
