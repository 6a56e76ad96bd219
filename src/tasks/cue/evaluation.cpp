#include "tasks/cue/evaluation.h"

#include "harness/statistics.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>

#include "core/build_info.h"
#include "core/errors.h"
#include "core/fpenv.h"
#include "core/parallel.h"
#include "core/progress.h"
#include "harness/task.h"
#include "schemes/scheme.h"
#include "tasks/cue/checkpoint.h"
#include "theory/exact_reader.h"

namespace pe {

using nlohmann::json;

std::optional<double> cue_accuracy(const CueHead<float>& model, const CueBatch& test, int p0,
                                   std::vector<int>* predictions) {
  // the positions read: p0 .. p0+T-1, or each sequence's own below position_range (randomised positions)
  const bool own_positions = test.position_range > 0;
  if (own_positions && (p0 != 0 || test.positions.size() != size_t(test.B) * test.T))
    throw Error("cue_accuracy: a test set's positions are one per token, from p0 0");
  const int span = p0 + test.position_span();
  if (!model.scheme().can_read(span - 1)) return std::nullopt;
  if (predictions) predictions->assign(test.B, -1);
  if (!test.query_rows.empty() && test.query_rows.size() != size_t(test.B))
    throw Error("cue_accuracy: a test set's query rows are one per sequence");
  constexpr int kChunk = 100;
  const int chunks = (test.B + kChunk - 1) / kChunk;
  std::vector<int> correct(chunks, 0);
  CueTables<float> tables;  // the same for every chunk: made once
  {
    const ScopedFlushToZero ftz;
    model.prepare_tables(test.position_span(), p0, false, tables, !own_positions);
  }
#pragma omp parallel for schedule(dynamic) if (!in_parallel() && chunks > 1)
  for (int c = 0; c < chunks; ++c) {
    const ScopedFlushToZero ftz;
    CueWorkspace<float> ws;
    ws.shared = &tables;
    const int b0 = c * kChunk, nb = std::min(kChunk, test.B - b0);
    if (!test.query_rows.empty()) ws.query_rows = test.query_rows.data() + b0;
    if (own_positions) ws.positions = test.positions.data() + size_t(b0) * test.T;
    correct[c] = model
                     .forward(&test.tokens[size_t(b0) * test.T], &test.targets[b0], nb, test.T, ws,
                              predictions ? predictions->data() + b0 : nullptr, p0)
                     .correct;
  }
  int total = 0;
  for (int c : correct) total += c;
  return double(total) / test.B;
}

Evaluation evaluate_checkpoints(const std::vector<std::string>& paths, const EvalSettings& s, bool progress,
                                const HeadTestStream& stream) {
  std::vector<LoadedCheckpoint> cps;
  for (auto& p : paths) cps.push_back(load_checkpoint(p, stream.task));
  const CueTaskConfig task = cps.front().model->config().task;
  for (auto& c : cps)
    if (c.model->config().task.alphabet != task.alphabet || c.model->config().task.mark_prob != task.mark_prob ||
        c.model->config().task.rule != task.rule)
      throw UsageError(fmt::format("{} was trained on other task settings than {}; evaluate them separately", c.path,
                                   cps.front().path));
  // group by scheme in registry order, seeds ascending; each map's rows follow their scheme's row
  std::vector<SchemeResult> rows;
  for (auto& info : scheme_list()) {
    SchemeResult r{info.name, identity_spec(), {}};
    bool plans = false;
    for (auto& c : cps)
      if (c.model->config().scheme.name == info.name) {
        r.seeds.push_back({c.meta.at("training").value("seed", 0), c.path, {}});
        plans |= c.model->scheme().accepts_frequency_plan();
      }
    std::sort(r.seeds.begin(), r.seeds.end(),
              [](auto& a, auto& b) { return a.seed < b.seed || (a.seed == b.seed && a.checkpoint < b.checkpoint); });
    if (r.seeds.empty()) continue;
    rows.push_back(r);
    for (auto& m : s.maps)
      if (map_is_read(m, plans)) {
        r.map = m;
        rows.push_back(r);
      }
  }
  // randomised positions (harness/random_positions.h): read as trained, each test sequence at a sorted draw of
  // [0, R); one R per call, so that every row reads the same draws
  const int range = cps.front().random_positions;
  for (auto& c : cps) {
    const int r = c.random_positions;
    if (r != range)
      throw UsageError(fmt::format("{} was trained with random_positions {} but {} with {}; evaluate them separately",
                                   c.path, r, cps.front().path, range));
    for (int n : s.lengths) check_positions_hold(c, n);
  }
  std::map<std::string, CueHead<float>*> by_path;
  std::map<std::string, int> train_len;
  for (auto& c : cps) {
    by_path[c.path] = c.model.get();
    train_len[c.path] = c.meta.at("training").value("train_length", 0);
    if (train_len[c.path] < 2 && std::any_of(s.maps.begin(), s.maps.end(), [&](const MapSpec& m) {
          return !m.is_identity() && c.model->scheme().reads_map(m);
        }))
      throw CheckpointError(fmt::format("checkpoint {}: no training.train_length, needed to rescale", c.path));
  }
  Progress line(!progress);
  std::vector<double> bag_reader;
  for (size_t li = 0; li < s.lengths.size(); ++li) {
    const int n = s.lengths[li];
    CueBatch test = stream.test_set(task, uint64_t(s.test_seed), n, s.test_sequences);
    if (range > 0) cue_test_positions(test, uint64_t(s.test_seed), range);  // as every checkpoint was trained
    bag_reader.push_back(stream.bag_reader(task, test));
    for (auto& r : rows)
      for (auto& sd : r.seeds) {
        CueHead<float>* m = by_path.at(sd.checkpoint);
        m->scheme().read_with(r.map, train_len.at(sd.checkpoint), n);  // this reading's plan
        m->prepare(test.position_span());
        sd.accuracy.push_back(cue_accuracy(*m, test));
      }
    line.update(fmt::format("[eval] length {} done ({}/{})", n, li + 1, s.lengths.size()));
  }
  line.done();
  return {std::move(rows), task, std::move(bag_reader), range};
}

namespace {
json opt(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

std::optional<double> mean_of(const std::vector<SeedResult>& seeds, size_t li) {
  double sum = 0;
  for (auto& s : seeds) {
    if (!s.accuracy[li]) return std::nullopt;
    sum += *s.accuracy[li];
  }
  return sum / seeds.size();
}

}  // namespace

std::string lengths_header(const std::vector<std::string>& lead, const json& lengths) {
  std::string s = "|", rule = "|";
  for (auto& c : lead) s += " " + c + " |", rule += "---|";
  for (auto& n : lengths) s += fmt::format(" {} |", n.get<int>()), rule += "---|";
  return s + "\n" + rule + "\n";
}

namespace {

std::string cell(const json& v, int width = 7) {
  return v.is_null() ? fmt::format("{:>{}}", "—", width + 2) : fmt::format("{:>{}.3f}", v.get<double>(), width);
}

}  // namespace

// (files from before the logit intervals: the mean alone, since their symmetric half-width can pass 0 and 1)
std::string accuracy_cell_text(const json& row, size_t li) {
  const json& m = row["mean"][li];
  if (m.is_null()) return "—";
  if (!row.contains("lo") || row["lo"][li].is_null()) return fmt::format("{:.3f}", m.get<double>());
  return stats::proportion_cell(m.get<double>(), row["lo"][li].get<double>(), row["hi"][li].get<double>());
}

namespace {
std::string pm_cell(const json& row, size_t li) {
  const std::string t = accuracy_cell_text(row, li);
  const int bytes_over = t == "—" ? 2 : 0;  // "—" is one column wide but three bytes
  return fmt::format("{:>{}}", t, 20 + bytes_over);
}
}  // namespace

void add_cue_intervals(json& results) {
  const long n_test = results.at("test_sequences").get<long>();
  for (auto& row : results.at("rows")) {
    json lo = json::array(), hi = json::array();
    for (size_t li = 0; li < results.at("lengths").size(); ++li) {
      std::vector<double> v;
      for (auto& sd : row.at("seeds"))
        if (!sd.at("accuracy")[li].is_null()) v.push_back(sd.at("accuracy")[li]);
      if (v.empty() || v.size() != row.at("seeds").size()) {
        lo.push_back(nullptr), hi.push_back(nullptr);
        continue;
      }
      const stats::ProportionInterval iv = stats::proportion_interval(v, n_test);
      lo.push_back(iv.lo), hi.push_back(iv.hi);
    }
    row["lo"] = lo, row["hi"] = hi;
  }
  results["interval"] = stats::kProportionIntervalMethod;
}

json results_json(const Evaluation& ev, const EvalSettings& s, const HeadTestStream& stream) {
  const CueTaskConfig& task = ev.task;
  json j = {{"format", "pe-bench-results"},
            {"maps", s.maps},
            {"version", 1},
            {"task", stream.task},
            {"metric", "accuracy"},
            {"alphabet", task.alphabet},
            {"mark_prob", task.mark_prob},
            {"lengths", s.lengths},
            {"test_sequences", s.test_sequences},
            {"test_seed", s.test_seed},
            {"build", build_info_json()}};
  if (stream.exact_reader) {
    json exact = json::array();
    for (int n : s.lengths) exact.push_back(stream.exact_reader(task, n));
    j["exact_best_reader_without_positions"] = exact;
  }
  j["bag_reader_on_test_set"] = ev.bag_reader;
  if (ev.random_positions > 0) j["random_positions"] = ev.random_positions;
  json out = json::array();
  for (auto& r : ev.rows) {
    json row = {{"scheme", r.scheme}, {"map", r.map}};
    json mean = json::array(), seeds = json::array();
    for (size_t li = 0; li < s.lengths.size(); ++li) mean.push_back(opt(mean_of(r.seeds, li)));
    for (auto& sd : r.seeds) {
      json acc = json::array();
      for (auto& a : sd.accuracy) acc.push_back(opt(a));
      seeds.push_back({{"seed", sd.seed}, {"checkpoint", sd.checkpoint}, {"accuracy", acc}});
    }
    row["mean"] = mean;
    // per length: the seeds' spread, their t interval, the test set's own error, the interval
    json sd = json::array(), seed_hw = json::array(), test_se = json::array(), hw = json::array();
    for (size_t li = 0; li < s.lengths.size(); ++li) {
      if (!mean_of(r.seeds, li)) {
        for (json* a : {&sd, &seed_hw, &test_se, &hw}) a->push_back(nullptr);
        continue;
      }
      std::vector<double> v;
      for (auto& x : r.seeds) v.push_back(*x.accuracy[li]);
      const stats::Summary sum = stats::summarize(v);
      sd.push_back(sum.sd);
      seed_hw.push_back(sum.half_width);
      test_se.push_back(stats::test_set_se(sum.mean, s.test_sequences));
      hw.push_back(stats::accuracy_half_width(sum, s.test_sequences));
    }
    row["sd"] = sd;
    row["seed_half_width"] = seed_hw;
    row["test_se"] = test_se;
    row["half_width"] = hw;
    row["seeds"] = seeds;
    out.push_back(row);
  }
  j["rows"] = out;
  add_cue_intervals(j);
  return j;
}

std::string format_results_table(const json& r) {
  std::string s = fmt::format(
      "cue task: accuracy on {} test sequences per length (test seed {}); mean of the seeds "
      "[95% interval], each seed below\n",
      r["test_sequences"].get<int>(), r["test_seed"].get<long long>());
  s += fmt::format("{:<22}", "scheme");
  for (auto& n : r["lengths"]) s += fmt::format("{:>22}", n.get<int>());
  s += "\n";
  for (auto& row : r["rows"]) {
    s += fmt::format("{:<22}", reader_label(row, " + "));
    for (size_t li = 0; li < row["mean"].size(); ++li) s += "  " + pm_cell(row, li);
    s += "\n";
    for (auto& sd : row["seeds"]) {
      s += fmt::format("{:<22}", fmt::format("    seed {}", sd["seed"].get<int>()));
      for (auto& v : sd["accuracy"]) s += "  " + cell(v, 20);
      s += "\n";
    }
    if (scheme_info(row["scheme"]).positionless && is_identity_map(row["map"])) {
      s += fmt::format("{:<22}", "  exact best reader*");
      for (auto& v : r["exact_best_reader_without_positions"]) s += "  " + cell(v, 20);
      s += "\n";
      s += fmt::format("{:<22}", "  same, on test set**");
      for (auto& v : r["bag_reader_on_test_set"]) s += "  " + cell(v, 20);
      s += "\n";
    }
  }
  s += "* the best possible reader without positions (guesses the most frequent marked symbol), exact by counting\n";
  if (!r["maps"].empty())
    s += "scheme + map: the same checkpoints read with a context-extension map at kappa = length / training length\n";
  s += "** that reader's rule applied to these very test sequences (paired with the heads)\n";
  s += "— the learned table has no row for these positions\n";
  if (r.contains("random_positions"))
    s +=
        fmt::format("positions: every test sequence reads a sorted random draw of [0, {}), as the heads were trained\n",
                    r["random_positions"].get<int>());
  if (r.contains("interval") && r["rows"].size() && r["rows"][0].contains("lo"))
    s += "[lo, hi]: " + r["interval"].get<std::string>() + "\n";
  return s;
}

std::string format_results_markdown(const json& r, const json& ref) {
  auto published = [&](const std::string& key, size_t li) -> json {
    if (ref.is_null() || !ref.contains("rows") || !ref["rows"].contains(key)) return json("n/a");
    const json& v = ref["rows"][key];
    const int n = r["lengths"][li];
    const auto& lens = ref["lengths"];
    for (size_t k = 0; k < lens.size(); ++k)
      if (lens[k] == n) return v[k];
    return json("n/a");
  };
  auto md = [](const json& v) -> std::string {
    if (v.is_null()) return "—";
    if (v.is_string()) return v.get<std::string>();
    return fmt::format("{:.3f}", v.get<double>());
  };
  std::string s = fmt::format(
      "# Cue task: accuracy by test length\n\nMean of the seeds [its 95% interval], {} test "
      "sequences per length (the same sequences for every scheme and seed). Each cell: "
      "**pe-bench** / published.\n\n",
      r["test_sequences"].get<int>());
  if (r.contains("interval") && r["rows"].size() && r["rows"][0].contains("lo"))
    s += "Interval: " + r["interval"].get<std::string>() + " (docs/results-format.md, \"Intervals\").\n\n";
  if (r.contains("random_positions"))
    s += fmt::format(
        "Randomised positions: every training and test sequence reads a sorted random draw of [0, {}) as its "
        "positions (docs/tasks.md, \"Randomised positions\").\n\n",
        r["random_positions"].get<int>());
  s += lengths_header({"scheme"}, r["lengths"]);
  for (auto& row : r["rows"]) {
    const std::string key = reader_label(row, "+");
    s += "| " + key + " |";
    for (size_t li = 0; li < row["mean"].size(); ++li)
      s += fmt::format(" **{}** / {} |", accuracy_cell_text(row, li), md(published(key, li)));
    s += "\n";
    if (scheme_info(row["scheme"]).positionless && is_identity_map(row["map"])) {
      s += "| best reader without positions (exact) |";
      for (size_t li = 0; li < r["lengths"].size(); ++li)
        s += fmt::format(" **{}** / {} |", md(r["exact_best_reader_without_positions"][li]),
                         md(published("exact_best_reader", li)));
      s += "\n| same rule on these test sequences |";
      for (size_t li = 0; li < r["lengths"].size(); ++li)
        s += fmt::format(" **{}** |", md(r["bag_reader_on_test_set"][li]));
      s += "\n";
    }
  }
  s += "\n## Each seed\n\n";
  s += lengths_header({"scheme", "seed"}, r["lengths"]);
  for (auto& row : r["rows"]) {
    const std::string key = reader_label(row, "+");
    for (auto& sd : row["seeds"]) {
      s += fmt::format("| {} | {} |", key, sd["seed"].get<int>());
      for (auto& v : sd["accuracy"]) s += fmt::format(" {} |", md(v));
      s += "\n";
    }
  }
  if (!ref.is_null() && ref.contains("source")) s += "\nPublished figures: " + ref["source"].get<std::string>() + "\n";
  s += "\n— : the learned table has no row for these positions (not evaluated, never clamped).\n";
  if (r.contains("interval")) s += "\n± : " + r["interval"].get<std::string>() + ".\n";
  return s + native_build_note(r);
}

}  // namespace pe
