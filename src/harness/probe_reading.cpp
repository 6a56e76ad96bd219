#include "harness/probe_reading.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/errors.h"
#include "core/fpenv.h"
#include "core/parallel.h"
#include "core/progress.h"
#include "core/rng.h"
#include "harness/block_stack_checkpoint.h"
#include "harness/checkpoint.h"
#include "harness/grid_compare.h"
#include "harness/statistics.h"
#include "models/block_stack_trainer.h"
#include "models/cross_entropy.h"

namespace pe {

using nlohmann::json;

json probe_shape(const ProbeKind& kind, const ExperimentConfig& e) {
  json shape = json::object();
  for (auto& k : kind.shape_keys) shape[k.key] = e.value(k.key);
  return shape;
}

json make_probe_checkpoint(const ProbeKind& kind, const BlockStack<float>& model, const json& shape,
                           const json& training) {
  const json extra = {{"probe", shape}, {"vocab", kind.make(shape)->token_names()}};
  return checkpoint_envelope(kind.name, block_stack_section(model.config()), model.config().scheme, training,
                             model.layout(), model.params().data(), extra);
}

LoadedProbe load_probe_checkpoint(const ProbeKind& kind, const std::string& path) {
  CheckpointReader r(path, kind.name);
  return r.fields([&] {
    const json& j = r.json_();
    LoadedProbe out;
    const json& p = j.at("probe");
    if (!p.is_object()) throw r.fail("its probe section is not an object");
    for (auto& k : kind.shape_keys) {
      if (!p.contains(k.key)) throw r.fail(fmt::format("its probe section has no '{}'", k.key));
      check_key_value(k, p.at(k.key), "checkpoint " + path + " probe section");
      out.shape[k.key] = p.at(k.key);
    }
    try {
      out.source = kind.make(out.shape);
    } catch (const Error& e) {
      throw r.fail(fmt::format("its probe section cannot make sequences ({})", e.what()));
    }
    out.train_length = checked_int32(j.at("training").at("train_length"), "training.train_length", 2, kMaxLength);
    out.seed = checked_int32(j.at("training").at("seed"), "training.seed", 0, kMaxSeed);
    out.model = read_block_stack(r);
    const int vocab = int(out.source->token_names().size());
    if (out.model->config().vocab != vocab)
      throw r.fail(
          fmt::format("its model reads {} tokens but its probe's sequences have {}", out.model->config().vocab, vocab));
    out.path = path;
    return out;
  });
}

void probe_test_sequence(const ProbeSource& source, uint64_t test_seed, int n, int cell, int i, int* x, int* y,
                         int* slot) {
  source.sequence(stream_key({kTagTest, test_seed, uint64_t(n), uint64_t(cell), uint64_t(i)}), n, cell, x, y, slot);
}

namespace {

struct CellCount {
  long whole = 0;
  std::vector<long> hits, count;  // per slot
};

// Reads every cell's test sequences at length n with `model`: per cell, the sequences whose every answer
// row is right and each slot's hits. The sequences are read in chunks of about kBlockStackChunkTokens
// tokens (an answer does not depend on its chunk), the chunks spread over the threads.
std::vector<CellCount> read_cells(const BlockStack<float>& model, const ProbeSource& source, int n, int cells,
                                  int cell_sequences, uint64_t test_seed) {
  const int V = model.config().vocab, S = source.slots();
  const int per_chunk = std::max(1, kBlockStackChunkTokens / n);
  const int chunks_per_cell = (cell_sequences + per_chunk - 1) / per_chunk;
  const int jobs = cells * chunks_per_cell;
  std::vector<CellCount> job_counts(jobs);
  std::vector<BlockStackCache<float>> caches(max_threads());
#pragma omp parallel for schedule(dynamic, 1) if (!in_parallel())
  for (int j = 0; j < jobs; ++j) {
    const ScopedFlushToZero ftz;
    const int cell = j / chunks_per_cell, i0 = (j % chunks_per_cell) * per_chunk;
    const int nb = std::min(per_chunk, cell_sequences - i0);
    std::vector<int> x(size_t(nb) * n), y(size_t(nb) * n), slot(size_t(nb) * n);
    for (int b = 0; b < nb; ++b) {
      const size_t o = size_t(b) * n;
      probe_test_sequence(source, test_seed, n, cell, i0 + b, &x[o], &y[o], &slot[o]);
    }
    auto& cache = caches[thread_index()];
    model.forward(x.data(), y.data(), nb, n, cache, 0, Visibility{}, nullptr, nullptr);
    CellCount c;
    c.hits.assign(S, 0), c.count.assign(S, 0);
    for (int b = 0; b < nb; ++b) {
      bool all = true;
      for (int r = 0; r < n; ++r) {
        const size_t row = size_t(b) * n + r;
        if (y[row] < 0) continue;
        const bool right = argmax_of(&cache.logits[row * V], V) == y[row];
        all = all && right;
        c.hits.at(slot[row]) += right;
        c.count.at(slot[row]) += 1;
      }
      c.whole += all;
    }
    job_counts[j] = c;
  }
  std::vector<CellCount> out(cells);
  for (auto& c : out) c.hits.assign(S, 0), c.count.assign(S, 0);
  for (int j = 0; j < jobs; ++j) {
    CellCount& c = out[j / chunks_per_cell];
    c.whole += job_counts[j].whole;
    for (int s = 0; s < S; ++s) c.hits[s] += job_counts[j].hits[s], c.count[s] += job_counts[j].count[s];
  }
  return out;
}

double mean_of(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? 0 : s / v.size();
}

}  // namespace

json evaluate_probe(const ProbeKind& kind, const std::vector<std::string>& checkpoints, const ProbeReadSettings& s,
                    bool show_progress) {
  check_distinct_runs(checkpoints);
  struct Item {
    std::string path, scheme;
    int seed, train_length;
    bool plans;
  };
  std::vector<Item> items;
  json shape;
  for (auto& path : checkpoints) {
    const LoadedProbe cp = load_probe_checkpoint(kind, path);
    if (items.empty()) shape = cp.shape;
    items.push_back(
        {path, cp.model->scheme().name(), cp.seed, cp.train_length, cp.model->scheme().accepts_frequency_plan()});
    if (cp.shape != shape)
      throw UsageError(fmt::format("{} was trained on sequences of another shape ({}) than {} ({}); read them apart",
                                   path, cp.shape.dump(), items.front().path, shape.dump()));
    if (cp.train_length != items.front().train_length)
      throw UsageError(fmt::format("{} was trained at length {} but {} at {}; read them apart", path, cp.train_length,
                                   items.front().path, items.front().train_length));
    for (int n : s.lengths)
      if (n < cp.source->min_length())
        throw UsageError(
            fmt::format("length {} cannot hold every cell of this probe (at least {})", n, cp.source->min_length()));
  }
  const std::unique_ptr<ProbeSource> source = kind.make(shape);
  const int C = int(source->cells().size()), S = source->slots();
  // readers in the order of the checkpoints: each scheme plainly, then with each map
  std::vector<std::pair<std::string, MapSpec>> readers;
  for (auto& it : items) {
    auto add = [&](const MapSpec& map) {
      if (std::find(readers.begin(), readers.end(), std::make_pair(it.scheme, map)) == readers.end())
        readers.push_back({it.scheme, map});
    };
    add(identity_spec());
    for (auto& m : s.maps)
      if (map_is_read(m, it.plans)) add(m);
  }
  int total = 0, done = 0;
  for (auto& r : readers)
    for (auto& it : items) total += it.scheme == r.first;
  Progress progress(!show_progress);
  json rows = json::array();
  for (auto& [scheme, map] : readers) {
    json row = {
        {"scheme", scheme}, {"map", map}, {"seeds", json::array()}, {"whole", json::array()}, {"slot", json::array()}};
    for (auto& it : items) {
      if (it.scheme != scheme) continue;
      progress.update(
          fmt::format("[{}] reading {} seed {} ({}/{})", kind.name, map.label(scheme), it.seed, ++done, total));
      LoadedProbe cp = load_probe_checkpoint(kind, it.path);
      json whole = json::array(), slot = json::array();
      for (int n : s.lengths) {
        cp.model->scheme().read_with(map, it.train_length, n);
        cp.model->prepare(n);
        if (!cp.model->scheme().can_read(n - 1)) {  // a learned table too short: no answer past it
          whole.push_back(nullptr), slot.push_back(nullptr);
          continue;
        }
        const auto cells = read_cells(*cp.model, *cp.source, n, C, s.cell_sequences, s.test_seed);
        json w = json::array(), a = json::array();
        std::vector<long> hits(S, 0), count(S, 0);
        for (auto& c : cells) {
          w.push_back(double(c.whole) / s.cell_sequences);
          for (int k = 0; k < S; ++k) hits[k] += c.hits[k], count[k] += c.count[k];
        }
        for (int k = 0; k < S; ++k) a.push_back(count[k] > 0 ? json(double(hits[k]) / count[k]) : json(nullptr));
        whole.push_back(w), slot.push_back(a);
      }
      row["seeds"].push_back(it.seed);
      row["whole"].push_back(whole);
      row["slot"].push_back(slot);
    }
    // per length: the mean over seeds of each cell and each slot
    json grid = json::array(), slots = json::array();
    for (size_t li = 0; li < s.lengths.size(); ++li) {
      std::vector<double> cell_mean(C, 0.0), slot_mean(S, 0.0);
      std::vector<bool> slot_seen(S, true);
      bool readable = true;
      const size_t k = row["seeds"].size();
      for (size_t si = 0; si < k && readable; ++si) {
        const json& w = row["whole"][si][li];
        if (w.is_null()) {
          readable = false;
          break;
        }
        for (int c = 0; c < C; ++c) cell_mean[c] += w[c].get<double>() / k;
        for (int q = 0; q < S; ++q) {
          const json& v = row["slot"][si][li][q];
          if (v.is_null())
            slot_seen[q] = false;
          else
            slot_mean[q] += v.get<double>() / k;
        }
      }
      if (!readable) {
        grid.push_back(nullptr), slots.push_back(nullptr);
        continue;
      }
      grid.push_back(cell_mean);
      json sm = json::array();
      for (int q = 0; q < S; ++q) sm.push_back(slot_seen[q] ? json(slot_mean[q]) : json(nullptr));
      slots.push_back(sm);
    }
    row["cell_grid"] = grid;       // [length][cell]: whole accuracy, mean over seeds
    row["slot_accuracy"] = slots;  // [length][slot]: each slot's accuracy, mean over seeds
    rows.push_back(row);
  }
  progress.done();
  json results = {{"task", kind.name},
                  {"title", kind.title},
                  {"description", kind.describe(shape)},
                  {"lengths", s.lengths},
                  {"cell_axis", kind.cell_axis},
                  {"cells", source->cells()},
                  {"slot_name", source->slot_name()},
                  {"slots", S},
                  {"cell_sequences", s.cell_sequences},
                  {"test_seed", s.test_seed},
                  {"train_length", items.front().train_length},
                  {"probe", shape},
                  {"rows", rows}};
  add_probe_intervals(results);
  return results;
}

void add_probe_intervals(json& results) {
  const long n_test = results.at("cell_sequences").get<long>() * long(results.at("cells").size());
  for (auto& row : results.at("rows")) {
    json per_seed = json::array(), mean = json::array(), lo = json::array(), hi = json::array();
    for (auto& whole : row.at("whole")) {
      json acc = json::array();
      for (auto& w : whole) acc.push_back(w.is_null() ? json(nullptr) : json(mean_of(w.get<std::vector<double>>())));
      per_seed.push_back(acc);
    }
    for (size_t li = 0; li < results.at("lengths").size(); ++li) {
      std::vector<double> v;
      for (auto& acc : per_seed)
        if (!acc[li].is_null()) v.push_back(acc[li]);
      if (v.empty() || v.size() != per_seed.size()) {
        mean.push_back(nullptr), lo.push_back(nullptr), hi.push_back(nullptr);
        continue;
      }
      const stats::ProportionInterval iv = stats::proportion_interval(v, n_test);
      mean.push_back(mean_of(v)), lo.push_back(iv.lo), hi.push_back(iv.hi);
    }
    row["seed_accuracy"] = per_seed, row["accuracy"] = mean, row["lo"] = lo, row["hi"] = hi;
  }
  results["interval"] = stats::kProportionIntervalMethod;
}

namespace {

std::string cell_text(const json& row, size_t i) {
  const json& v = row["accuracy"][i];
  if (v.is_null()) return "—";
  return stats::proportion_cell(v.get<double>(), row["lo"][i].get<double>(), row["hi"][i].get<double>());
}
std::string value_text(const json& v) { return v.is_null() ? "—" : fmt::format("{:.3f}", v.get<double>()); }

}  // namespace

std::string format_probe_table(const json& r) {
  std::string s = fmt::format(
      "{}: {} Trained at {}; {} cells ({}) x {} sequences per length\naccuracy (every answer right, greedy; mean "
      "over cells and seeds, [95% interval])\n",
      r["title"].get<std::string>(), r["description"].get<std::string>(), r["train_length"].get<int>(),
      r["cells"].size(), r["cell_axis"].get<std::string>(), r["cell_sequences"].get<int>());
  s += fmt::format("{:<18}", "reader");
  for (auto& n : r["lengths"]) s += fmt::format("{:>22}", n.get<int>());
  s += fmt::format("   {:>8}\n", "seeds");
  for (auto& row : r["rows"]) {
    s += fmt::format("{:<18}", reader_label(row));
    for (size_t i = 0; i < row["accuracy"].size(); ++i) {
      const std::string t = cell_text(row, i);
      s += fmt::format("{:>{}}", t, 22 + (t == "—" ? 2 : 0));
    }
    s += fmt::format("   {:>8}\n", row["seeds"].size());
  }
  const size_t last = r["lengths"].size() - 1;
  s += fmt::format("by cell at {} (mean over seeds): {}\n", r["lengths"][last].get<int>(), r["cells"].dump());
  for (auto& row : r["rows"]) {
    s += fmt::format("{:<18}", reader_label(row));
    const json& g = row["cell_grid"][last];
    for (size_t c = 0; c < r["cells"].size(); ++c) s += fmt::format("{:>8}", g.is_null() ? "—" : value_text(g[c]));
    s += "\n";
  }
  s += "[lo, hi]: " + r["interval"].get<std::string>() + "\n";
  return s;
}

std::string format_probe_markdown(const json& r) {
  const auto lengths = r["lengths"];
  auto header = [&](const std::string& first) {
    std::string h = "| " + first + " |";
    for (auto& n : lengths) h += fmt::format(" {} |", n.get<int>());
    h += "\n|---|";
    for (size_t i = 0; i < lengths.size(); ++i) h += "---|";
    return h + "\n";
  };
  std::string s = fmt::format(
      "# {}\n\n{} Trained at length {}; read at every length on {} cells ({}) x {} test sequences (shared by every "
      "reader). Accuracy: the share of test sequences whose every answer is right (greedy), mean over cells and "
      "seeds; {}.\n\n",
      r["title"].get<std::string>(), r["description"].get<std::string>(), r["train_length"].get<int>(),
      r["cells"].size(), r["cell_axis"].get<std::string>(), r["cell_sequences"].get<int>(),
      r["interval"].get<std::string>());
  s += "| reader | seeds |";
  for (auto& n : lengths) s += fmt::format(" {} |", n.get<int>());
  s += "\n|---|---|";
  for (size_t i = 0; i < lengths.size(); ++i) s += "---|";
  s += "\n";
  for (auto& row : r["rows"]) {
    s += fmt::format("| {} | {} |", reader_label(row), row["seeds"].size());
    for (size_t i = 0; i < row["accuracy"].size(); ++i) s += fmt::format(" {} |", cell_text(row, i));
    s += "\n";
  }
  s += fmt::format("\nBy cell (rows: {}; columns: length; accuracy, mean over seeds):\n",
                   r["cell_axis"].get<std::string>());
  for (auto& row : r["rows"]) {
    s += fmt::format("\n**{}**\n\n", reader_label(row)) + header("cell");
    for (size_t c = 0; c < r["cells"].size(); ++c) {
      s += fmt::format("| {} |", r["cells"][c].get<std::string>());
      for (auto& g : row["cell_grid"]) s += g.is_null() ? " — |" : fmt::format(" {:.2f} |", g[c].get<double>());
      s += "\n";
    }
  }
  if (r["slots"].get<int>() > 1) {
    const std::string name = r["slot_name"].get<std::string>();
    s += fmt::format(
        "\nBy {} (rows: {} 1, 2, ...; each answer scored given the right ones before it, over every "
        "cell that asks it; mean over seeds):\n",
        name, name);
    for (auto& row : r["rows"]) {
      s += fmt::format("\n**{}**\n\n", reader_label(row)) + header(name);
      for (int q = 0; q < r["slots"].get<int>(); ++q) {
        s += fmt::format("| {} |", q + 1);
        for (auto& a : row["slot_accuracy"])
          s += a.is_null() || a[q].is_null() ? " — |" : fmt::format(" {:.2f} |", a[q].get<double>());
        s += "\n";
      }
    }
  }
  return s;
}

std::string compare_probe_readers(const json& results, const std::string& a, const std::string& b, int length) {
  const long n_test = results.at("cell_sequences").get<long>() * long(results.at("cells").size());
  return compare_grid_readers(results, a, b, length, "accuracy, mean over cells", n_test);
}

}  // namespace pe
