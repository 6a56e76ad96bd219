#include "tasks/distractors/sequences.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/errors.h"

namespace pe {

using nlohmann::json;

namespace {

class DistractorSource final : public ProbeSource {
 public:
  explicit DistractorSource(const json& shape)
      : counts_(shape.at("distractor_counts").get<std::vector<int>>()),
        m_(shape.at("key_symbols").get<int>()),
        Ak_(shape.at("key_alphabet").get<int>()),
        Av_(shape.at("value_alphabet").get<int>()),
        W_(shape.at("filler_words").get<int>()) {
    if (counts_.empty()) throw ConfigError("key 'distractor_counts': give at least one count of distractors");
    C_ = *std::max_element(counts_.begin(), counts_.end());
  }
  std::vector<std::string> token_names() const override {
    std::vector<std::string> names;
    for (int w = 0; w < W_; ++w) names.push_back(fmt::format("w{}", w));
    for (int a = 0; a < Ak_; ++a) names.push_back(fmt::format("k{}", a));
    for (int a = 0; a < Av_; ++a) names.push_back(fmt::format("v{}", a));
    names.insert(names.end(), {"KEY", "QUERY"});
    return names;
  }
  int min_length() const override { return (C_ + 1) * (m_ + 2) + m_ + 1; }
  std::vector<std::string> cells() const override {
    std::vector<std::string> c;
    for (int count : counts_)
      for (int j = 0; j < m_; ++j) c.push_back(fmt::format("{} distractors, {} of {} shared", count, j, m_));
    return c;
  }
  int slots() const override { return 1; }

  void sequence(uint64_t key, int n, int cell, int* x, int* y, int* slot) const override {
    Rng rng(key);
    const int c = cell < 0 ? counts_[rng.below(int(counts_.size()))] : counts_[cell / m_];
    const int shared = cell < 0 ? rng.below(m_) : cell % m_;
    const int keys0 = W_, values0 = W_ + Ak_, KEY = W_ + Ak_ + Av_, QUERY = KEY + 1;
    std::vector<int> target(m_);
    for (int& s : target) s = rng.below(Ak_);
    const int value = rng.below(Av_);
    const int at = rng.below(c + 1);  // the queried pair's place among the pairs
    std::vector<std::vector<int>> pair_keys(c + 1);
    std::vector<int> pair_values(c + 1);
    for (int p = 0; p <= c; ++p) {
      if (p == at) {
        pair_keys[p] = target, pair_values[p] = value;
        continue;
      }
      const std::vector<int> same = distinct_draw(rng, m_, shared);
      std::vector<int> k(m_);
      for (int i = 0; i < m_; ++i) {
        if (std::find(same.begin(), same.end(), i) != same.end()) {
          k[i] = target[i];
        } else {
          const int other = rng.below(Ak_ - 1);
          k[i] = other >= target[i] ? other + 1 : other;
        }
      }
      const int v = rng.below(Av_ - 1);
      pair_keys[p] = k, pair_values[p] = v >= value ? v + 1 : v;
    }
    const int F = n - (c + 1) * (m_ + 2) - m_ - 1;
    const std::vector<int> gaps = spread_gaps(rng, F, c + 1);
    std::vector<int> t;
    t.reserve(n + 1);
    for (int p = 0; p <= c + 1; ++p) {
      for (int w = 0; w < gaps[p]; ++w) t.push_back(rng.below(W_));
      if (p > c) break;
      t.push_back(KEY);
      for (int s : pair_keys[p]) t.push_back(keys0 + s);
      t.push_back(values0 + pair_values[p]);
    }
    t.push_back(QUERY);
    for (int s : target) t.push_back(keys0 + s);
    t.push_back(values0 + value);
    for (int i = 0; i < n; ++i) x[i] = t[i], y[i] = -1, slot[i] = -1;
    y[n - 1] = t[n], slot[n - 1] = 0;
  }

 private:
  std::vector<int> counts_;
  int m_, Ak_, Av_, W_, C_ = 0;
};

}  // namespace

ProbeKind distractors_kind() {
  ProbeKind k;
  k.name = "distractors";
  k.description = "distractor retrieval: key-value pairs whose keys share symbols with the queried key";
  k.title = "Distractor retrieval";
  k.cell_axis = "distractors and symbols they share with the queried key";
  k.shape_keys = {{"distractor_counts",
                   KeyType::IntList,
                   {1, 4, 8},
                   "distractor pairs per sequence: training draws one of them per sequence, reading reads each",
                   0,
                   32},
                  {"key_symbols", KeyType::Int, 3, "symbols in a key (m); distractors share 0 .. m-1 of them", 1, 8},
                  {"key_alphabet", KeyType::Int, 8, "symbols a key draws from", 2, 64},
                  {"value_alphabet", KeyType::Int, 10, "values a pair draws from", 2, 64},
                  {"filler_words", KeyType::Int, 16, "words of the filler vocabulary", 1, 256}};
  k.make = [](const json& shape) -> std::unique_ptr<ProbeSource> { return std::make_unique<DistractorSource>(shape); };
  k.describe = [](const json& shape) {
    return fmt::format(
        "Pairs KEY k_1 .. k_{} v (key symbols of {}, values of {}) spread through a filler of {} random words; "
        "{} distractor pairs whose keys share 0 .. {} symbols in place with the queried key (and whose values "
        "differ from its value); QUERY k_1 .. k_{} asks for the value.",
        shape.at("key_symbols").get<int>(), shape.at("key_alphabet").get<int>(), shape.at("value_alphabet").get<int>(),
        shape.at("filler_words").get<int>(), shape.at("distractor_counts").dump(),
        shape.at("key_symbols").get<int>() - 1, shape.at("key_symbols").get<int>());
  };
  k.gradcheck_shape = {
      {"distractor_counts", {1}}, {"key_symbols", 2}, {"key_alphabet", 3}, {"value_alphabet", 3}, {"filler_words", 2}};
  k.gradcheck_length = 12;
  return k;
}

}  // namespace pe
