#include "tasks/filings/evaluation.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <optional>

#include "core/build_info.h"
#include "core/errors.h"
#include "core/fpenv.h"
#include "core/parallel.h"
#include "core/progress.h"
#include "harness/checkpoint.h"
#include "harness/statistics.h"
#include "harness/task.h"
#include "schemes/frequency_maps.h"
#include "tasks/cue/checkpoint.h"
#include "tasks/cue/geometry.h"
#include "tasks/filings/data.h"
#include "tasks/filings/lab_filing.h"
#include "tasks/filings/reader.h"

namespace pe {

using nlohmann::json;

const FilingsCorpus& filings_corpus(uint64_t seed, int version) {
  static std::mutex mutex;
  static std::map<std::pair<uint64_t, int>, std::unique_ptr<FilingsCorpus>> cache;
  const std::lock_guard<std::mutex> lock(mutex);
  auto& c = cache[{seed, version}];
  if (!c) c = std::make_unique<FilingsCorpus>(generate_filings(seed, 300, 100, version));
  return *c;
}

namespace {

// The held-out queries, flattened: per document its tokens, targets and answer ages.
struct HeldOut {
  std::vector<std::vector<int>> tokens, targets, ages;
  long queries = 0, far_queries = 0;
  int longest = 0;
};
HeldOut held_out_queries(const std::vector<FilingsDocument>& docs, int far) {
  HeldOut h;
  for (auto& d : docs) {
    h.tokens.push_back(filings_tokens(d));
    h.targets.push_back(d.targets());
    h.ages.push_back(filings_answer_ages(d));
    for (int a : h.ages.back()) h.queries += (a >= 0), h.far_queries += (a > far);
    h.longest = std::max(h.longest, int(d.words.size()));
  }
  return h;
}

// What one reader (a checkpoint under a map) scored, and where its ALiBi horizon falls.
struct QueryCounts {
  std::string map;
  bool readable = true;  // false: the scheme has no representation for some position (learned table)
  long correct = 0, far_correct = 0;
  long inside = 0, inside_correct = 0, beyond = 0, beyond_correct = 0;                  // ALiBi heads, map none
  long own_inside = 0, own_inside_correct = 0, own_beyond = 0, own_beyond_correct = 0;  // each query's own W
  void add(const QueryCounts& x) {
    correct += x.correct, far_correct += x.far_correct;
    inside += x.inside, inside_correct += x.inside_correct, beyond += x.beyond, beyond_correct += x.beyond_correct;
    own_inside += x.own_inside, own_inside_correct += x.own_inside_correct;
    own_beyond += x.own_beyond, own_beyond_correct += x.own_beyond_correct;
  }
};

struct Loaded {
  LoadedCheckpoint cp;
  std::string scheme;
  int seed = 0, train_length = 0;
  bool plans = false;
};

Loaded load_filings_checkpoint(const std::string& path) {
  Loaded l{load_checkpoint(path, "filings", HeadInput{false, kFilingsSymbols}), "", 0, 0, false};
  l.scheme = l.cp.model->config().scheme.name;
  l.seed = l.cp.meta.at("training").value("seed", 0);
  l.train_length = l.cp.meta.at("training").value("train_length", 0);
  l.plans = l.cp.model->scheme().accepts_frequency_plan();
  if (l.train_length < 2) throw CheckpointError(fmt::format("checkpoint {}: no training.train_length", path));
  return l;
}

// Counts the answers against the targets; `reach`: also the queries inside half the horizon and
// beyond it — the head's (its widest W) and the query's own (its token's W) — where the query's
// offset from its answer is age + offset, and the token it reads with is query_tokens[t].
void score(const std::vector<int>& pred, const std::vector<int>& targets, const std::vector<int>& ages, int far,
           const std::optional<AlibiReach>& reach, int offset, const std::vector<int>& query_tokens, QueryCounts& r) {
  for (size_t t = 0; t < pred.size(); ++t) {
    if (targets[t] < 0) continue;
    const bool ok = pred[t] == targets[t];
    r.correct += ok;
    if (ages[t] > far) r.far_correct += ok;
    if (reach) {
      const double age = ages[t] + offset, h = reach->horizon();
      if (age <= h / 2) r.inside++, r.inside_correct += ok;
      if (age > h) r.beyond++, r.beyond_correct += ok;
      const double own = reach->own_horizon(query_tokens[t]);
      if (age <= own / 2) r.own_inside++, r.own_inside_correct += ok;
      if (age > own) r.own_beyond++, r.own_beyond_correct += ok;
    }
  }
}

json ratio(long k, long n) { return n ? json(double(k) / double(n)) : json(nullptr); }

json horizon_json(const std::string& trained_on, const Loaded& l, const AlibiReach& reach, const QueryCounts& r) {
  return {{"trained_on", trained_on},
          {"checkpoint", l.cp.path},
          {"seed", l.seed},
          {"content_width", reach.width},
          {"slope", reach.slope},
          {"horizon", reach.horizon()},
          {"queries_inside_half_horizon", r.inside},
          {"accuracy_inside_half_horizon", ratio(r.inside_correct, r.inside)},
          {"queries_beyond_horizon", r.beyond},
          {"accuracy_beyond_horizon", ratio(r.beyond_correct, r.beyond)},
          {"own_horizon",
           {{"queries_inside_half", r.own_inside},
            {"accuracy_inside_half", ratio(r.own_inside_correct, r.own_inside)},
            {"queries_beyond", r.own_beyond},
            {"accuracy_beyond", ratio(r.own_beyond_correct, r.own_beyond)}}}};
}

}  // namespace

json evaluate_filings(const std::vector<std::string>& paths, const FilingsSettings& s, bool progress) {
  const FilingsCorpus& corpus = filings_corpus(s.corpus_seed, s.corpus_version);
  const HeldOut h = held_out_queries(corpus.held_out, s.far);
  std::vector<Loaded> cps;
  for (auto& p : paths) cps.push_back(load_filings_checkpoint(p));
  // every checkpoint under each of its maps, one checkpoint per thread (its scheme's plan changes per document)
  std::vector<std::vector<QueryCounts>> readings(cps.size());
  Progress line(!progress);
  std::atomic<int> done{0};
#pragma omp parallel for schedule(dynamic, 1) if (!in_parallel())
  for (size_t c = 0; c < cps.size(); ++c) {
    const ScopedFlushToZero ftz;
    CueHead<float>& m = *cps[c].cp.model;
    const std::optional<AlibiReach> reach = alibi_reach(m);
    std::vector<MapSpec> maps = {identity_spec()};
    for (auto& map : s.maps)
      if (map_is_read(map, cps[c].plans)) maps.push_back(map);
    CueWorkspace<float> ws;
    for (auto& map : maps) {
      QueryCounts r;
      r.map = map.written;
      r.readable = m.scheme().can_read(h.longest - 1);
      for (size_t d = 0; r.readable && d < h.tokens.size(); ++d) {
        plan_for_document(m, map, cps[c].train_length, int(h.tokens[d].size()));
        score(read_one_pass(m, h.tokens[d], ws), h.targets[d], h.ages[d], s.far,
              map.is_identity() ? reach : std::nullopt, 0, h.tokens[d], r);
      }
      readings[c].push_back(r);
    }
    line.update(
        fmt::format("[eval] read {}/{} checkpoints on {} held-out documents", ++done, cps.size(), h.tokens.size()));
  }
  line.done();

  const json held_out_stats = filings_statistics(corpus.held_out, s.far);
  json j = {{"format", "pe-bench-results"},
            {"version", 1},
            {"task", "filings"},
            {"metric", "accuracy"},
            {"maps", s.maps},
            {"corpus_seed", s.corpus_seed},
            {"corpus_version", s.corpus_version},
            {"columns", {"all", "far"}},
            {"far", s.far},
            {"documents", corpus.held_out.size()},
            {"queries", h.queries},
            {"far_queries", h.far_queries},
            {"corpus", {{"train", filings_statistics(corpus.train, s.far)}, {"held_out", held_out_stats}}},
            {"build", build_info_json()}};
  // the first company named, always (the answer with symbol 0)
  j["first_company"] = {held_out_stats.at("first_company_accuracy"), held_out_stats.at("first_company_far_accuracy")};
  // a rule that needs no positions: the company named most so far
  const auto most = most_named_so_far_accuracy(corpus.held_out, s.far);
  j["most_named_so_far"] = {most[0], most[1]};

  // rows: schemes in registry order, seeds ascending; each map's row after its scheme's
  json rows = json::array();
  for (auto& info : scheme_list()) {
    std::vector<size_t> mine;
    for (size_t c = 0; c < cps.size(); ++c)
      if (cps[c].scheme == info.name) mine.push_back(c);
    std::sort(mine.begin(), mine.end(), [&](size_t a, size_t b) {
      return std::tie(cps[a].seed, cps[a].cp.path) < std::tie(cps[b].seed, cps[b].cp.path);
    });
    if (mine.empty()) continue;
    for (size_t k = 0; k < readings[mine.front()].size(); ++k) {
      json row = {{"scheme", info.name}, {"map", readings[mine.front()][k].map}};
      json seeds = json::array();
      bool readable = true;
      std::vector<double> all, far;
      for (size_t c : mine) {
        const QueryCounts& r = readings[c].at(k);
        readable = readable && r.readable;
        const double a = double(r.correct) / double(h.queries), f = double(r.far_correct) / double(h.far_queries);
        all.push_back(a), far.push_back(f);
        seeds.push_back({{"seed", cps[c].seed},
                         {"checkpoint", cps[c].cp.path},
                         {"accuracy", r.readable ? json{a, f} : json{nullptr, nullptr}},
                         {"correct", r.readable ? json{r.correct, r.far_correct} : json{nullptr, nullptr}}});
      }
      json mean = json::array(), sd = json::array(), seed_hw = json::array(), test_se = json::array(),
           hw = json::array();
      for (int col = 0; col < 2; ++col) {
        if (!readable) {
          for (json* a : {&mean, &sd, &seed_hw, &test_se, &hw}) a->push_back(nullptr);
          continue;
        }
        const long n = col == 0 ? h.queries : h.far_queries;
        const stats::Summary sum = stats::summarize(col == 0 ? all : far);
        mean.push_back(sum.mean);
        sd.push_back(sum.sd);
        seed_hw.push_back(sum.half_width);
        test_se.push_back(stats::test_set_se(sum.mean, int(n)));
        hw.push_back(stats::accuracy_half_width(sum, int(n)));
      }
      row["mean"] = mean, row["sd"] = sd, row["seed_half_width"] = seed_hw, row["test_se"] = test_se;
      row["half_width"] = hw, row["seeds"] = seeds;
      rows.push_back(row);
    }
  }
  j["rows"] = rows;
  add_filings_intervals(j);

  // the ALiBi horizon table: the filings heads (from the readings above), then the cue-trained ones
  json horizons = json::array();
  for (size_t c = 0; c < cps.size(); ++c)
    if (const auto reach = alibi_reach(*cps[c].cp.model))
      horizons.push_back(horizon_json("filings", cps[c], *reach, readings[c].front()));
  if (!s.cue_runs.empty()) {
    std::vector<Loaded> cue;
    for (auto& p : find_checkpoints(s.cue_runs, "cue")) {
      Loaded l{load_checkpoint(p, "cue"), "", 0, 0, false};
      l.seed = l.cp.meta.at("training").value("seed", 0);
      if (!alibi_reach(*l.cp.model)) continue;
      if (l.cp.model->config().task.alphabet != kFilingsSymbols)  // its symbols would not be the documents'
        throw CheckpointError(
            fmt::format("checkpoint {} (horizon_cue_runs): its head reads {} symbols but the "
                        "filings documents use {}; point horizon_cue_runs at cue runs trained "
                        "with alphabet {}",
                        p, l.cp.model->config().task.alphabet, kFilingsSymbols, kFilingsSymbols));
      cue.push_back(std::move(l));
    }
    if (cue.empty())
      throw DataError(
          fmt::format("horizon_cue_runs: {} holds no ALiBi cue checkpoint; train the tournament first "
                      "(make run) or set horizon_cue_runs to \"\"",
                      s.cue_runs));
    std::vector<QueryCounts> r(cue.size() * h.tokens.size());
    std::vector<AlibiReach> reaches;
    for (auto& l : cue) l.cp.model->prepare(h.longest + 1), reaches.push_back(*alibi_reach(*l.cp.model));
#pragma omp parallel for schedule(dynamic, 1) if (!in_parallel())
    for (size_t k = 0; k < r.size(); ++k) {
      const ScopedFlushToZero ftz;
      const size_t c = k / h.tokens.size(), d = k % h.tokens.size();
      const CueHead<float>& m = *cue[c].cp.model;
      // the query token sits one past the position it asks about, and reads every position
      score(read_with_query_token(m, h.tokens[d]), h.targets[d], h.ages[d], s.far, reaches[c], 1,
            std::vector<int>(h.tokens[d].size(), m.config().task.query_token_id()), r[k]);
    }
    for (size_t c = 0; c < cue.size(); ++c) {
      QueryCounts total;
      for (size_t d = 0; d < h.tokens.size(); ++d) total.add(r[c * h.tokens.size() + d]);
      json entry = horizon_json("cue", cue[c], reaches[c], total);
      entry["accuracy"] = {double(total.correct) / double(h.queries),
                           double(total.far_correct) / double(h.far_queries)};
      horizons.push_back(entry);
    }
  }
  j["alibi_horizons"] = horizons;
  return j;
}

namespace {

// Every reader (every checkpoint, and RoPE under each map) on one document, in the table's order:
// schemes in registry order, each map after its scheme, seeds ascending.
json read_document(const std::vector<std::string>& paths, const FilingsSettings& s, const FilingsDocument& doc) {
  const std::vector<int> tokens = filings_tokens(doc);
  std::vector<Loaded> cps;
  for (auto& p : paths) cps.push_back(load_filings_checkpoint(p));
  json readers = json::array();
  for (auto& info : scheme_list()) {
    std::vector<Loaded*> mine;
    for (auto& l : cps)
      if (l.scheme == info.name) mine.push_back(&l);
    if (mine.empty()) continue;
    std::sort(mine.begin(), mine.end(),
              [](auto* a, auto* b) { return std::tie(a->seed, a->cp.path) < std::tie(b->seed, b->cp.path); });
    std::vector<MapSpec> maps = {identity_spec()};
    for (auto& map : s.maps)
      if (map_is_read(map, mine.front()->plans)) maps.push_back(map);
    CueWorkspace<float> ws;
    for (auto& map : maps)
      for (Loaded* l : mine) {
        CueHead<float>& m = *l->cp.model;
        if (!m.scheme().can_read(int(doc.words.size()) - 1)) continue;
        plan_for_document(m, map, l->train_length, int(doc.words.size()));
        readers.push_back({{"reader", map.label(l->scheme)},
                           {"scheme", l->scheme},
                           {"map", map},
                           {"seed", l->seed},
                           {"checkpoint", l->cp.path},
                           {"answers", read_one_pass(m, tokens, ws)}});
      }
  }
  return readers;
}

json document_json(const FilingsDocument& doc) {
  return {{"id", doc.id},
          {"kind", doc.kind},
          {"words", doc.words},
          {"symbols", doc.symbols},
          {"marks", std::vector<int>(doc.marks.begin(), doc.marks.end())},
          {"companies", doc.companies},
          {"targets", doc.targets()},
          {"ages", filings_answer_ages(doc)}};
}

}  // namespace

json filings_document_json(const std::vector<std::string>& paths, const FilingsSettings& s) {
  const FilingsCorpus& corpus = filings_corpus(s.corpus_seed, s.corpus_version);
  const HeldOut h = held_out_queries(corpus.held_out, s.far);
  size_t pick = 0;
  long most = -1;
  for (size_t d = 0; d < h.ages.size(); ++d) {
    const long far = std::count_if(h.ages[d].begin(), h.ages[d].end(), [&](int a) { return a > s.far; });
    if (far > most) most = far, pick = d;
  }
  const FilingsDocument& doc = corpus.held_out[pick];
  return {{"format", "pe-bench-filings-document"},
          {"version", 1},
          {"corpus_seed", s.corpus_seed},
          {"corpus_version", s.corpus_version},
          {"why", fmt::format("the held-out document with the most queries whose answer is more than {} tokens back "
                              "({} of {})",
                              s.far, most,
                              std::count_if(h.ages[pick].begin(), h.ages[pick].end(), [](int a) { return a >= 0; }))},
          {"far", s.far},
          {"document", document_json(doc)},
          {"readers", read_document(paths, s, doc)},
          {"build", build_info_json()}};
}

json lab_filing_json(const std::vector<std::string>& paths, const FilingsSettings& s) {
  const FilingsDocument doc = lab_filing();
  json readers = read_document(paths, s, doc);
  // from the last mention on, how often each reader answers each company
  const std::vector<int> targets = doc.targets();
  const int last =
      int(doc.words.size()) - 1 - int(std::find(doc.marks.rbegin(), doc.marks.rend(), 1) - doc.marks.rbegin());
  for (auto& r : readers) {
    std::vector<int> counts(doc.companies.size(), 0);
    for (size_t i = size_t(last); i < doc.words.size(); ++i) {
      const int a = r["answers"][i].get<int>();
      if (a >= 0 && a < int(counts.size())) ++counts[size_t(a)];
    }
    r["answers_from_last_mention"] = counts;
  }
  return {{"format", "pe-bench-filings-document"},
          {"version", 1},
          {"why",
           fmt::format("the laboratory's filing (tasks.md section 2): {} tokens; {} is named last, at token {}, "
                       "and is the answer at the {} positions from there on",
                       doc.words.size(), doc.companies[size_t(targets.back())], last, doc.words.size() - size_t(last))},
          {"far", s.far},
          {"last_mention", last},
          {"document", document_json(doc)},
          {"readers", readers},
          {"build", build_info_json()}};
}

namespace {
// "0.912 [0.905, 0.919]": the mean and its 95% interval (files from before the logit intervals: the
// mean alone, since their symmetric half-width can pass 0 and 1)
std::string pm(const json& row, size_t col) {
  const json& m = row["mean"][col];
  if (m.is_null()) return "—";
  if (!row.contains("lo") || row["lo"][col].is_null()) return fmt::format("{:.3f}", m.get<double>());
  return stats::proportion_cell(m.get<double>(), row["lo"][col].get<double>(), row["hi"][col].get<double>());
}
bool filings_has_intervals(const json& r) { return !r["rows"].empty() && r["rows"][0].contains("lo"); }
std::string num(const json& v, int decimals = 3) {
  return v.is_null() ? "—" : fmt::format("{:.{}f}", v.get<double>(), decimals);
}
// Published figure of a reader (reference rows), or "n/a".
std::string published(const json& results, const std::string& key, size_t col) {
  const json ref = results.value("reference", json());
  if (!ref.is_object() || !ref.contains("rows") || !ref["rows"].contains(key)) return "n/a";
  return num(ref["rows"][key][col]);
}
std::string horizon_line(const json& e) {
  const json& own = e["own_horizon"];
  return fmt::format(
      "{:<8} seed {:<3} W = {:5.2f}  s = {:<5} horizon {:6.1f}   inside half: {} of {:>6}   beyond: {} "
      "of {:>6}   (own W: inside half {} of {:>6}, beyond {} of {:>6})",
      e["trained_on"].get<std::string>(), e["seed"].get<int>(), e["content_width"].get<double>(),
      e["slope"].get<double>(), e["horizon"].get<double>(), num(e["accuracy_inside_half_horizon"]),
      e["queries_inside_half_horizon"].get<long>(), num(e["accuracy_beyond_horizon"]),
      e["queries_beyond_horizon"].get<long>(), num(own["accuracy_inside_half"]), own["queries_inside_half"].get<long>(),
      num(own["accuracy_beyond"]), own["queries_beyond"].get<long>());
}
}  // namespace

std::string format_filings_table(const json& r) {
  std::string s = fmt::format(
      "filings: accuracy on the {} held-out documents' {} queries (all) and the {} whose answer is more than {} "
      "tokens back (far); mean of the seeds [95% interval], each seed below\n",
      r["documents"].get<int>(), r["queries"].get<long>(), r["far_queries"].get<long>(), r["far"].get<int>());
  s += fmt::format("{:<22}{:>22}{:>22}\n", "reader", "all", "far");
  for (auto& row : r["rows"]) {
    const std::string all = pm(row, 0), far = pm(row, 1);
    s += fmt::format("{:<22}{:>{}}{:>{}}\n", reader_label(row, " + "), all, 22 + (all == "—" ? 2 : 0), far,
                     22 + (far == "—" ? 2 : 0));
    for (auto& sd : row["seeds"])
      s += fmt::format("{:<22}{:>22}{:>22}\n", fmt::format("    seed {}", sd["seed"].get<int>()),
                       num(sd["accuracy"][0]), num(sd["accuracy"][1]));
  }
  s += fmt::format("{:<22}{:>22}{:>22}\n", "first company named", num(r["first_company"][0]),
                   num(r["first_company"][1]));
  if (r.contains("most_named_so_far"))
    s += fmt::format("{:<22}{:>22}{:>22}\n", "most named so far*", num(r["most_named_so_far"][0]),
                     num(r["most_named_so_far"][1]));
  if (r.contains("most_named_so_far"))
    s += "* answering the company named most often so far (ties split evenly): a rule that needs no positions\n";
  if (!r["maps"].empty())
    s += "rope + map: the same checkpoints read with a context-extension map at kappa = document length / training "
         "length\n";
  if (!r["alibi_horizons"].empty()) {
    s += "\nALiBi heads: content width W, horizon W/s; accuracy on the held-out queries inside half the horizon and "
         "beyond it (queries)\n";
    for (auto& e : r["alibi_horizons"]) s += "  " + horizon_line(e) + "\n";
  }
  if (filings_has_intervals(r))
    s += "[lo, hi]: " + r["interval"].get<std::string>() + " (N = the queries of the column)\n";
  return s;
}

std::string format_filings_markdown(const json& r) {
  const json ref = r.value("reference", json());
  std::string s = fmt::format(
      "# Filings case study: which company was named last?\n\n"
      "Accuracy on the {} held-out documents (corpus seed {}, generator version {}): all {} queries, and the {} whose "
      "answer is more than "
      "{} tokens back. Mean of the seeds [its 95% interval]. Each cell: **pe-bench** / published "
      "(the published corpus is not available; pe-bench generates its own, so the pattern is the target, not the "
      "digits).\n\n| reader | all queries | answer more than {} back |\n|---|---|---|\n",
      r["documents"].get<int>(), r["corpus_seed"].get<long long>(), r.value("corpus_version", 1),
      r["queries"].get<long>(), r["far_queries"].get<long>(), r["far"].get<int>(), r["far"].get<int>());
  for (auto& row : r["rows"]) {
    const std::string key = reader_label(row);
    s += fmt::format("| {} | **{}** / {} | **{}** / {} |\n", key, pm(row, 0), published(r, key, 0), pm(row, 1),
                     published(r, key, 1));
  }
  s += fmt::format("| first company named (always) | **{}** | **{}** |\n", num(r["first_company"][0]),
                   num(r["first_company"][1]));
  if (r.contains("most_named_so_far"))
    s += fmt::format(
        "| company named most so far (ties split; a rule that needs no positions) | **{}** | "
        "**{}** |\n",
        num(r["most_named_so_far"][0]), num(r["most_named_so_far"][1]));
  if (ref.is_object() && ref.contains("queries"))
    s += fmt::format("\nPublished: {} queries, {} with the answer more than 32 back; pe-bench: {} and {}.\n",
                     ref["queries"].get<long>(), ref["far_queries"].get<long>(), r["queries"].get<long>(),
                     r["far_queries"].get<long>());
  // the corpus beside the published one's shape
  const json& c = r["corpus"]["held_out"];
  const json& t = r["corpus"]["train"];
  s += "\n## The corpus\n\n| statistic | training | held-out | published corpus |\n|---|---|---|---|\n";
  auto target = [&](const char* key) -> std::string {
    return ref.is_object() && ref.contains("corpus") && ref["corpus"].contains(key)
               ? ref["corpus"][key].get<std::string>()
               : "n/a";
  };
  s += fmt::format("| documents | {} | {} | 300 / 100 |\n", t["documents"].get<int>(), c["documents"].get<int>());
  auto quartiles = [&](const json& q) { return fmt::format("{} ({}–{})", num(q[1], 0), num(q[0], 0), num(q[2], 0)); };
  s += fmt::format("| document length in tokens, median (quartiles) | {} | {} | {} |\n",
                   quartiles(t["length_quartiles"]), quartiles(c["length_quartiles"]), target("length"));
  s += fmt::format("| company mentions per document, median (quartiles) | {} | {} | {} |\n",
                   quartiles(t["mentions_quartiles"]), quartiles(c["mentions_quartiles"]), target("mentions"));
  s += fmt::format("| queries | {} | {} | {} |\n", t["queries"].get<long>(), c["queries"].get<long>(),
                   target("queries"));
  s += fmt::format("| share with the answer more than 32 back | {} | {} | {} |\n", num(t["far_share"]),
                   num(c["far_share"]), target("far_share"));
  s += fmt::format("| always answering the first company named | {} | {} | {} |\n", num(t["first_company_accuracy"]),
                   num(c["first_company_accuracy"]), target("first_company_accuracy"));
  s += fmt::format("| ... on the queries with the answer more than 32 back | {} | {} | {} |\n",
                   num(t["first_company_far_accuracy"]), num(c["first_company_far_accuracy"]),
                   target("first_company_far_accuracy"));
  if (!r["alibi_horizons"].empty()) {
    s += "\n## ALiBi horizons\n\nContent width W (the widest spread of a query's content scores over the keys), "
         "slope s, horizon W/s; accuracy on the held-out queries whose answer is at most half the horizon back, and "
         "more than the horizon back (query counts in brackets); and the same with each query's own horizon (its "
         "token's spread W_x over s: a filings head's queries are every token, a cue head's its query token, so its "
         "own horizon is the head's). A cue-trained head reads each position as the document so far followed by its "
         "query token, so its offsets count from one past the position.\n\n"
         "| trained on | seed | W | s | W/s | inside half the horizon | beyond the horizon | inside half its own | "
         "beyond its own |\n|---|---|---|---|---|---|---|---|---|\n";
    for (auto& e : r["alibi_horizons"]) {
      const json& own = e["own_horizon"];
      s += fmt::format("| {} | {} | {:.2f} | {} | {:.1f} | {} ({}) | {} ({}) | {} ({}) | {} ({}) |\n",
                       e["trained_on"].get<std::string>(), e["seed"].get<int>(), e["content_width"].get<double>(),
                       e["slope"].get<double>(), e["horizon"].get<double>(), num(e["accuracy_inside_half_horizon"]),
                       e["queries_inside_half_horizon"].get<long>(), num(e["accuracy_beyond_horizon"]),
                       e["queries_beyond_horizon"].get<long>(), num(own["accuracy_inside_half"]),
                       own["queries_inside_half"].get<long>(), num(own["accuracy_beyond"]),
                       own["queries_beyond"].get<long>());
    }
    if (ref.is_object() && ref.contains("horizons")) s += "\nPublished: " + ref["horizons"].get<std::string>() + "\n";
  }
  s += "\n## Each seed\n\n| reader | seed | all | far |\n|---|---|---|---|\n";
  for (auto& row : r["rows"])
    for (auto& sd : row["seeds"])
      s += fmt::format("| {} | {} | {} | {} |\n", reader_label(row), sd["seed"].get<int>(), num(sd["accuracy"][0]),
                       num(sd["accuracy"][1]));
  if (ref.is_object() && ref.contains("source")) s += "\nPublished figures: " + ref["source"].get<std::string>() + "\n";
  if (filings_has_intervals(r))
    s += "\n[lo, hi]: " + r["interval"].get<std::string>() +
         " (N = the queries of the column; docs/results-format.md, "
         "\"Intervals\").\n";
  return s + native_build_note(r);
}

void add_filings_intervals(json& results) {
  const long n[2] = {results.at("queries").get<long>(), results.at("far_queries").get<long>()};
  for (auto& row : results.at("rows")) {
    json lo = json::array(), hi = json::array();
    for (int col = 0; col < 2; ++col) {
      std::vector<double> v;
      for (auto& sd : row.at("seeds"))
        if (!sd.at("accuracy")[col].is_null()) v.push_back(sd.at("accuracy")[col]);
      if (v.empty() || v.size() != row.at("seeds").size() || n[col] < 1) {
        lo.push_back(nullptr), hi.push_back(nullptr);
        continue;
      }
      const stats::ProportionInterval iv = stats::proportion_interval(v, n[col]);
      lo.push_back(iv.lo), hi.push_back(iv.hi);
    }
    row["lo"] = lo, row["hi"] = hi;
  }
  results["interval"] = stats::kProportionIntervalMethod;
}

std::string compare_filings_readers(const json& results, const std::string& a, const std::string& b) {
  const json &ra = find_reader_row(results, a), &rb = find_reader_row(results, b);
  std::map<int, std::pair<json, json>> by_seed;
  for (auto& sd : ra["seeds"]) by_seed[sd["seed"].get<int>()].first = sd["accuracy"];
  for (auto& sd : rb["seeds"]) by_seed[sd["seed"].get<int>()].second = sd["accuracy"];
  std::string out;
  const char* names[2] = {"all queries", "far queries"};
  for (int col = 0; col < 2; ++col) {
    std::vector<double> x, y;
    for (auto& [seed, p] : by_seed)
      if (!p.first.is_null() && !p.second.is_null() && !p.first[col].is_null() && !p.second[col].is_null())
        x.push_back(p.first[col]), y.push_back(p.second[col]);
    if (x.size() < 2) {
      out += fmt::format("{} − {} on {}: fewer than 2 seeds read by both; no interval\n", a, b, names[col]);
      continue;
    }
    const stats::PairedT t = stats::paired_t(x, y);
    out += fmt::format("{} − {} on {}: across seeds (paired t, {} df): {:+.3f} [{:+.3f}, {:+.3f}]  p = {:.3g}\n", a, b,
                       names[col], t.n - 1, t.mean_diff, t.lo, t.hi, t.p_value);
    // each reader's own accuracy over these seeds, with the interval of a proportion
    const long n = results.at(col == 0 ? "queries" : "far_queries").get<long>();
    const stats::ProportionInterval ia = stats::proportion_interval(x, n), ib = stats::proportion_interval(y, n);
    out += fmt::format(
        "  {}: {}, {}: {} (95% intervals of each proportion: logit scale, seeds and {} queries; "
        "docs/results-format.md)\n",
        a, stats::proportion_cell(ia.mean, ia.lo, ia.hi), b, stats::proportion_cell(ib.mean, ib.lo, ib.hi), n);
  }
  return out;
}

}  // namespace pe
