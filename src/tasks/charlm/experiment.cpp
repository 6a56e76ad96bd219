// The character-LM experiment end to end, and its tables.
#include <fmt/format.h>

#include "harness/reference.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "core/build_info.h"
#include "core/errors.h"
#include "core/files.h"
#include "core/progress.h"
#include "harness/random_positions.h"
#include "harness/statistics.h"
#include "harness/task.h"
#include "tasks/charlm/checkpoint.h"
#include "tasks/charlm/document_reading.h"
#include "tasks/charlm/documents.h"
#include "tasks/charlm/training.h"

namespace pe {

using nlohmann::json;

namespace {

// What one row of the table reads: a checkpoint, optionally through a map's plan, optionally banded.
struct Reading {
  std::string scheme;
  MapSpec map = identity_spec();  // the plan the angles are read with
  bool finetuned = false;
  bool cached = false;  // token by token through a key/value cache
  int band = 0;
  int seed = 0;
  std::string checkpoint;
  int memory = 0;            // > 0: read in segments of the training length with this segment memory (mem_len)
  std::string layout = "";   // one of read_layouts: isolated-reset, isolated-global, documents ("": the windows)
  int random_positions = 0;  // > 0: each window at positions drawn from [0, this), as the checkpoint was trained
};

// The windows a cached reading takes: cached_windows of them (0: every validation window).
int cached_windows(const ExperimentConfig& e) {
  const int n = e.value("cached_windows").get<int>(), all = charlm_settings(e).val_windows;
  return n > 0 ? std::min(n, all) : all;
}

json evaluate_reading(const Reading& rd, const ExperimentConfig& e, const CharCorpus& corpus, Progress& progress,
                      std::vector<double>* longest_positions) {
  LoadedCharLM loaded = load_charlm_checkpoint(rd.checkpoint);
  BlockStack<float>& model = *loaded.model;
  const int train_len = loaded.meta.at("training").at("train_length");
  const int longest = *std::max_element(e.eval_lengths.begin(), e.eval_lengths.end());
  if (!rd.finetuned)  // a fine-tuned checkpoint carries its own plan; a map stretches the length the
    // checkpoint was trained at
    model.scheme().read_with(rd.map, train_len, longest);
  // One pass at the longest length the model can read gives every length it can read (causality;
  // charlm_perplexities). A length past what it can read (a learned table with fewer rows) has no
  // figure, not a crash.
  const CharLMSettings cs = charlm_settings(e);
  const bool documents = rd.layout == "documents";
  const Packing layout = rd.layout.empty() || documents ? Packing::None : packing_from_name(rd.layout);
  std::vector<int> readable;
  for (int T : e.eval_lengths) {
    // the largest position a reading at T meets (reset positions: the longest piece's; drawn ones: up to L - 1)
    int last = rd.random_positions > 0 ? rd.random_positions - 1 : T - 1;
    if (layout == Packing::IsolatedReset) {
      last = 0;
      for (int w = 0; w < cs.val_windows; ++w)
        last = std::max(last, window_max_position(corpus, layout, cs.val_start + long(w) * cs.val_stride, T));
    }
    if (model.scheme().can_read(last)) readable.push_back(T);
  }
  std::string at;
  for (int T : readable) at += fmt::format("{}{}", at.empty() ? "" : "/", T);
  progress.update(fmt::format("[charlm] reading {} seed {}{}{}{} at {}", rd.scheme, rd.seed,
                              rd.map.is_identity() ? std::string() : fmt::format(" +{}", rd.map),
                              rd.band ? fmt::format(" band {}", rd.band) : "",
                              rd.cached            ? " (cached decoding)"
                              : rd.memory          ? fmt::format(" (memory {})", rd.memory)
                              : !rd.layout.empty() ? " [" + rd.layout + "]"
                              : rd.random_positions > 0
                                  ? fmt::format(" (positions drawn from [0, {}))", rd.random_positions)
                                  : "",
                              at));
  const Visibility vis{true, rd.band};
  const bool per_length = !rd.finetuned && rd.layout.empty() && model.scheme().accepts_frequency_plan() &&
                          model.scheme().plan_for(rd.map, train_len, longest).length_dependent;
  std::vector<PerplexityResult> results;
  std::optional<DocumentPerplexities> docs;
  if (documents) {
    // each validation paragraph alone; lengths past what the model can read are left out
    if (!readable.empty())
      docs = charlm_document_perplexities(
          model, corpus, readable, cs.val_start,
          validation_end(cs, *std::max_element(e.eval_lengths.begin(), e.eval_lengths.end())));
    if (docs) results = docs->results;
  } else if (rd.memory > 0) {
    // Transformer-XL's reading: segments of the training length, each with the states before it
    results = charlm_segment_perplexities(model, corpus, readable, cs.val_start, cs.val_windows, cs.eval_batch,
                                          train_len, rd.memory, cs.val_stride);
  } else if (rd.cached) {
    // token by token; one decode at the longest length gives every length (decoding is causal)
    const int longest_readable = readable.empty() ? 0 : *std::max_element(readable.begin(), readable.end());
    results = charlm_cached_perplexities([&] { return std::move(load_charlm_checkpoint(rd.checkpoint).model); },
                                         rd.finetuned ? std::nullopt : std::optional<MapSpec>(rd.map), train_len,
                                         longest_readable, corpus, readable, cs.val_start, cached_windows(e),
                                         cs.eval_batch, rd.band, cs.val_stride);
  } else if (per_length) {
    // dynamic, longrope: the plan of each pass is made for its length, so one pass per length
    for (int T : readable) {
      model.scheme().read_with(rd.map, train_len, longest, T);
      results.push_back(charlm_perplexity(model, corpus, T, cs.val_start, cs.val_windows, cs.eval_batch, vis,
                                          cs.val_stride, rd.random_positions));
    }
  } else {
    results = charlm_perplexities(model, corpus, readable, cs.val_start, cs.val_windows, cs.eval_batch, vis,
                                  cs.val_stride, layout, rd.random_positions);
  }
  json ppl = json::array(), loss = json::array();
  for (int T : e.eval_lengths) {
    const auto r =
        std::find_if(results.begin(), results.end(), [&](const PerplexityResult& x) { return x.length == T; });
    if (r == results.end()) {
      ppl.push_back(nullptr), loss.push_back(nullptr);
      continue;
    }
    ppl.push_back(r->perplexity), loss.push_back(r->loss);
    if (T == longest && longest_positions) *longest_positions = r->position_loss;
  }
  json row = {{"scheme", rd.scheme}, {"seed", rd.seed},   {"map", rd.map}, {"finetuned", rd.finetuned},
              {"band", rd.band},     {"perplexity", ppl}, {"loss", loss},  {"checkpoint", rd.checkpoint}};
  if (rd.cached)
    row["decode"] = "cached", row["windows"] = cached_windows(e);  // (a full-forward row carries neither, as before)
  if (rd.memory > 0) row["memory"] = rd.memory;
  if (!rd.layout.empty()) row["layout"] = rd.layout;
  if (rd.random_positions > 0) row["random_positions"] = rd.random_positions;
  // read on another text than it was trained on (a legitimate question, never a silent one): the sha1 it records
  if (!loaded.corpus_sha1.empty() && loaded.corpus_sha1 != corpus.sha1) row["trained_on_sha1"] = loaded.corpus_sha1;
  if (docs) {  // per length: the tokens each figure averages and the paragraphs that reach it
    json tokens = json::array(), reaching = json::array();
    for (int T : e.eval_lengths) {
      const auto i = std::find(readable.begin(), readable.end(), T);
      const bool has = i != readable.end();
      tokens.push_back(has ? json(docs->tokens[size_t(i - readable.begin())]) : json());
      reaching.push_back(has ? json(docs->reaching[size_t(i - readable.begin())]) : json());
    }
    row["documents"] = {{"read", docs->documents}, {"tokens", tokens}, {"reaching", reaching}};
  }
  return row;
}

// Every reading at every length: the results JSON (rows and the per-position loss at the longest length).
json evaluate_readings(const std::vector<Reading>& readings, const ExperimentConfig& e, const CharCorpus& corpus,
                       Progress& progress) {
  const int longest = *std::max_element(e.eval_lengths.begin(), e.eval_lengths.end());
  json rows = json::array(), positions = json::array();
  for (const Reading& rd : readings) {
    std::vector<double> pos;
    json row = evaluate_reading(rd, e, corpus, progress, &pos);
    json bins = json::array();  // (a position no paragraph reaches: null)
    for (double v : bin_positions(pos, charlm_settings(e).position_window))
      bins.push_back(std::isnan(v) ? json() : json(v));
    if (!pos.empty()) positions.push_back({{"label", charlm_reading_label(row)}, {"seed", rd.seed}, {"bins", bins}});
    rows.push_back(std::move(row));
  }
  json validation = {{"first_start", charlm_settings(e).val_start},
                     {"windows", charlm_settings(e).val_windows},
                     {"batch", charlm_settings(e).eval_batch}};
  if (charlm_settings(e).val_stride != 1) validation["stride"] = charlm_settings(e).val_stride;
  return {{"task", "charlm"},
          {"corpus", {{"path", corpus.path}, {"sha1", corpus.sha1}, {"characters", corpus.ids.size()}}},
          {"lengths", e.eval_lengths},
          {"train_length", e.train_length},
          {"validation", validation},
          {"rows", rows},
          {"training", json::array()},
          {"position_loss", {{"length", longest}, {"window", charlm_settings(e).position_window}, {"rows", positions}}},
          {"build", build_info_json()}};
}

}  // namespace

json evaluate_charlm(const std::vector<std::string>& checkpoints, const ExperimentConfig& e, bool show_progress) {
  const CharCorpus corpus = load_experiment_corpus(e);
  check_validation_fits(e, corpus);
  const int longest = *std::max_element(e.eval_lengths.begin(), e.eval_lengths.end());
  struct Item {
    std::string path, scheme;
    std::optional<MapSpec> map;  // the plan a fine-tuned checkpoint was tuned with (none: not fine-tuned)
    int seed;
    bool plans;            // reads its angles from a frequency plan
    bool absolute;         // adds positions to the embedding (no segment memory)
    int random_positions;  // trained with positions drawn from [0, this) (0: 0 .. n-1)
  };
  const std::vector<MapSpec> cached_maps =
      parse_maps(e.value("cached_maps").get<std::vector<std::string>>(), "cached_maps");
  std::vector<Item> items;
  for (auto& path : checkpoints) {
    const LoadedCharLM cp = load_charlm_checkpoint(path);
    check_charlm_fits(cp.model->config(), charlm_settings(e).eval_batch, longest, false, "reading " + path);
    if (!cp.corpus_sha1.empty() && cp.corpus_sha1 != corpus.sha1)
      fmt::print(stderr,
                 "note: {} was trained on a text of sha1 {}, not {} (sha1 {}); its rows read that text and are "
                 "labelled \"trained on another text\" (pass its own text with --corpus to read it there)\n",
                 path, cp.corpus_sha1.substr(0, 12), corpus.path, corpus.sha1.substr(0, 12));
    if (cp.vocab != corpus.vocab)
      throw DataError(
          fmt::format("corpus {} has a different vocabulary from the one {} was trained on; pass the "
                      "training corpus with --corpus",
                      corpus.path, path));
    items.push_back({path, cp.model->scheme().name(), cp.plan_map, cp.meta.at("training").at("seed"),
                     cp.model->scheme().accepts_frequency_plan(), cp.model->scheme().acts_on_embedding(),
                     random_positions_of(cp.meta.at("training"))});
    if (items.back().random_positions > 0)  // read at drawn positions, in full forwards, within [0, L)
      check_charlm_random_positions_readings(items.back().random_positions, e.resolved,
                                             fmt::format("{} was trained with random_positions", path));
    // every map this checkpoint will be read with, planned once now: a map it cannot take (a config
    // stating another base or head width) is an error before any reading, not after the plain ones
    if (!cp.plan_map && cp.model->scheme().accepts_frequency_plan()) {
      const int train_len = cp.meta.at("training").at("train_length");
      for (auto& map : e.maps) cp.model->scheme().read_with(map, train_len, longest);
      for (auto& map : cached_maps) cp.model->scheme().read_with(map, train_len, longest);
    }
  }
  // A fine-tuned checkpoint is read right after its map's reading of the plain checkpoint of the same
  // scheme and seed, when that one is read too; otherwise where it stands.
  auto plain_of = [&](const Item& ft) {
    for (auto& it : items)
      if (!it.map && it.scheme == ft.scheme && it.seed == ft.seed && it.plans) return true;
    return false;
  };
  const bool all_cached = e.value("decode").get<std::string>() == "cached";
  std::vector<Reading> readings;
  for (auto& it : items) {
    if (it.map) {  // fine-tuned under a plan: read with that plan only
      const bool placed = plain_of(it) && std::find(e.maps.begin(), e.maps.end(), *it.map) != e.maps.end();
      if (!placed) readings.push_back({it.scheme, *it.map, true, all_cached, 0, it.seed, it.path});
      continue;
    }
    const int L = it.random_positions;  // (the check above leaves a model with it full forwards only)
    readings.push_back({it.scheme, identity_spec(), false, all_cached, 0, it.seed, it.path, 0, "", L});
    for (const std::string& layout : charlm_settings(e).read_layouts)  // the same checkpoint, other layouts
      readings.push_back({it.scheme, identity_spec(), false, false, 0, it.seed, it.path, 0, layout});
    if (const int mem_len = charlm_settings(e).mem_len; mem_len > 0 && !it.absolute)
      readings.push_back({it.scheme, identity_spec(), false, false, 0, it.seed, it.path, mem_len});
    if (it.plans && charlm_settings(e).band > 0)
      readings.push_back(
          {it.scheme, identity_spec(), false, all_cached, charlm_settings(e).band, it.seed, it.path, 0, "", L});
    for (auto& map : e.maps) {
      if (!map_is_read(map, it.plans)) continue;  // a map of frequencies, for a scheme without them
      readings.push_back({it.scheme, map, false, all_cached, 0, it.seed, it.path, 0, "", L});
      for (auto& ft : items)
        if (ft.map && *ft.map == map && ft.scheme == it.scheme && ft.seed == it.seed)
          readings.push_back({ft.scheme, *ft.map, true, all_cached, 0, ft.seed, ft.path});
    }
    if (!all_cached)
      for (auto& map : cached_maps)
        if (map_is_read(map, it.plans)) readings.push_back({it.scheme, map, false, true, 0, it.seed, it.path});
  }
  Progress progress(!show_progress);
  json r = evaluate_readings(readings, e, corpus, progress);
  progress.done();
  r["summary"] = charlm_summary(r["rows"]);
  r["interval"] = stats::kSeedIntervalMethod;
  return r;
}

namespace {
// Whether any reading of the results has more than one seed (then the tables add an "over seeds" part).
bool several_seeds(const json& r) {
  for (auto& g : r.value("summary", json::array()))
    if (g["seeds"].size() > 1) return true;
  return false;
}
}  // namespace

std::string compare_charlm_readers(const json& results, const std::string& a, const std::string& b, int length) {
  const size_t li = length_index(results, length);
  std::string known;
  std::map<int, double> pa, pb;
  for (auto& row : results.at("rows")) {
    const std::string l = charlm_reading_label(row);
    if (known.find("'" + l + "'") == std::string::npos) known += (known.empty() ? "'" : ", '") + l + "'";
    const json& v = row.at("perplexity")[li];
    if (v.is_null()) continue;
    if (l == a) pa[row.at("seed").get<int>()] = v.get<double>();
    if (l == b) pb[row.at("seed").get<int>()] = v.get<double>();
  }
  if (pa.empty() || pb.empty())
    throw UsageError(
        fmt::format("no reading '{}' at {} in these results (they hold: {})", pa.empty() ? a : b, length, known));
  std::vector<double> va, vb;
  for (auto& [seed, v] : pa)
    if (pb.count(seed)) va.push_back(v), vb.push_back(pb.at(seed));
  if (va.empty()) throw UsageError(fmt::format("{} and {} share no seed", a, b));
  const stats::PairedT t = stats::paired_t(va, vb);
  std::string s = fmt::format("{} − {} at {}: validation perplexity, {} seed{}\n", a, b, length, va.size(),
                              va.size() == 1 ? "" : "s");
  if (va.size() >= 2)
    s += fmt::format("  across seeds (paired t, {} df): {:+.2f} [{:+.2f}, {:+.2f}]  p = {:.3g}\n", t.n - 1, t.mean_diff,
                     t.lo, t.hi, t.p_value);
  else
    s += fmt::format("  across seeds: {:+.2f} (one seed: no interval)\n", t.mean_diff);
  s += "  (the validation text is one fixed stretch read by every model: no resampling of it is offered)\n";
  return s;
}

std::string charlm_reading_label(const json& row) {
  std::string s = row["scheme"].get<std::string>();
  if (!is_identity_map(row["map"])) s += fmt::format("+{}", row["map"].get<std::string>());
  if (row["finetuned"].get<bool>()) s += " (fine-tuned)";
  if (row["band"].get<int>() > 0) s += fmt::format(" (band {})", row["band"].get<int>());
  if (row.value("decode", "full") == "cached") s += " (cached)";
  if (row.value("memory", 0) > 0) s += fmt::format(" (memory {})", row["memory"].get<int>());
  if (row.contains("layout")) s += fmt::format(" [{}]", row["layout"].get<std::string>());
  if (row.value("random_positions", 0) > 0) s += fmt::format(" (random {})", row["random_positions"].get<int>());
  if (row.contains("trained_on_sha1")) s += " (trained on another text)";
  return s;
}

json charlm_summary(const json& rows) {
  json out = json::array();
  std::vector<std::string> labels;
  for (auto& row : rows)
    if (std::find(labels.begin(), labels.end(), charlm_reading_label(row)) == labels.end())
      labels.push_back(charlm_reading_label(row));
  for (auto& label : labels) {
    json seeds = json::array(), mean = json::array(), sd = json::array(), hw = json::array();
    std::vector<const json*> group;
    for (auto& row : rows)
      if (charlm_reading_label(row) == label) group.push_back(&row), seeds.push_back(row["seed"]);
    const size_t nl = group[0]->at("perplexity").size();
    for (size_t li = 0; li < nl; ++li) {
      std::vector<double> v;
      for (auto* g : group)
        if (!g->at("perplexity")[li].is_null()) v.push_back(g->at("perplexity")[li].get<double>());
      if (v.size() < group.size()) {  // a reading without a value (a learned table past its rows)
        for (json* a : {&mean, &sd, &hw}) a->push_back(nullptr);
        continue;
      }
      const stats::Summary sm = stats::summarize(v);
      mean.push_back(sm.mean), sd.push_back(sm.sd), hw.push_back(sm.half_width);
    }
    const json& first = *group[0];
    out.push_back({{"label", label},
                   {"scheme", first["scheme"]},
                   {"map", first["map"]},
                   {"band", first["band"]},
                   {"finetuned", first["finetuned"]},
                   {"seeds", seeds},
                   {"mean", mean},
                   {"sd", sd},
                   {"half_width", hw}});
  }
  return out;
}

namespace {
std::string cell(const json& v, const char* f = "{:.2f}") {
  if (v.is_null()) return "—";
  return fmt::format(fmt::runtime(f), v.get<double>());
}
}  // namespace

std::string format_charlm_table(const json& r) {
  std::string s = fmt::format("{:<34}", "validation perplexity");
  for (auto& n : r["lengths"]) s += fmt::format("{:>9}", n.get<int>());
  s += "\n";
  for (auto& row : r["rows"]) {
    s += fmt::format("{:<34}", charlm_reading_label(row) + fmt::format(" s{}", row["seed"].get<int>()));
    for (auto& v : row["perplexity"]) s += fmt::format("{:>9}", cell(v));
    s += "\n";
  }
  const bool several = several_seeds(r);
  if (!several) return s;
  s += fmt::format("{:<34}", "over seeds: mean ± 95% interval");
  for (auto& n : r["lengths"]) s += fmt::format("{:>15}", n.get<int>());
  s += "\n";
  for (auto& g : r["summary"]) {
    s += fmt::format("{:<34}", fmt::format("{} ({} seeds)", g["label"].get<std::string>(), g["seeds"].size()));
    for (size_t i = 0; i < g["mean"].size(); ++i)
      s += g["mean"][i].is_null() ? fmt::format("{:>15}", "-")
                                  : fmt::format("{:>16}", fmt::format("{:.2f} ± {:.2f}", g["mean"][i].get<double>(),
                                                                      g["half_width"][i].get<double>()));
    s += "\n";
  }
  s += "± " + r["interval"].get<std::string>() + "\n";
  return s;
}

std::string format_charlm_markdown(const json& r) {
  const json& ref = r.contains("reference") ? r["reference"] : json();
  auto published = [&](const std::string& table, const std::string& key, int n) -> std::string {
    if (ref.is_null() || !ref.contains(table) || !ref[table].contains(key)) return "n/a";
    const auto& lens = ref["lengths"];
    for (size_t k = 0; k < lens.size(); ++k)
      if (lens[k] == n) return cell(ref[table][key][k], "{:.1f}");
    return "n/a";
  };
  std::string s = fmt::format(
      "# Character LM: validation perplexity by context\n\n"
      "TinyCharLM on The Time Machine (sha1 {}), trained at {}. Validation: {} windows from start {}{}, batch {}; "
      "perplexity = exp(mean over batches of the batch's mean cross-entropy). Each cell: **pe-bench** / PyTorch run / "
      "JAX run (docs/published-results.md). Maps read RoPE with the plan for {} -> {}.\n\n",
      r["corpus"]["sha1"].get<std::string>().substr(0, 12), r["train_length"].get<int>(),
      r["validation"]["windows"].get<int>(), r["validation"]["first_start"].get<int>(),
      r["validation"].contains("stride") ? fmt::format(" every {}", r["validation"]["stride"].get<int>()) : "",
      r["validation"]["batch"].get<int>(), r["train_length"].get<int>(), r["lengths"].back().get<int>());
  bool documents = false, isolated = false;
  for (auto& row : r["rows"]) {
    documents = documents || row.value("layout", "") == "documents";
    isolated = isolated || (row.contains("layout") && row["layout"] != "documents");
  }
  if (isolated)
    s += "Rows marked [isolated-reset] / [isolated-global]: the same windows with each paragraph's piece seeing only "
         "itself, positions from 0 in each piece or the window's rows (docs/tasks.md, Packing).\n\n";
  if (documents)
    s += "Rows marked [documents]: each validation paragraph read alone from position 0; the figure at n is "
         "exp(mean cross-entropy over every character below position n in its paragraph), and the loss by position "
         "below is by position inside a paragraph.\n\n";
  s += "| model |";
  for (auto& n : r["lengths"]) s += fmt::format(" {} |", n.get<int>());
  s += " final training loss |\n|---|";
  for (size_t i = 0; i <= r["lengths"].size(); ++i) s += "---|";
  s += "\n";
  for (auto& row : r["rows"]) {
    const std::string label = charlm_reading_label(row), scheme = row["scheme"];
    const bool plain = is_identity_map(row["map"]) && row["band"] == 0 && !row.contains("layout");
    s += "| " + label + (r["training"].size() > r["rows"].size() ? fmt::format(" s{}", row["seed"].get<int>()) : "") +
         " |";
    for (size_t i = 0; i < r["lengths"].size(); ++i) {
      const int n = r["lengths"][i];
      s += " **" + cell(row["perplexity"][i]) + "**";
      if (plain) s += " / " + published("pytorch", scheme, n) + " / " + published("jax", scheme, n);
      s += " |";
    }
    std::string fl = "";
    for (auto& t : r["training"])
      if (t["scheme"] == scheme && t["seed"] == row["seed"] &&
          (row["finetuned"].get<bool>() ? t.value("finetune_map", "") == row["map"] : !t.contains("finetune_map")) &&
          (plain || row["finetuned"].get<bool>()))
        fl = "**" + cell(t["final_loss"], "{:.3f}") + "**" +
             (plain && !ref.is_null() && ref.contains("final_loss") && ref["final_loss"].contains(scheme)
                  ? " / " + cell(ref["final_loss"][scheme], "{:.2f}")
                  : "");
    s += " " + fl + " |\n";
  }
  const bool several = several_seeds(r);
  if (several) {
    s += "\n## Over seeds\n\nMean perplexity of the seeds ± the half-width of its 95% interval (" +
         r["interval"].get<std::string>() + "); published: PyTorch run / JAX run.\n\n| model | seeds |";
    for (auto& n : r["lengths"]) s += fmt::format(" {} |", n.get<int>());
    s += "\n|---|---|";
    for (size_t i = 0; i < r["lengths"].size(); ++i) s += "---|";
    s += "\n";
    for (auto& g : r["summary"]) {
      const bool plain =
          is_identity_map(g["map"]) && g["band"] == 0 && g["label"].get<std::string>().find(" [") == std::string::npos;
      s += fmt::format("| {} | {} |", g["label"].get<std::string>(), g["seeds"].size());
      for (size_t i = 0; i < r["lengths"].size(); ++i) {
        const int n = r["lengths"][i];
        s += g["mean"][i].is_null()
                 ? std::string(" —")
                 : fmt::format(" **{:.2f} ± {:.2f}**", g["mean"][i].get<double>(), g["half_width"][i].get<double>());
        if (plain) s += " / " + published("pytorch", g["scheme"], n) + " / " + published("jax", g["scheme"], n);
        s += " |";
      }
      s += "\n";
    }
  }
  const json& pl = r["position_loss"];
  const int w = pl["window"], train_len = r["train_length"];
  s += fmt::format(
      "\n## Loss by position at context {} (mean cross-entropy over bins of {} positions)\n\n"
      "In-window level: the mean over positions {}..{}. Leaves it: the first bin at or past {} whose loss is more "
      "than 0.1 nats above that level (— if none).\n\n| model | in-window level | leaves it at |",
      pl["length"].get<int>(), w, train_len / 2, train_len - 1, train_len);
  const int bins = pl["rows"].empty() ? 0 : int(pl["rows"][0]["bins"].size());
  for (int b = 0; b < bins; ++b) s += fmt::format(" {} |", b * pl["window"].get<int>());
  s += "\n|---|---|---|";
  for (int b = 0; b < bins; ++b) s += "---|";
  s += "\n";
  for (auto& row : pl["rows"]) {
    const auto& v = row["bins"];
    double level = 0;
    int n = 0;
    for (int b = 0; b < int(v.size()); ++b)
      if (b * w >= train_len / 2 && (b + 1) * w <= train_len && !v[b].is_null()) level += v[b].get<double>(), ++n;
    level = n ? level / n : 0;
    std::string leaves = "—";
    for (int b = 0; b < int(v.size()); ++b)
      if (b * w >= train_len && !v[b].is_null() && v[b].get<double>() > level + 0.1) {
        leaves = std::to_string(b * w);
        break;
      }
    s += fmt::format("| {} | {:.2f} | {} |", row["label"].get<std::string>(), level, leaves);
    for (auto& x : v) s += fmt::format(" {} |", cell(x));
    s += "\n";
  }
  return s + native_build_note(r);
}

}  // namespace pe
