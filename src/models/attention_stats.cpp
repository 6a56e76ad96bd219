#include "models/attention_stats.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/errors.h"
#include "models/block_stack.h"
#include "models/cue_head.h"

namespace pe {

AttentionStats::AttentionStats(int layers, int heads, int train_length, int max_length)
    : layers_(layers), heads_(heads), train_length_(train_length), n_bins_(bin_of(std::max(1, max_length - 1)) + 1) {
  cells_.resize(size_t(layers) * heads);
  for (auto& c : cells_) c.bins.assign(n_bins_, 0.0);
}

int AttentionStats::bin_of(int distance) {
  int b = 0;
  while (distance > 0) ++b, distance >>= 1;
  return b;
}

void AttentionStats::add_row(int layer, int head, int qpos, const int* kpos, const float* p, int nk) {
  if (layer < 0 || layer >= layers_ || head < 0 || head >= heads_)
    throw Error("attention stats: layer/head out of range");
  Cell& c = cells_[size_t(layer) * heads_ + head];
  double h = 0, sink = 0, beyond = 0;
  for (int t = 0; t < nk; ++t) {
    const double q = p[t];
    const int d = std::abs(qpos - kpos[t]);
    if (q > 0) h -= q * std::log(q);
    if (kpos[t] == 0) sink += q;
    if (d >= train_length_) beyond += q;
    c.bins[std::min(bin_of(d), n_bins_ - 1)] += q;
  }
  c.rows += 1, c.entropy += h, c.sink += sink, c.beyond += beyond;
  c.max_entropy += std::log(double(std::max(1, nk)));
  if (nk >= 2) c.ratio += h / std::log(double(nk)), c.ratio_rows += 1;
}

nlohmann::json AttentionStats::to_json() const {
  auto cell_json = [&](const Cell& c) {
    nlohmann::json bins = nlohmann::json::array();
    for (int b = 0; b < n_bins_; ++b)
      bins.push_back({{"lo", b == 0 ? 0 : 1 << (b - 1)},
                      {"hi", b == 0 ? 0 : (1 << b) - 1},
                      {"mass", c.rows ? c.bins[b] / c.rows : 0.0}});
    const double n = std::max(1.0, c.rows);
    return nlohmann::json{{"rows", c.rows},
                          {"distance_bins", bins},
                          {"sink_mass", c.sink / n},
                          {"entropy", c.entropy / n},
                          {"max_entropy", c.max_entropy / n},
                          {"entropy_ratio", c.ratio_rows ? c.ratio / c.ratio_rows : 0.0},
                          {"beyond_training_mass", c.beyond / n}};
  };
  nlohmann::json heads = nlohmann::json::array(), layers = nlohmann::json::array();
  for (int l = 0; l < layers_; ++l) {
    Cell all;
    all.bins.assign(n_bins_, 0.0);
    for (int h = 0; h < heads_; ++h) {
      const Cell& c = cells_[size_t(l) * heads_ + h];
      nlohmann::json j = cell_json(c);
      j["layer"] = l, j["head"] = h;
      heads.push_back(j);
      all.rows += c.rows, all.sink += c.sink, all.entropy += c.entropy, all.max_entropy += c.max_entropy;
      all.ratio += c.ratio, all.ratio_rows += c.ratio_rows, all.beyond += c.beyond;
      for (int b = 0; b < n_bins_; ++b) all.bins[b] += c.bins[b];
    }
    nlohmann::json j = cell_json(all);
    j["layer"] = l;
    layers.push_back(j);
  }
  return {{"train_length", train_length_}, {"heads", heads}, {"layers", layers}};
}

void add_block_stack_rows(const BlockStack<float>& model, const int* x, int B, int T, int p0, const Visibility& vis,
                          AttentionStats& stats) {
  const BlockStackConfig& c = model.config();
  BlockStackCache<float> cache;
  std::vector<int> y(size_t(B) * T, -1);
  model.forward_keeping_probs(x, y.data(), B, T, cache, p0, vis);
  std::vector<int> kpos(T);
  for (int t = 0; t < T; ++t) kpos[t] = p0 + t;
  for (int l = 0; l < c.n_layers; ++l) {
    const Visibility v = vis.with_window(model.scheme().window(l));
    for (int b = 0; b < B; ++b)
      for (int h = 0; h < c.n_heads; ++h)
        for (int i = 0; i < T; ++i) {
          int first = 0;
          while (first < T && !v.visible(p0 + i, p0 + first)) ++first;
          int last = first;
          while (last < T && v.visible(p0 + i, p0 + last)) ++last;
          const float* p = &cache.probs[l][((size_t(b) * c.n_heads + h) * T + i) * T];
          stats.add_row(l, h, p0 + i, &kpos[first], p + first, last - first);
        }
  }
}

void add_cue_head_rows(const CueHead<float>& model, const int* x, int B, int T, AttentionStats& stats) {
  CueWorkspace<float> ws;
  const std::vector<int> no_targets(B, -1);  // read only: no loss, no prediction kept
  model.forward(x, no_targets.data(), B, T, ws);
  const Visibility v = Visibility{}.with_window(model.scheme().window(0));
  std::vector<int> kpos(T);
  for (int t = 0; t < T; ++t) kpos[t] = t;
  int first = 0;
  while (first < T && !v.visible(T - 1, first)) ++first;
  for (int b = 0; b < B; ++b)
    stats.add_row(0, 0, T - 1, &kpos[first], &ws.probs[size_t(b) * T + first], T - first);  // probs: [B, 1, T]
}

std::string format_attention_table(const nlohmann::json& a) {
  std::string out = fmt::format("{:<36} {:>6} {:>5} {:>9} {:>9} {:>9} {:>9}\n", "reading", "length", "layer", "H/ln n",
                                "H", "sink", "beyond L");
  for (const auto& r : a.at("readings"))
    for (const auto& l : r.at("stats").at("layers"))
      out += fmt::format("{:<36} {:>6} {:>5} {:>9.3f} {:>9.3f} {:>9.3f} {:>9.3f}\n", r.at("label").get<std::string>(),
                         r.at("length").get<int>(), l.at("layer").get<int>(), l.at("entropy_ratio").get<double>(),
                         l.at("entropy").get<double>(), l.at("sink_mass").get<double>(),
                         l.at("beyond_training_mass").get<double>());
  out +=
      "H/ln n: each row's entropy over the most it could be (ln of its visible keys), averaged; sink: mass on the "
      "first token; beyond L: mass on keys at distances >= the training length\n";
  return out;
}

}  // namespace pe
