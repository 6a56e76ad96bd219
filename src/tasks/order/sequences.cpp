#include "tasks/order/sequences.h"

#include <fmt/format.h>

namespace pe {

using nlohmann::json;

namespace {

constexpr const char* kGapNames[3] = {"near", "middle", "far"};

class OrderSource final : public ProbeSource {
 public:
  explicit OrderSource(const json& shape)
      : A_(shape.at("order_alphabet").get<int>()), W_(shape.at("filler_words").get<int>()) {}
  std::vector<std::string> token_names() const override {
    std::vector<std::string> names;
    for (int w = 0; w < W_; ++w) names.push_back(fmt::format("w{}", w));
    for (int a = 0; a < A_; ++a) names.push_back(fmt::format("s{}", a));
    names.insert(names.end(), {"MARK", "FIRST", "SECOND"});
    return names;
  }
  int min_length() const override { return 7; }  // F >= 2: each gap class holds a gap
  std::vector<std::string> cells() const override {
    std::vector<std::string> c;
    for (const char* q : {"first", "second"})
      for (const char* g : kGapNames) c.push_back(fmt::format("{}, {} marks", q, g));
    return c;
  }
  int slots() const override { return 1; }

  void sequence(uint64_t key, int n, int cell, int* x, int* y, int* slot) const override {
    Rng rng(key);
    const bool first = cell < 0 ? rng.below(2) == 0 : cell < 3;
    const int gap_class = cell < 0 ? rng.below(3) : cell % 3;
    const int F = n - 5;
    const int bounds[4] = {0, F / 8 + 1, F / 2 + 1, F + 1};  // class c: g in [bounds[c], bounds[c + 1])
    const int g = bounds[gap_class] + rng.below(bounds[gap_class + 1] - bounds[gap_class]);
    const int before = rng.below(F - g + 1);
    const std::vector<int> s = distinct_draw(rng, A_, 2);
    const int mark = W_ + A_;
    std::vector<int> t;
    t.reserve(n + 1);
    for (int w = 0; w < F; ++w) {
      if (w == before) t.push_back(mark), t.push_back(W_ + s[0]);
      if (w == before + g) t.push_back(mark), t.push_back(W_ + s[1]);
      t.push_back(rng.below(W_));
    }
    if (before == F) t.push_back(mark), t.push_back(W_ + s[0]);  // g = 0: the pair after every filler word
    if (before + g == F) t.push_back(mark), t.push_back(W_ + s[1]);
    t.push_back(first ? mark + 1 : mark + 2);
    t.push_back(W_ + s[first ? 0 : 1]);
    for (int i = 0; i < n; ++i) x[i] = t[i], y[i] = -1, slot[i] = -1;
    y[n - 1] = t[n], slot[n - 1] = 0;
  }

 private:
  int A_, W_;
};

}  // namespace

ProbeKind order_kind() {
  ProbeKind k;
  k.name = "order";
  k.description = "relative order: two marked tokens anywhere; which came first (or second)?";
  k.title = "Relative order";
  k.cell_axis = "question and gap between the marks";
  k.shape_keys = {{"order_alphabet", KeyType::Int, 16, "symbols a mark draws from (the two marks are distinct)", 2, 64},
                  {"filler_words", KeyType::Int, 16, "words of the filler vocabulary", 1, 256}};
  k.make = [](const json& shape) -> std::unique_ptr<ProbeSource> { return std::make_unique<OrderSource>(shape); };
  k.describe = [](const json& shape) {
    return fmt::format(
        "Two marks MARK s (distinct symbols of {}) anywhere in a filler of {} random words; FIRST asks for the "
        "earlier mark's symbol, SECOND for the later one's.",
        shape.at("order_alphabet").get<int>(), shape.at("filler_words").get<int>());
  };
  k.gradcheck_shape = {{"order_alphabet", 3}, {"filler_words", 2}};
  k.gradcheck_length = 9;
  return k;
}

}  // namespace pe
