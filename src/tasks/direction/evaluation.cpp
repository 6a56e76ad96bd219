#include "tasks/direction/evaluation.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "core/build_info.h"

#include "tasks/cue/checkpoint.h"
#include "tasks/cue/score_curves.h"
#include "tasks/direction/data.h"

namespace pe {

using nlohmann::json;

namespace {

// The two readings of each head's scores: the query at the middle of the training window, and of a
// sequence of 129 tokens (offsets -64 .. +64; none for a head whose table stops short of it).
constexpr int kWideLength = 129;

json score_curve(const CueHead<float>& model, int length) {
  const std::vector<double> s = score_by_offset(model, length, length / 2);
  if (s.empty()) return nullptr;
  json out = json::array();
  for (double v : s) out.push_back(v);
  return out;
}

// Mean over k = 1..K of |score(-k) - score(+k)| (how much the head tells the sides apart), K the
// shorter side of a curve whose query sits at row length / 2.
std::optional<double> side_gap(const json& curve) {
  if (curve.is_null()) return std::nullopt;
  const int n = int(curve.size()), q = n / 2, K = std::min(q, n - 1 - q);
  double sum = 0;
  for (int k = 1; k <= K; ++k) sum += std::fabs(curve[q - k].get<double>() - curve[q + k].get<double>());
  return sum / K;
}

json geometry(const json& rows, int train_length) {
  json out = {{"window", {{"length", train_length}, {"query_row", train_length / 2}}},
              {"wide", {{"length", kWideLength}, {"query_row", kWideLength / 2}}},
              {"score",
               "the head's score of the query token against a marked key (q.k/sqrt(d) and the scheme's "
               "terms, before the softmax), averaged over the marked symbols; entry t: the key at row t, "
               "signed offset t - query_row"}};
  json heads = json::array();
  for (auto& row : rows) {
    if (!is_identity_map(row.at("map"))) continue;
    for (auto& sd : row.at("seeds")) {
      const LoadedCheckpoint cp = load_checkpoint(sd.at("checkpoint"), "direction");
      cp.model->prepare(cp.model->scheme().can_read(kWideLength - 1) ? std::max(kWideLength, train_length)
                                                                     : train_length);
      const json window = score_curve(*cp.model, train_length), wide = score_curve(*cp.model, kWideLength);
      const auto gap = side_gap(window);
      heads.push_back({{"scheme", row.at("scheme")},
                       {"seed", sd.at("seed")},
                       {"window", window},
                       {"wide", wide},
                       {"side_gap", gap ? json(*gap) : json(nullptr)}});
    }
  }
  out["heads"] = heads;
  return out;
}

}  // namespace

// (no exact best reader without positions by counting: the bag reader on the test set stands for it)
HeadTestStream direction_stream() { return {"direction", direction_test_set, cue_bag_reader_accuracy, {}}; }

json evaluate_direction(const std::vector<std::string>& checkpoints, const ExperimentConfig& e, bool progress) {
  const EvalSettings s{e.eval_lengths, e.value("test_sequences"), e.value("test_seed"), e.maps};
  const Evaluation ev = evaluate_checkpoints(checkpoints, s, progress, direction_stream());
  json results = results_json(ev, s, direction_stream());
  json distance = json::array();
  for (int n : s.lengths)
    distance.push_back(direction_distance_reader_accuracy(
        ev.task, direction_test_set(ev.task, uint64_t(s.test_seed), n, s.test_sequences)));
  results["direction_rule"] = ev.task.rule;
  results["distance_reader_on_test_set"] = distance;
  results["geometry"] = geometry(results.at("rows"), e.train_length);
  results["experiment"] = e.resolved;
  return results;
}

namespace {

std::string reader_note(const json& r) {
  return r.at("direction_rule") == "before"
             ? "the symbol of the nearest mark on either side: the Bayes rule for `before` when the side is unseen "
               "(tasks/direction/data.h)"
             : "the symbol of the nearest mark on either side: the answer itself";
}

// The readers' rows: (label, values per length).
std::vector<std::pair<std::string, json>> exact_readers(const json& r) {
  return {{"bag reader (no positions)", r.at("bag_reader_on_test_set")},
          {"unsigned-distance reader", r.at("distance_reader_on_test_set")}};
}

}  // namespace

std::string format_direction_table(const json& r) {
  std::string s = fmt::format(
      "direction task, rule {}: accuracy on {} test sequences per length (test seed {}); mean of the seeds "
      "[95% interval]\n",
      r.at("direction_rule").get<std::string>(), r["test_sequences"].get<int>(), r["test_seed"].get<long long>());
  s += fmt::format("{:<28}", "reader");
  for (auto& n : r["lengths"]) s += fmt::format("{:>22}", n.get<int>());
  s += fmt::format("{:>10}\n", "side gap");
  std::map<std::string, std::vector<double>> gaps;
  for (auto& h : r.at("geometry").at("heads"))
    if (!h.at("side_gap").is_null()) gaps[h.at("scheme")].push_back(h.at("side_gap"));
  for (auto& row : r["rows"]) {
    s += fmt::format("{:<28}", reader_label(row, " + "));
    for (size_t li = 0; li < row["mean"].size(); ++li) {
      const std::string t = accuracy_cell_text(row, li);
      s += fmt::format("  {:>{}}", t, 20 + (t == "—" ? 2 : 0));
    }
    const auto& g = gaps[row.at("scheme")];
    double mean = 0;
    for (double v : g) mean += v / g.size();
    s += is_identity_map(row.at("map")) && !g.empty() ? fmt::format("{:>10.3f}", mean) : "";
    s += "\n";
  }
  for (auto& [label, values] : exact_readers(r)) {
    s += fmt::format("{:<28}", label);
    for (auto& v : values) s += fmt::format("  {:>20.3f}", v.get<double>());
    s += "\n";
  }
  s += fmt::format(
      "bag reader: the most frequent marked symbol, ties split (no positions); unsigned-distance reader: {}; both on "
      "these very test sequences\n",
      reader_note(r));
  s += "side gap: mean over k = 1..15 of |score(-k) - score(+k)| at the middle of the training window (seeds' mean)\n";
  s += "— the learned table has no row for these positions\n";
  if (r.contains("interval")) s += fmt::format("[lo, hi]: {}\n", r["interval"].get<std::string>());
  return s;
}

std::string format_direction_markdown(const json& r) {
  const std::string rule = r.at("direction_rule");
  std::string s = fmt::format(
      "# Direction task ({}): accuracy by test length\n\nA bidirectional head per scheme, trained at {} with the query "
      "token at a random row and marks on both sides; the answer is the symbol of the nearest mark {}. Mean of the "
      "seeds [its 95% interval], {} test sequences per length (the same for every scheme and seed).\n\n",
      rule, r.at("experiment").value("train_length", 32),
      rule == "before" ? "**before** the query (signed)" : "on **either** side (unsigned)",
      r["test_sequences"].get<int>());
  if (r.contains("interval"))
    s += fmt::format("Interval: {} (docs/results-format.md).\n\n", r["interval"].get<std::string>());
  s += lengths_header({"reader"}, r["lengths"]);
  for (auto& row : r["rows"]) {
    s += fmt::format("| {} |", reader_label(row, "+"));
    for (size_t li = 0; li < row["mean"].size(); ++li) s += fmt::format(" {} |", accuracy_cell_text(row, li));
    s += "\n";
  }
  for (auto& [label, values] : exact_readers(r)) {
    s += fmt::format("| *{}* |", label);
    for (auto& v : values) s += fmt::format(" {:.3f} |", v.get<double>());
    s += "\n";
  }
  s += fmt::format(
      "\nBag reader: the most frequent marked symbol, ties split evenly — what a reader without positions can do. "
      "Unsigned-distance reader: {}. Both scored on these very test sequences.\n",
      reader_note(r));
  s += "\n## Score against signed offset\n\nEach head's score of the query token for a marked key, at offsets "
       "-k and +k from a query in the middle of the training window: `side gap` is the mean over k of "
       "|score(-k) - score(+k)| (0: the head cannot tell the sides apart). The curves are in results.json "
       "(`geometry`).\n\n| scheme | seed | side gap | score(-1) | score(+1) | score(-8) | score(+8) |\n"
       "|---|---|---|---|---|---|---|\n";
  for (auto& h : r.at("geometry").at("heads")) {
    const json& c = h.at("window");
    if (c.is_null()) continue;
    const int q = int(c.size()) / 2;
    s += fmt::format("| {} | {} | {:.3f} | {:.3f} | {:.3f} | {:.3f} | {:.3f} |\n", h.at("scheme").get<std::string>(),
                     h.at("seed").get<int>(), h.at("side_gap").get<double>(), c[q - 1].get<double>(),
                     c[q + 1].get<double>(), c[q - 8].get<double>(), c[q + 8].get<double>());
  }
  s += "\n## Each seed\n\n";
  s += lengths_header({"scheme", "seed"}, r["lengths"]);
  for (auto& row : r["rows"])
    for (auto& sd : row["seeds"]) {
      s += fmt::format("| {} | {} |", reader_label(row, "+"), sd["seed"].get<int>());
      for (auto& v : sd["accuracy"]) s += v.is_null() ? " — |" : fmt::format(" {:.3f} |", v.get<double>());
      s += "\n";
    }
  s += "\n— : the learned table has no row for these positions (not evaluated, never clamped).\n";
  return s + native_build_note(r);
}

}  // namespace pe
