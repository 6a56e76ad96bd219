#include "tasks/passkey/evaluation.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "core/errors.h"
#include "core/fpenv.h"
#include "core/parallel.h"
#include "core/progress.h"
#include "harness/checkpoint.h"
#include "harness/grid_compare.h"
#include "harness/statistics.h"
#include "harness/task.h"
#include "models/block_stack_trainer.h"
#include "models/cross_entropy.h"
#include "tasks/passkey/packed_reading.h"

namespace pe {

using nlohmann::json;

std::vector<double> passkey_depths(int n) {
  std::vector<double> d;
  if (n == 1) return {0.5};
  for (int i = 0; i < n; ++i) d.push_back(double(i) / (n - 1));
  return d;
}

namespace {

struct CellCount {
  long whole = 0, symbols = 0;
};

// Reads one cell's test sequences (length n, depth index di) with `model`: whole and per-symbol hits.
// The sequences are read in chunks of about kBlockStackChunkTokens tokens (each sequence's answer
// does not depend on its chunk), the chunks spread over the threads.
// range > 0: each sequence at its randomised positions (passkey_test_positions), as the model was trained.
std::vector<CellCount> read_cells(const BlockStack<float>& model, const PasskeySpec& spec, int n,
                                  const std::vector<double>& depths, int cell_sequences, uint64_t test_seed,
                                  int range) {
  const int k = spec.symbols, V = model.config().vocab;
  const int per_chunk = std::max(1, kBlockStackChunkTokens / n);
  const int chunks_per_cell = (cell_sequences + per_chunk - 1) / per_chunk;
  const int jobs = int(depths.size()) * chunks_per_cell;
  std::vector<CellCount> job_counts(jobs);
  std::vector<BlockStackCache<float>> caches(max_threads());
#pragma omp parallel for schedule(dynamic, 1) if (!in_parallel())
  for (int j = 0; j < jobs; ++j) {
    const ScopedFlushToZero ftz;
    const int di = j / chunks_per_cell, i0 = (j % chunks_per_cell) * per_chunk;
    const int nb = std::min(per_chunk, cell_sequences - i0);
    std::vector<int> x(size_t(nb) * n), y(size_t(nb) * n), pos(range > 0 ? size_t(nb) * n : 0);
    for (int b = 0; b < nb; ++b) {
      passkey_test_sequence(spec, test_seed, n, di, depths[di], i0 + b, &x[size_t(b) * n], &y[size_t(b) * n]);
      if (range > 0) passkey_test_positions(test_seed, n, di, i0 + b, range, &pos[size_t(b) * n]);
    }
    auto& cache = caches[thread_index()];
    const TokenCoordinates at{pos.empty() ? nullptr : pos.data(), nullptr};
    model.forward(x.data(), y.data(), nb, n, cache, 0, Visibility{}, nullptr, pos.empty() ? nullptr : &at);
    CellCount c;
    for (int b = 0; b < nb; ++b) {
      int right = 0;
      for (int r = n - k; r < n; ++r) {
        const size_t row = size_t(b) * n + r;
        right += argmax_of(&cache.logits[row * V], V) == y[row];
      }
      c.symbols += right;
      c.whole += right == k;
    }
    job_counts[j] = c;
  }
  std::vector<CellCount> cells(depths.size());
  for (int j = 0; j < jobs; ++j) {
    cells[j / chunks_per_cell].whole += job_counts[j].whole;
    cells[j / chunks_per_cell].symbols += job_counts[j].symbols;
  }
  return cells;
}

double depth_mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? 0 : s / v.size();
}

}  // namespace

json evaluate_passkey(const std::vector<std::string>& checkpoints, const PasskeyReadSettings& s, bool show_progress) {
  check_distinct_runs(checkpoints);
  const std::vector<double> depths = passkey_depths(s.depths);
  struct Item {
    std::string path, scheme;
    int seed, train_length;
    bool plans;
    PasskeySpec spec;
    int random_positions;
  };
  std::vector<Item> items;
  for (auto& path : checkpoints) {
    const LoadedPasskey cp = load_passkey_checkpoint(path);
    items.push_back({path, cp.model->scheme().name(), cp.seed, cp.train_length,
                     cp.model->scheme().accepts_frequency_plan(), cp.spec, cp.random_positions});
    const PasskeySpec& a = items.front().spec;
    if (cp.spec.symbols != a.symbols || cp.spec.alphabet != a.alphabet || cp.spec.filler != a.filler)
      throw UsageError(fmt::format("{} was trained on passkeys of another shape than {}; read them apart", path,
                                   items.front().path));
    if (cp.train_length != items.front().train_length)
      throw UsageError(fmt::format("{} was trained at length {} but {} at {}; read them apart", path, cp.train_length,
                                   items.front().path, items.front().train_length));
    if (cp.random_positions > 0 && s.packed_windows > 0)
      throw UsageError(
          fmt::format("{} was trained with random_positions {}: packed test windows lay out positions "
                      "from 0, not as it was trained; read it without packed windows",
                      path, cp.random_positions));
    for (int n : s.lengths) {
      if (n < cp.spec.min_length())
        throw UsageError(fmt::format("length {} cannot hold a passkey of {} symbols (at least {})", n, cp.spec.symbols,
                                     cp.spec.min_length()));
      if (cp.random_positions > 0 && n > cp.random_positions)
        throw UsageError(
            fmt::format("{} was trained with random_positions {}: its test sequences draw positions from "
                        "[0, {}) too, which cannot hold length {}; read at {} or shorter",
                        path, cp.random_positions, cp.random_positions, n, cp.random_positions));
    }
  }
  // readers in the order of the checkpoints: each scheme plainly, then with each map
  std::vector<std::pair<std::string, MapSpec>> readers;
  auto add_reader = [&](const std::string& scheme, const MapSpec& map) {
    if (std::find(readers.begin(), readers.end(), std::make_pair(scheme, map)) == readers.end())
      readers.push_back({scheme, map});
  };
  for (auto& it : items) {
    add_reader(it.scheme, identity_spec());
    for (auto& m : s.maps)
      if (map_is_read(m, it.plans)) add_reader(it.scheme, m);
  }
  Progress progress(!show_progress);
  json rows = json::array();
  int done = 0;
  const int total = [&] {
    int t = 0;
    for (auto& [scheme, map] : readers)
      for (auto& it : items) t += it.scheme == scheme;
    return t;
  }();
  for (auto& [scheme, map] : readers) {
    json row = {{"scheme", scheme},
                {"map", map},
                {"seeds", json::array()},
                {"whole", json::array()},
                {"symbol", json::array()}};
    for (auto& it : items) {
      if (it.scheme != scheme) continue;
      progress.update(fmt::format("[passkey] reading {} seed {} ({}/{})", map.label(scheme), it.seed, ++done, total));
      json whole = json::array(), symbol = json::array();
      LoadedPasskey cp = load_passkey_checkpoint(it.path);
      for (int n : s.lengths) {
        cp.model->scheme().read_with(map, it.train_length, n);                // this reading's plan
        const int reach = it.random_positions > 0 ? it.random_positions : n;  // the positions read: 0 .. reach - 1
        cp.model->prepare(reach);
        if (!cp.model->scheme().can_read(reach - 1)) {  // a learned table too short: no answer past it
          whole.push_back(nullptr), symbol.push_back(nullptr);
          continue;
        }
        const auto cells =
            read_cells(*cp.model, it.spec, n, depths, s.cell_sequences, s.test_seed, it.random_positions);
        json w = json::array(), y = json::array();
        for (auto& c : cells) {
          w.push_back(double(c.whole) / s.cell_sequences);
          y.push_back(double(c.symbols) / (double(s.cell_sequences) * it.spec.symbols));
        }
        whole.push_back(w), symbol.push_back(y);
      }
      row["seeds"].push_back(it.seed);
      row["whole"].push_back(whole);
      row["symbol"].push_back(symbol);
    }
    // per length: the depth-averaged accuracy over seeds, its interval; the per-depth mean
    json by_len = json::array(), hw = json::array(), sym_len = json::array(), grid = json::array();
    for (size_t li = 0; li < s.lengths.size(); ++li) {
      std::vector<double> per_seed, per_seed_sym;
      std::vector<double> cell_mean(depths.size(), 0.0);
      bool readable = true;
      for (size_t si = 0; si < row["seeds"].size(); ++si) {
        const json& w = row["whole"][si][li];
        if (w.is_null()) {
          readable = false;
          break;
        }
        const auto v = w.get<std::vector<double>>();
        per_seed.push_back(depth_mean(v));
        per_seed_sym.push_back(depth_mean(row["symbol"][si][li].get<std::vector<double>>()));
        for (size_t d = 0; d < v.size(); ++d) cell_mean[d] += v[d] / row["seeds"].size();
      }
      if (!readable) {
        by_len.push_back(nullptr), hw.push_back(nullptr), sym_len.push_back(nullptr), grid.push_back(nullptr);
        continue;
      }
      const stats::Summary sum = stats::summarize(per_seed);
      by_len.push_back(sum.mean);
      hw.push_back(stats::accuracy_half_width(sum, s.cell_sequences * int(depths.size())));
      sym_len.push_back(stats::summarize(per_seed_sym).mean);
      grid.push_back(cell_mean);
    }
    row["accuracy"] = by_len;
    row["half_width"] = hw;
    row["symbol_accuracy"] = sym_len;
    row["depth_grid"] = grid;  // [length][depth]: whole-passkey accuracy, mean over seeds
    rows.push_back(row);
  }
  std::vector<PackedReading> packed;
  for (size_t i = 0; s.packed_windows > 0 && i < items.size(); ++i) {
    const Item& it = items[i];
    progress.update(
        fmt::format("[passkey] reading {} seed {} on packed windows ({}/{})", it.scheme, it.seed, i + 1, items.size()));
    LoadedPasskey cp = load_passkey_checkpoint(it.path);
    cp.model->scheme().read_with(identity_spec(), it.train_length, it.train_length);
    cp.model->prepare(it.train_length);
    PackedReading r{it.scheme, it.seed, {}};
    for (Packing layout : packed_reading_layouts())
      r.counts.push_back(read_packed_windows(*cp.model, it.spec, it.train_length, s.doc_min_length, s.packed_windows,
                                             s.test_seed, layout));
    packed.push_back(r);
  }
  progress.done();
  const PasskeySpec& spec = items.front().spec;
  json results = {{"task", "passkey"},
                  {"lengths", s.lengths},
                  {"depths", depths},
                  {"cell_sequences", s.cell_sequences},
                  {"test_seed", s.test_seed},
                  {"train_length", items.front().train_length},
                  {"passkey", {{"symbols", spec.symbols}, {"alphabet", spec.alphabet}, {"filler", spec.filler}}},
                  {"rows", rows}};
  if (!packed.empty()) results["packed"] = packed_section(packed, s.packed_windows, s.doc_min_length);
  add_passkey_intervals(results);
  return results;
}

void add_passkey_intervals(json& results) {
  const long n_test = results.at("cell_sequences").get<long>() * long(results.at("depths").size());
  for (auto& row : results.at("rows")) {
    // each seed's whole-passkey accuracy at each length (the mean over depths), then the interval
    json per_seed = json::array(), lo = json::array(), hi = json::array();
    for (auto& whole : row.at("whole")) {
      json acc = json::array();
      for (auto& w : whole) acc.push_back(w.is_null() ? json(nullptr) : json(depth_mean(w.get<std::vector<double>>())));
      per_seed.push_back(acc);
    }
    for (size_t li = 0; li < results.at("lengths").size(); ++li) {
      std::vector<double> v;
      for (auto& acc : per_seed)
        if (!acc[li].is_null()) v.push_back(acc[li]);
      if (v.empty() || v.size() != per_seed.size()) {
        lo.push_back(nullptr), hi.push_back(nullptr);
        continue;
      }
      const stats::ProportionInterval iv = stats::proportion_interval(v, n_test);
      lo.push_back(iv.lo), hi.push_back(iv.hi);
    }
    row["seed_accuracy"] = per_seed, row["lo"] = lo, row["hi"] = hi;
  }
  results["interval"] = stats::kProportionIntervalMethod;
}

namespace {
std::string pm_cell_text(const json& v) {
  if (v.is_null()) return "—";
  return fmt::format("{:.3f}", v.get<double>());
}
// "0.335 [0.001, 0.997]": the mean and its 95% interval (files from before the logit intervals: the
// mean alone, since their symmetric half-width can pass 0 and 1)
std::string pm_cell_text(const json& row, size_t i) {
  const json& v = row["accuracy"][i];
  if (v.is_null()) return "—";
  if (!row.contains("lo") || row["lo"][i].is_null()) return pm_cell_text(v);
  return stats::proportion_cell(v.get<double>(), row["lo"][i].get<double>(), row["hi"][i].get<double>());
}
bool passkey_has_intervals(const json& r) { return !r["rows"].empty() && r["rows"][0].contains("lo"); }
}  // namespace

std::string format_passkey_table(const json& r) {
  std::string s = fmt::format(
      "passkey retrieval: {} symbols from {}, filler of {} words; trained at {}; {} depths x {} "
      "sequences per length\nwhole-passkey accuracy (mean over depths and seeds, {})\n",
      r["passkey"]["symbols"].get<int>(), r["passkey"]["alphabet"].get<int>(), r["passkey"]["filler"].get<int>(),
      r["train_length"].get<int>(), r["depths"].size(), r["cell_sequences"].get<int>(),
      passkey_has_intervals(r) ? "[95% interval]" : "no interval");
  s += fmt::format("{:<18}", "reader");
  for (auto& n : r["lengths"]) s += fmt::format("{:>22}", n.get<int>());
  s += fmt::format("   {:>8}\n", "seeds");
  for (auto& row : r["rows"]) {
    s += fmt::format("{:<18}", reader_label(row));
    for (size_t i = 0; i < row["accuracy"].size(); ++i) {
      const std::string t = pm_cell_text(row, i);
      s += fmt::format("{:>{}}", t, 22 + (t == "—" ? 2 : 0));
    }
    s += fmt::format("   {:>8}\n", row["seeds"].size());
  }
  s += "per-symbol accuracy (each symbol given the right ones before it)\n";
  for (auto& row : r["rows"]) {
    s += fmt::format("{:<18}", reader_label(row));
    for (auto& v : row["symbol_accuracy"]) {
      const std::string t = pm_cell_text(v);
      s += fmt::format("{:>{}}", t, 22 + (t == "—" ? 2 : 0));
    }
    s += "\n";
  }
  s += format_packed_table(r);
  if (passkey_has_intervals(r)) s += "[lo, hi]: " + r["interval"].get<std::string>() + "\n";
  return s;
}

std::string format_passkey_markdown(const json& r) {
  std::string s = fmt::format(
      "# Passkey retrieval\n\nA passkey of {} distinct symbols (from {}) planted at a depth of a filler of {} random "
      "words, asked for at the end. Trained at length {}; read at every length on {} depths x {} test sequences "
      "(shared by every reader). Whole-passkey accuracy (all symbols right, greedy), mean over depths and seeds; "
      "{}.\n\n",
      r["passkey"]["symbols"].get<int>(), r["passkey"]["alphabet"].get<int>(), r["passkey"]["filler"].get<int>(),
      r["train_length"].get<int>(), r["depths"].size(), r["cell_sequences"].get<int>(),
      r["interval"].get<std::string>());
  s += "| reader | seeds |";
  for (auto& n : r["lengths"]) s += fmt::format(" {} |", n.get<int>());
  s += "\n|---|---|";
  for (size_t i = 0; i < r["lengths"].size(); ++i) s += "---|";
  s += "\n";
  for (auto& row : r["rows"]) {
    s += fmt::format("| {} | {} |", reader_label(row), row["seeds"].size());
    for (size_t i = 0; i < row["accuracy"].size(); ++i) s += fmt::format(" {} |", pm_cell_text(row, i));
    s += "\n";
  }
  s += "\nPer-symbol accuracy (each symbol given the right ones before it):\n\n| reader |";
  for (auto& n : r["lengths"]) s += fmt::format(" {} |", n.get<int>());
  s += "\n|---|";
  for (size_t i = 0; i < r["lengths"].size(); ++i) s += "---|";
  s += "\n";
  for (auto& row : r["rows"]) {
    s += fmt::format("| {} |", reader_label(row));
    for (auto& v : row["symbol_accuracy"]) s += fmt::format(" {} |", pm_cell_text(v));
    s += "\n";
  }
  s += "\nBy depth (rows: depth from the start of the filler, 0 to 1; columns: length; whole-passkey accuracy, mean "
       "over seeds):\n";
  for (auto& row : r["rows"]) {
    s += fmt::format("\n**{}**\n\n| depth |", reader_label(row));
    for (auto& n : r["lengths"]) s += fmt::format(" {} |", n.get<int>());
    s += "\n|---|";
    for (size_t i = 0; i < r["lengths"].size(); ++i) s += "---|";
    s += "\n";
    for (size_t d = 0; d < r["depths"].size(); ++d) {
      s += fmt::format("| {:.2f} |", r["depths"][d].get<double>());
      for (auto& g : row["depth_grid"]) s += g.is_null() ? " — |" : fmt::format(" {:.2f} |", g[d].get<double>());
      s += "\n";
    }
  }
  return s + format_packed_markdown(r);
}

std::string compare_passkey_readers(const json& results, const std::string& a, const std::string& b, int length) {
  const long n_test = results.at("cell_sequences").get<long>() * long(results.at("depths").size());
  return compare_grid_readers(results, a, b, length, "whole-passkey accuracy, mean over depths", n_test);
}

}  // namespace pe
