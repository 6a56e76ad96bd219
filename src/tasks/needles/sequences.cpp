#include "tasks/needles/sequences.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/errors.h"

namespace pe {

using nlohmann::json;

namespace {

class NeedleSource final : public ProbeSource {
 public:
  explicit NeedleSource(const json& shape)
      : counts_(shape.at("needle_counts").get<std::vector<int>>()),
        A_(shape.at("needle_alphabet").get<int>()),
        W_(shape.at("filler_words").get<int>()) {
    if (counts_.empty()) throw ConfigError("key 'needle_counts': give at least one count of needles");
    K_ = *std::max_element(counts_.begin(), counts_.end());
    if (K_ > A_)
      throw ConfigError(
          fmt::format("key 'needle_alphabet' ({}) must be at least the largest of needle_counts ({}): a "
                      "sequence's needles are distinct",
                      A_, K_));
  }
  std::vector<std::string> token_names() const override {
    std::vector<std::string> names;
    for (int w = 0; w < W_; ++w) names.push_back(fmt::format("w{}", w));
    for (int a = 0; a < A_; ++a) names.push_back(fmt::format("s{}", a));
    names.insert(names.end(), {"NEEDLE", "QUERY", "ASK"});
    for (int i = 1; i <= K_; ++i) names.push_back(fmt::format("I{}", i));
    return names;
  }
  int min_length() const override { return std::max(3 * K_, 2 * K_ + 2); }
  std::vector<std::string> cells() const override {
    std::vector<std::string> c;
    for (int k : counts_)
      c.push_back(fmt::format("{} needles, all", k)), c.push_back(fmt::format("{} needles, i-th", k));
    return c;
  }
  int slots() const override { return K_; }
  std::string slot_name() const override { return "needle"; }

  void sequence(uint64_t key, int n, int cell, int* x, int* y, int* slot) const override {
    Rng rng(key);
    const int k = cell < 0 ? counts_[rng.below(int(counts_.size()))] : counts_[cell / 2];
    const bool all = cell < 0 ? rng.below(2) == 0 : cell % 2 == 0;
    const int needle = W_ + A_, query = needle + 1, ask = needle + 2, first_index = needle + 3;
    std::vector<int> s = distinct_draw(rng, A_, k);
    const int F = all ? n - 3 * k : n - 2 * k - 2;
    const std::vector<int> gaps = spread_gaps(rng, F, k);
    std::vector<int> t;
    t.reserve(n + 1);
    for (int j = 0; j <= k; ++j) {
      for (int w = 0; w < gaps[j]; ++w) t.push_back(rng.below(W_));
      if (j < k) t.push_back(needle), t.push_back(W_ + s[j]);
    }
    int asked = -1;
    if (all) {
      t.push_back(query);
      for (int j = 0; j < k; ++j) t.push_back(W_ + s[j]);
    } else {
      asked = rng.below(k);
      t.push_back(ask), t.push_back(first_index + asked), t.push_back(W_ + s[asked]);
    }
    for (int i = 0; i < n; ++i) x[i] = t[i], y[i] = -1, slot[i] = -1;
    if (all)
      for (int j = 0; j < k; ++j) y[n - k + j] = t[n - k + j + 1], slot[n - k + j] = j;
    else
      y[n - 1] = t[n], slot[n - 1] = asked;
  }

 private:
  std::vector<int> counts_;
  int A_, W_, K_ = 0;
};

}  // namespace

ProbeKind needles_kind() {
  ProbeKind k;
  k.name = "needles";
  k.description = "multi-needle retrieval: k needles spread through filler, asked for all in order or for the i-th";
  k.title = "Multi-needle retrieval";
  k.cell_axis = "needles and question";
  k.shape_keys = {
      {"needle_counts",
       KeyType::IntList,
       {2, 4, 8},
       "needles per sequence: training draws one of them per sequence, reading reads each (with both questions)",
       1,
       16},
      {"needle_alphabet", KeyType::Int, 16, "symbols a needle draws from (a sequence's needles are distinct)", 2, 64},
      {"filler_words", KeyType::Int, 16, "words of the filler vocabulary", 1, 256}};
  k.make = [](const json& shape) -> std::unique_ptr<ProbeSource> { return std::make_unique<NeedleSource>(shape); };
  k.describe = [](const json& shape) {
    return fmt::format(
        "Needles NEEDLE s (distinct symbols of {}) spread through a filler of {} random words, {} per sequence; the "
        "question asks for all of them in order (QUERY s_1 .. s_k) or for the i-th (ASK I_i).",
        shape.at("needle_alphabet").get<int>(), shape.at("filler_words").get<int>(), shape.at("needle_counts").dump());
  };
  k.gradcheck_shape = {{"needle_counts", {2}}, {"needle_alphabet", 3}, {"filler_words", 2}};
  k.gradcheck_length = 9;
  return k;
}

}  // namespace pe
