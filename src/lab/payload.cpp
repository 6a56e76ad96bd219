#include "lab/payload.h"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <optional>
#include <set>

#include "core/errors.h"
#include "core/files.h"
#include "core/progress.h"
#include "harness/checkpoint.h"
#include "harness/config.h"
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
          (d / "filings/lab_filing.json").string(), (d / "failures/results.json").string()};
}

namespace {

// A message that may quote the input, on one line: control characters, and the separators U+0085,
// U+2028 and U+2029 (which some readers take for line ends), as spaces.
std::string one_line(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 || c == 0x7F) {
      out += ' ';
    } else if (c == 0xC2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) == 0x85) {
      out += ' ', ++i;
    } else if (c == 0xE2 && i + 2 < s.size() && s[i + 1] == '\x80' && (s[i + 2] == '\xA8' || s[i + 2] == '\xA9')) {
      out += ' ', i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

// An input file, parsed strictly (parse_json: a key twice in an object is refused).
json read_input(const std::string& path, const std::string& make) {
  if (!std::filesystem::is_regular_file(path))
    throw DataError(one_line(fmt::format(
        "{} is missing; make it first ({}) or point --results at a results directory that has it", path, make)));
  try {
    return parse_json(read_file(path));
  } catch (const json::exception& e) {
    throw DataError(one_line(fmt::format("{} is not JSON ({}); make it again ({})", path, e.what(), make)));
  }
}

// ---- the checks of an input file: every key the laboratory reads, by its path in the file ----------

// A value in an input file: the file and the key that holds it ("rows[2].mean[0]"). Every check
// throws DataError "<file>: <key> <what is wrong>, got <value>": one line, exit 4.
struct Key {
  const std::string* file;
  std::string path;

  Key operator/(const std::string& name) const { return {file, path.empty() ? name : path + "." + name}; }
  Key operator[](size_t i) const { return {file, fmt::format("{}[{}]", path, i)}; }
  std::string name() const { return path.empty() ? "the top level" : path; }

  [[noreturn]] void fail(const std::string& what) const {
    throw DataError(one_line(fmt::format("{}: {} {}", *file, name(), what)));
  }
  [[noreturn]] void fail(const std::string& what, const json& got) const {
    // the value as ASCII JSON (every other character a \u escape), cut short
    std::string text = got.dump(-1, ' ', true);
    if (text.size() > 60) text = text.substr(0, 57) + "...";
    fail(fmt::format("{}, got {}", what, text));
  }
};

Key top(const std::string& file) { return {&file, ""}; }
// A key the input file names (a reference row's reader): quoted as JSON, so the message stays one line.
Key named(const Key& parent, const std::string& name) {
  return {parent.file, parent.path + "[" + json(name).dump(-1, ' ', true) + "]"};
}

const json& object(const json& v, const Key& k) {
  if (!v.is_object()) k.fail("must be an object", v);
  return v;
}
// obj[name] (obj an object the caller has checked), or DataError naming the key when it is missing.
const json& member(const json& obj, const Key& parent, const std::string& name) {
  const auto it = obj.find(name);
  if (it == obj.end()) (parent / name).fail("is missing");
  return *it;
}
// A list of min..max entries.
const json& list(const json& v, const Key& k, size_t min, size_t max) {
  if (!v.is_array()) k.fail("must be a list", v);
  if (v.size() < min || v.size() > max)
    k.fail(min == max ? fmt::format("must hold {} entries (it holds {})", min, v.size())
                      : fmt::format("must hold {} to {} entries (it holds {})", min, max, v.size()));
  return v;
}
// A finite number in [lo, hi] ((lo, hi] when lo_open).
double number(const json& v, const Key& k, double lo, double hi, bool lo_open = false) {
  const bool ok = v.is_number() && std::isfinite(v.get<double>()) &&
                  (lo_open ? v.get<double>() > lo : v.get<double>() >= lo) && v.get<double>() <= hi;
  if (!ok) k.fail(fmt::format("must be a number in {}{}, {}]", lo_open ? "(" : "[", lo, hi), v);
  return v.get<double>();
}
// Accuracies and their intervals: a number in [lo, hi] or null (no reading at that length).
void number_or_null(const json& v, const Key& k, double lo, double hi) {
  if (!v.is_null() &&
      !(v.is_number() && std::isfinite(v.get<double>()) && v.get<double>() >= lo && v.get<double>() <= hi))
    k.fail(fmt::format("must be a number in [{}, {}] or null", lo, hi), v);
}
// An integer in [lo, hi], range-checked before it is narrowed (get<int> would cut 2^32 + 1 to 1).
long long integer(const json& v, const Key& k, long long lo, long long hi) {
  bool ok = false;
  if (v.is_number_unsigned()) {
    const unsigned long long u = v.get<unsigned long long>();
    ok = hi >= 0 && u <= static_cast<unsigned long long>(hi) && static_cast<long long>(u) >= lo;
  } else if (v.is_number_integer()) {
    ok = v.get<long long>() >= lo && v.get<long long>() <= hi;
  }
  if (!ok) k.fail(fmt::format("must be an integer in [{}, {}]", lo, hi), v);
  return v.get<long long>();
}
// A string of 1..max bytes.
const json& text(const json& v, const Key& k, size_t max) {
  if (!v.is_string() || v.get_ref<const std::string&>().empty() || v.get_ref<const std::string&>().size() > max)
    k.fail(fmt::format("must be a string of 1 to {} bytes", max), v);
  return v;
}

// The bounds (docs/lab.md, "What the page embeds and how"): every size read from an input.
constexpr size_t kMaxName = 200;                           // a scheme, map, reader, company or word; a reference key
constexpr size_t kMaxSentence = 2000;                      // the filing's why
constexpr size_t kMaxRulerRows = 64, kMaxRulerWidths = 8;  // theory.json's log_ruler rows, widths per row
constexpr int kMaxRulerWidth = 65536;                      // d of a ruler curve: 161 offsets x d/2 planes each
constexpr double kMaxBase = 1e12;                          // the ruler's base b, in [2, 1e12]
constexpr double kMaxRulerOffset = 1e4;                    // the ruler's grid: offsets 1..10^4
constexpr size_t kMaxLengths = 64, kMaxRows = 256, kMaxSeeds = 1000, kMaxMaps = 16;  // results.json
constexpr size_t kMaxReferenceRows = 256, kMaxReferenceCells = 64;
constexpr size_t kMaxWords = 4096, kMaxCompanies = 64, kMaxFilingReaders = 256;  // lab_filing.json
constexpr size_t kMaxFaults = 64, kMaxInvariants = 64;                           // failures/results.json
constexpr double kMaxPerplexity = 1e12;

// ---- the views ----------------------------------------------------------------------------------------

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
// offsets; theory.json's own table rides along (the points the page marks). Reads theory.json's
// log_ruler: base, rows[].{delta, limit, line, by_d[].{d, ratio}}.
json ruler_view(const json& theory, const std::string& file) {
  const Key root = top(file), t = root / "log_ruler";
  const json& table = object(member(object(theory, root), root, "log_ruler"), t);
  const double b = number(member(table, t, "base"), t / "base", 2, kMaxBase);
  const json& rows = list(member(table, t, "rows"), t / "rows", 1, kMaxRulerRows);
  json theory_rows = json::array();
  std::vector<int> dims;
  for (size_t i = 0; i < rows.size(); ++i) {
    const Key r = (t / "rows")[i];
    const json& row = object(rows[i], r);
    json out = json::object();
    for (const char* k : {"delta", "limit", "line"}) out[k] = member(row, r, k);
    number(out["delta"], r / "delta", 1, kMaxRulerOffset);
    number(out["limit"], r / "limit", -1, 1);
    number(out["line"], r / "line", -1e6, 1e6);
    const json& by_d = list(member(row, r, "by_d"), r / "by_d", 1, kMaxRulerWidths);
    out["by_d"] = json::array();
    for (size_t j = 0; j < by_d.size(); ++j) {
      const Key w = (r / "by_d")[j];
      const json& x = object(by_d[j], w);
      const long long d = integer(member(x, w, "d"), w / "d", 2, kMaxRulerWidth);
      if (d % 2) (w / "d").fail("must be even (a code of d/2 planes)", x["d"]);
      number(member(x, w, "ratio"), w / "ratio", -1, 1);
      out["by_d"].push_back({{"d", x["d"]}, {"ratio", x["ratio"]}});
      if (i == 0) dims.push_back(int(d));
    }
    theory_rows.push_back(out);
  }
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
  return {{"base", table["base"]}, {"deltas", deltas}, {"limit", limit},
          {"line", line},          {"curves", curves}, {"theory_rows", theory_rows}};
}

// Figure B's census: every map of the table that rescales frequencies, at kappa 2, 4, 8, 16.
json census_view() {
  std::vector<MapSpec> maps;
  for (auto& m : frequency_maps())
    if (!bare_map(m).is_identity() && !m.takes_value && !m.scales_logits_by_length) maps.push_back(bare_map(m));
  return theory::wavelength_census_report(16, 32, kDefaultBase, {2.0, 4.0, 8.0, 16.0}, maps);
}

json optional_values(const std::vector<std::optional<double>>& v) {
  json out = json::array();
  for (auto& x : v) out.push_back(x ? json(*x) : json(nullptr));
  return out;
}

// Every tournament head's score curve (and under each map the results read it with that its scheme
// reads: RoPE's every one, every scheme's logn), the
// drift of a sinusoidal head against RoPE's, from the checkpoints (checked by their loader).
void head_views(const std::string& runs, const std::vector<MapSpec>& maps, json& scores, json& drift, bool progress) {
  if (!std::filesystem::is_directory(runs))
    throw DataError(fmt::format("{} is missing; train the tournament first (make run)", runs));
  std::vector<std::string> paths;
  try {
    paths = find_checkpoints(runs);
  } catch (const UsageError& e) {  // none there, or one being written: the input is not there yet
    throw DataError(e.what());
  }
  Progress line(!progress);
  json readers = json::array(), drifts = json::array();
  int done = 0, trained_at = 0;
  for (auto& path : paths) {
    LoadedCheckpoint cp = load_checkpoint(path);
    CueHead<float>& m = *cp.model;
    const std::string scheme = cp.meta.at("scheme").at("name");
    const int seed = cp.meta.at("training").at("seed");
    const int train_length = cp.meta.at("training").at("train_length");
    if (train_length >= kScoreLength)
      throw DataError(
          fmt::format("{}: training.train_length is {}; the laboratory reads heads at {} tokens, past "
                      "their training length, and takes heads trained at 2 to {}",
                      path, train_length, kScoreLength, kScoreLength - 1));
    if (trained_at && train_length != trained_at)
      throw DataError(fmt::format("{} was trained at {} tokens, the heads before it at {}: one tournament at a time",
                                  path, train_length, trained_at));
    trained_at = train_length;
    std::vector<MapSpec> readings = {identity_spec()};  // and each map the scheme reads (logn: every scheme)
    for (auto& map : maps)
      if (m.scheme().reads_map(map)) readings.push_back(map);
    for (auto& map : readings) {
      m.scheme().read_with(map, train_length, kScoreLength);
      m.prepare(kScoreLength);
      int read = 0;
      const auto curve = score_by_age(m, kScoreLength, &read);
      readers.push_back({{"reader", map.label(scheme)},
                         {"scheme", scheme},
                         {"map", map},
                         {"seed", seed},
                         {"query_position", read - 1},
                         {"checkpoint", path},
                         {"score_by_age", optional_values(curve)}});
    }
    m.scheme().read_with(identity_spec(), train_length, kScoreLength);
    m.prepare(kScoreLength);
    const std::vector<double> d = score_by_position(m, kDriftAge, kScoreLength - 1);
    if (!d.empty()) drifts.push_back({{"scheme", scheme}, {"seed", seed}, {"checkpoint", path}, {"scores", d}});
    line.update(fmt::format("[lab] read {}/{} tournament heads", ++done, paths.size()));
  }
  line.done();
  scores = {{"length", kScoreLength}, {"train_length", trained_at}, {"readers", readers}};
  drift = {{"age", kDriftAge}, {"first_position", kDriftAge}, {"readers", drifts}};
}

// The maps the tournament re-read RoPE with (results.json's maps, optional): each a map this build
// knows (not the identity, which every head is read with anyway), each once.
std::vector<MapSpec> tournament_maps(const json& results, const std::string& file) {
  const Key root = top(file), k = root / "maps";
  std::vector<MapSpec> maps;
  if (!results.contains("maps")) return maps;
  const json& list_ = list(results["maps"], k, 0, kMaxMaps);
  for (size_t i = 0; i < list_.size(); ++i) {
    MapSpec map;
    try {
      map = parse_map(text(list_[i], k[i], kMaxName));
    } catch (const UsageError& e) {
      k[i].fail(fmt::format("is not a map this build reads ({})", one_line(e.what())));
    }
    if (map.is_identity()) k[i].fail("must be a map that rescales (every head is read without one anyway)", list_[i]);
    if (std::find(maps.begin(), maps.end(), map) != maps.end()) k[i].fail("repeats an earlier map", list_[i]);
    maps.push_back(map);
  }
  return maps;
}

// Accuracy by length. Reads results.json's task (to name it in a message), test_sequences, lengths,
// rows[].{scheme, map, mean, lo, hi, seeds[].{seed, accuracy}} and reference.rows (the published
// figures, carried to lab.json). What makes a results file the tournament's is its shape, not its task
// name (nothing outside a task's folder tests the name): the cue task's results alone hold
// test_sequences (its shared test set), and another task's file is refused there, naming its task.
json accuracy_view(const json& results, const std::string& file) {
  const Key root = top(file);
  object(results, root);
  const std::string task = text(member(results, root, "task"), root / "task", kMaxName);
  if (!results.contains("test_sequences"))
    (root / "test_sequences")
        .fail(fmt::format("is missing: the laboratory reads the tournament's results (accuracy by length on one shared "
                          "test set), and this file is the {} task's",
                          json(task).dump(-1, ' ', true)));
  const json& test_sequences = results["test_sequences"];
  integer(test_sequences, root / "test_sequences", 1, kMaxTestSequences);
  const json& lengths = list(member(results, root, "lengths"), root / "lengths", 1, kMaxLengths);
  for (size_t i = 0; i < lengths.size(); ++i) {
    const long long n = integer(lengths[i], (root / "lengths")[i], 2, kMaxLength);
    if (i > 0 && n <= lengths[i - 1].get<long long>())
      (root / "lengths")[i].fail("must be longer than the length before it", lengths[i]);
  }
  const json& rows = list(member(results, root, "rows"), root / "rows", 1, kMaxRows);
  json readers = json::array();
  for (size_t i = 0; i < rows.size(); ++i) {
    const Key r = (root / "rows")[i];
    const json& row = object(rows[i], r);
    const std::string scheme = text(member(row, r, "scheme"), r / "scheme", kMaxName);
    const std::string map =
        row.contains("map") ? text(row["map"], r / "map", kMaxName).get<std::string>() : identity_map();
    // a proportion per length, or null (no reading at that length)
    const auto per_length = [&](const json& v, const Key& k) -> const json& {
      list(v, k, lengths.size(), lengths.size());
      for (size_t j = 0; j < v.size(); ++j) number_or_null(v[j], k[j], 0, 1);
      return v;
    };
    const json& mean = per_length(member(row, r, "mean"), r / "mean");
    // the mean's 95% interval (docs/results-format.md, "Intervals"): lo <= mean <= hi, all in [0, 1],
    // null exactly where the mean is
    const json& lo = per_length(member(row, r, "lo"), r / "lo");
    const json& hi = per_length(member(row, r, "hi"), r / "hi");
    for (size_t j = 0; j < mean.size(); ++j) {
      if (mean[j].is_null()) {
        if (!lo[j].is_null()) (r / "lo")[j].fail("must be null where the mean is null", lo[j]);
        if (!hi[j].is_null()) (r / "hi")[j].fail("must be null where the mean is null", hi[j]);
        continue;
      }
      const double m = mean[j].get<double>();
      if (lo[j].is_null() || lo[j].get<double>() > m)
        (r / "lo")[j].fail(fmt::format("must be a number in [0, {}] (at most the mean {})", m, m), lo[j]);
      if (hi[j].is_null() || hi[j].get<double>() < m)
        (r / "hi")[j].fail(fmt::format("must be a number in [{}, 1] (at least the mean {})", m, m), hi[j]);
    }
    const json& seed_rows = list(member(row, r, "seeds"), r / "seeds", 1, kMaxSeeds);
    json seeds = json::array();
    for (size_t j = 0; j < seed_rows.size(); ++j) {
      const Key s = (r / "seeds")[j];
      const json& x = object(seed_rows[j], s);
      integer(member(x, s, "seed"), s / "seed", 0, kMaxSeed);
      per_length(member(x, s, "accuracy"), s / "accuracy");
      seeds.push_back({{"seed", x["seed"]}, {"accuracy", x["accuracy"]}});
    }
    readers.push_back({{"reader", is_identity_map(map) ? scheme : scheme + "+" + map},
                       {"scheme", scheme},
                       {"map", map},
                       {"mean", mean},
                       {"lo", lo},
                       {"hi", hi},
                       {"seeds", seeds}});
  }
  json published = json::object();
  if (results.contains("reference") && results["reference"].is_object() && results["reference"].contains("rows")) {
    const Key k = root / "reference" / "rows";
    const json& ref = object(results["reference"]["rows"], k);
    if (ref.size() > kMaxReferenceRows)
      k.fail(fmt::format("must hold at most {} readers (it holds {})", kMaxReferenceRows, ref.size()));
    for (auto& [name, cells] : ref.items()) {
      if (name.empty() || name.size() > kMaxName)
        k.fail(fmt::format("must name its readers in 1 to {} bytes", kMaxName), json(name));
      const Key row = named(k, name);
      list(cells, row, 0, kMaxReferenceCells);
      for (size_t j = 0; j < cells.size(); ++j)
        if (!cells[j].is_null() && !(cells[j].is_string() && cells[j].get_ref<const std::string&>().size() <= 16) &&
            !(cells[j].is_number() && std::isfinite(cells[j].get<double>())))
          row[j].fail("must be a number, null or a short note of at most 16 bytes (\"n/a\")", cells[j]);
    }
    published = ref;
  }
  return {{"source", file},
          {"lengths", lengths},
          {"test_sequences", test_sequences},
          {"readers", readers},
          {"published", published}};
}

// One filing. Reads lab_filing.json's document.{words, marks, companies, targets, kind}, last_mention,
// why and readers[].{reader, seed, answers}.
json filing_view(const json& lab, const std::string& file) {
  const Key root = top(file), dk = root / "document";
  object(lab, root);
  const json& doc = object(member(lab, root, "document"), dk);
  const json& words = list(member(doc, dk, "words"), dk / "words", 1, kMaxWords);
  for (size_t i = 0; i < words.size(); ++i) text(words[i], (dk / "words")[i], kMaxName);
  const size_t n = words.size();
  const json& companies = list(member(doc, dk, "companies"), dk / "companies", 1, kMaxCompanies);
  for (size_t i = 0; i < companies.size(); ++i) text(companies[i], (dk / "companies")[i], kMaxName);
  const long long last_company = static_cast<long long>(companies.size()) - 1;
  const json& marks = list(member(doc, dk, "marks"), dk / "marks", n, n);
  for (size_t i = 0; i < n; ++i) integer(marks[i], (dk / "marks")[i], 0, 1);
  // -1: no company named yet
  const json& targets = list(member(doc, dk, "targets"), dk / "targets", n, n);
  for (size_t i = 0; i < n; ++i) integer(targets[i], (dk / "targets")[i], -1, last_company);
  text(member(doc, dk, "kind"), dk / "kind", kMaxName);
  const json& last = member(lab, root, "last_mention");
  const long long at = integer(last, root / "last_mention", 0, static_cast<long long>(n) - 1);
  bool last_mark = marks[size_t(at)] == 1;
  for (size_t i = size_t(at) + 1; i < n; ++i) last_mark = last_mark && marks[i] == 0;
  if (!last_mark)
    (root / "last_mention").fail("must be the position of the document's last mention (its last mark)", last);
  text(member(lab, root, "why"), root / "why", kMaxSentence);
  const json& list_ = list(member(lab, root, "readers"), root / "readers", 0, kMaxFilingReaders);
  json readers = json::array();
  for (size_t i = 0; i < list_.size(); ++i) {
    const Key r = (root / "readers")[i];
    const json& x = object(list_[i], r);
    text(member(x, r, "reader"), r / "reader", kMaxName);
    integer(member(x, r, "seed"), r / "seed", 0, kMaxSeed);
    const json& answers = list(member(x, r, "answers"), r / "answers", n, n);
    for (size_t j = 0; j < n; ++j) integer(answers[j], (r / "answers")[j], -1, last_company);
    readers.push_back({{"reader", x["reader"]}, {"seed", x["seed"]}, {"answers", answers}});
  }
  return {{"words", words},     {"marks", marks},      {"companies", companies},
          {"targets", targets}, {"kind", doc["kind"]}, {"last_mention", last},
          {"window", 32},       {"readers", readers},  {"why", lab["why"]}};
}

// The failure lab (pe-bench failures, docs/failures.md). Reads faults[].{number, name, words, fix, models} and,
// for a fault read on any model, metric, higher_is_better, lengths and models[].{scheme, control, seeds,
// correct, faulty, doctor.{length, caught_by, refused}}; seeds.
json failures_view(const json& r, const std::string& file) {
  const Key root = top(file);
  object(r, root);
  const long long seeds = integer(member(r, root, "seeds"), root / "seeds", 1, static_cast<long long>(kMaxSeeds));
  const json& faults = list(member(r, root, "faults"), root / "faults", 1, kMaxFaults);
  json out = json::array();
  for (size_t i = 0; i < faults.size(); ++i) {
    const Key fk = (root / "faults")[i];
    const json& f = object(faults[i], fk);
    json v = {{"number", integer(member(f, fk, "number"), fk / "number", 1, 99)},
              {"name", text(member(f, fk, "name"), fk / "name", kMaxName)},
              {"words", text(member(f, fk, "words"), fk / "words", kMaxSentence)},
              {"fix", text(member(f, fk, "fix"), fk / "fix", kMaxSentence)},
              {"models", json::array()}};
    // the reading the fault is measured against (a lab written before faults inside a map's reading: as trained)
    v["correct"] = f.contains("correct") ? text(f["correct"], fk / "correct", kMaxSentence) : "the model as trained";
    const json& models = list(member(f, fk, "models"), fk / "models", 0, kMaxRows);
    if (!models.empty()) {
      v["metric"] = text(member(f, fk, "metric"), fk / "metric", kMaxName);
      const json& better = member(f, fk, "higher_is_better");
      if (!better.is_boolean()) (fk / "higher_is_better").fail("must be true or false", better);
      v["higher_is_better"] = better;
      const json& lengths = list(member(f, fk, "lengths"), fk / "lengths", 1, kMaxLengths);
      for (size_t j = 0; j < lengths.size(); ++j) integer(lengths[j], (fk / "lengths")[j], 1, 1 << 20);
      v["lengths"] = lengths;
      // an accuracy in [0, 1]; a perplexity in [1, 10^12] (it is never below 1: the page draws its log)
      const double low_score = better.get<bool>() ? 0 : 1, top_score = better.get<bool>() ? 1 : kMaxPerplexity;
      for (size_t m = 0; m < models.size(); ++m) {
        const Key mk = (fk / "models")[m];
        const json& x = object(models[m], mk);
        const json& control = member(x, mk, "control");
        if (!control.is_boolean()) (mk / "control").fail("must be true or false", control);
        json row = {{"scheme", text(member(x, mk, "scheme"), mk / "scheme", kMaxName)},
                    {"control", control},
                    {"seeds", integer(member(x, mk, "seeds"), mk / "seeds", 1, static_cast<long long>(kMaxSeeds))}};
        for (const char* which : {"correct", "faulty"}) {
          const json& scores = list(member(x, mk, which), mk / which, lengths.size(), lengths.size());
          for (size_t j = 0; j < scores.size(); ++j) number_or_null(scores[j], (mk / which)[j], low_score, top_score);
          row[which] = scores;
        }
        const Key dk = mk / "doctor";
        const json& doctor = object(member(x, mk, "doctor"), dk);
        row["doctor_length"] = integer(member(doctor, dk, "length"), dk / "length", 1, 1 << 20);
        for (const char* which : {"caught_by", "refused"}) {
          const json& names = list(member(doctor, dk, which), dk / which, 0, kMaxInvariants);
          for (size_t j = 0; j < names.size(); ++j) text(names[j], (dk / which)[j], kMaxName);
          row[which] = names;
        }
        v["models"].push_back(row);
      }
    }
    out.push_back(v);
  }
  return {{"seeds", seeds}, {"faults", out}};
}

}  // namespace

json lab_payload(const LabSources& s, bool progress) {
  const json theory = read_input(s.theory, "pe-bench analyze theory --out results/theory.json, or make run");
  const json tournament = read_input(s.tournament_results, "make run");
  const json lab = read_input(s.filings_lab, "make filings");
  const json failures = read_input(s.failures, "make failures");
  json payload = {{"format", "pe-bench-lab"}, {"version", 1}};
  payload["sources"] = {{"theory", s.theory},
                        {"tournament_results", s.tournament_results},
                        {"tournament_runs", s.tournament_runs},
                        {"filings_lab", s.filings_lab},
                        {"failures", s.failures}};
  // every input file is checked before the heads are read (the slow part)
  payload["ruler"] = ruler_view(theory, s.theory);
  payload["accuracy"] = accuracy_view(tournament, s.tournament_results);
  const std::vector<MapSpec> maps = tournament_maps(tournament, s.tournament_results);
  payload["filing"] = filing_view(lab, s.filings_lab);
  payload["failures"] = failures_view(failures, s.failures);
  payload["clock"] = clock_view();
  json scores, drift;
  head_views(s.tournament_runs, maps, scores, drift, progress);
  payload["scores"] = scores;
  payload["drift"] = drift;
  payload["census"] = census_view();
  return payload;
}

}  // namespace pe::lab
