#include "tasks/passkey/packed_reading.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/fpenv.h"
#include "core/parallel.h"
#include "harness/statistics.h"
#include "models/block_stack_trainer.h"
#include "models/cross_entropy.h"

namespace pe {

using nlohmann::json;

const std::vector<Packing>& packed_reading_layouts() {
  static const std::vector<Packing> layouts = {Packing::Packed, Packing::IsolatedReset, Packing::IsolatedGlobal};
  return layouts;
}

PackedCount read_packed_windows(const BlockStack<float>& model, const PasskeySpec& spec, int T, int min_length,
                                int windows, uint64_t test_seed, Packing layout) {
  const int k = spec.symbols, V = model.config().vocab;
  const int per_chunk = std::max(1, kBlockStackChunkTokens / T);
  const int chunks = (windows + per_chunk - 1) / per_chunk;
  std::vector<PackedCount> counts(chunks);
  std::vector<BlockStackCache<float>> caches(max_threads());
#pragma omp parallel for schedule(dynamic, 1) if (!in_parallel())
  for (int c = 0; c < chunks; ++c) {
    const ScopedFlushToZero ftz;
    const int i0 = c * per_chunk, nb = std::min(per_chunk, windows - i0);
    std::vector<int> x(size_t(nb) * T), y(size_t(nb) * T);
    std::vector<std::vector<int>> lengths(nb);
    BatchCoordinates at;
    for (int b = 0; b < nb; ++b) {
      passkey_test_window(spec, test_seed, T, min_length, i0 + b, &x[size_t(b) * T], &y[size_t(b) * T], lengths[b]);
      at.append(lay_out_window(layout, lengths[b], T));
    }
    auto& cache = caches[thread_index()];
    model.forward(x.data(), y.data(), nb, T, cache, 0, Visibility{}, nullptr, at.view());
    PackedCount& n = counts[c];
    for (int b = 0; b < nb; ++b) {
      const size_t base = size_t(b) * T;
      std::vector<int> firsts;  // the first passkey symbol of each document before this one
      int start = 0;
      for (int L : lengths[b]) {
        const size_t r0 = base + start + L - k;  // the QUERY row: its target is the first symbol
        int right = 0;
        for (int r = 0; r < k; ++r) right += argmax_of(&cache.logits[(r0 + r) * V], V) == y[r0 + r];
        ++n.docs;
        n.whole += right == k;
        if (!firsts.empty()) ++n.later, n.later_whole += right == k;
        const int own = y[r0], said = argmax_of(&cache.logits[r0 * V], V);
        const bool other_first = std::any_of(firsts.begin(), firsts.end(), [&](int f) { return f != own; });
        if (other_first) {
          ++n.exposed;
          n.distracted += said != own && std::find(firsts.begin(), firsts.end(), said) != firsts.end();
        }
        firsts.push_back(own);
        start += L;
      }
    }
  }
  PackedCount total;
  for (auto& c : counts)
    total.docs += c.docs, total.whole += c.whole, total.exposed += c.exposed, total.distracted += c.distracted,
        total.later += c.later, total.later_whole += c.later_whole;
  return total;
}

json packed_section(const std::vector<PackedReading>& readings, int windows, int min_length) {
  json layouts = json::array();
  for (Packing p : packed_reading_layouts()) layouts.push_back(packing_name(p));
  json rows = json::array();
  std::vector<std::string> schemes;
  for (auto& r : readings)
    if (std::find(schemes.begin(), schemes.end(), r.scheme) == schemes.end()) schemes.push_back(r.scheme);
  long docs = 0, exposed = 0, later = 0;
  for (auto& scheme : schemes) {
    json row = {{"scheme", scheme}, {"seeds", json::array()}};
    for (size_t li = 0; li < packed_reading_layouts().size(); ++li) {
      std::vector<double> whole, later_whole, distracted;
      for (auto& r : readings) {
        if (r.scheme != scheme) continue;
        if (li == 0) row["seeds"].push_back(r.seed);
        const PackedCount& c = r.counts[li];
        docs = c.docs, exposed = c.exposed, later = c.later;
        whole.push_back(double(c.whole) / std::max(1L, c.docs));
        later_whole.push_back(double(c.later_whole) / std::max(1L, c.later));
        distracted.push_back(double(c.distracted) / std::max(1L, c.exposed));
      }
      const stats::ProportionInterval iv = stats::proportion_interval(whole, std::max(1L, docs)),
                                      lv = stats::proportion_interval(later_whole, std::max(1L, later));
      row[layouts[li].get<std::string>()] = {{"whole", whole},
                                             {"later_whole", later_whole},
                                             {"distracted", distracted},
                                             {"accuracy", iv.mean},
                                             {"lo", iv.lo},
                                             {"hi", iv.hi},
                                             {"later_accuracy", lv.mean},
                                             {"later_lo", lv.lo},
                                             {"later_hi", lv.hi},
                                             {"distractor_rate", stats::summarize(distracted).mean}};
    }
    rows.push_back(row);
  }
  return {{"windows", windows}, {"doc_min_length", min_length}, {"documents", docs}, {"later", later},
          {"exposed", exposed}, {"layouts", layouts},           {"rows", rows}};
}

std::string format_packed_table(const json& results) {
  if (!results.contains("packed")) return "";
  const json& p = results["packed"];
  std::string s = fmt::format(
      "packed windows: {} windows of {} tokens ({} documents of {} .. {}); whole-passkey accuracy of the documents "
      "after the first of their window [95% interval] / distractor rate, per layout\n{:<12}",
      p["windows"].get<int>(), results["train_length"].get<int>(), p["documents"].get<long>(),
      p["doc_min_length"].get<int>(), results["train_length"].get<int>(), "reader");
  for (auto& l : p["layouts"]) s += fmt::format("{:>32}", l.get<std::string>());
  s += "\n";
  for (auto& row : p["rows"]) {
    s += fmt::format("{:<12}", row["scheme"].get<std::string>());
    for (auto& l : p["layouts"]) {
      const json& c = row[l.get<std::string>()];
      s += fmt::format("{:>32}", stats::proportion_cell(c["later_accuracy"].get<double>(), c["later_lo"].get<double>(),
                                                        c["later_hi"].get<double>()) +
                                     fmt::format(" / {:.3f}", c["distractor_rate"].get<double>()));
    }
    s += "\n";
  }
  return s;
}

std::string format_packed_markdown(const json& results) {
  if (!results.contains("packed")) return "";
  const json& p = results["packed"];
  std::string s = fmt::format(
      "\n## Packed windows\n\n{} test windows of {} tokens, each holding whole passkey problems of {} .. {} tokens one "
      "after another ({} documents, {} of them after the first of their window; {} follow a document whose passkey "
      "starts with another symbol), read under three layouts: across documents with global positions (packed), each "
      "document isolated with its positions reset (isolated-reset: as if alone), isolated with global positions "
      "(isolated-global). Whole-passkey accuracy, mean over seeds [95% interval], of every document (all) and of the "
      "documents after the first of their window (later: the first sees no other in any layout); distractor: of the "
      "documents after one whose passkey starts with another symbol, the share whose first answer is such an earlier "
      "document's first symbol (mean over seeds).\n\n",
      p["windows"].get<int>(), results["train_length"].get<int>(), p["doc_min_length"].get<int>(),
      results["train_length"].get<int>(), p["documents"].get<long>(), p["later"].get<long>(), p["exposed"].get<long>());
  s += "| reader | seeds |";
  for (auto& l : p["layouts"]) s += fmt::format(" {0}: all | {0}: later | distractor |", l.get<std::string>());
  s += "\n|---|---|";
  for (size_t i = 0; i < p["layouts"].size(); ++i) s += "---|---|---|";
  s += "\n";
  for (auto& row : p["rows"]) {
    s += fmt::format("| {} | {} |", row["scheme"].get<std::string>(), row["seeds"].size());
    for (auto& l : p["layouts"]) {
      const json& c = row[l.get<std::string>()];
      s +=
          fmt::format(" {} | {} | {:.3f} |",
                      stats::proportion_cell(c["accuracy"].get<double>(), c["lo"].get<double>(), c["hi"].get<double>()),
                      stats::proportion_cell(c["later_accuracy"].get<double>(), c["later_lo"].get<double>(),
                                             c["later_hi"].get<double>()),
                      c["distractor_rate"].get<double>());
    }
    s += "\n";
  }
  return s;
}

}  // namespace pe
