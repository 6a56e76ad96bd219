#include "tasks/declarations/sequences.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/errors.h"

namespace pe {

using nlohmann::json;

namespace {

constexpr const char* kRootNames[3] = {"far", "middle", "near"};

class DeclarationSource final : public ProbeSource {
 public:
  explicit DeclarationSource(const json& shape)
      : chains_(shape.at("chain_lengths").get<std::vector<int>>()),
        N_(shape.at("code_variables").get<int>()),
        M_(shape.at("code_constants").get<int>()) {
    if (chains_.empty()) throw ConfigError("key 'chain_lengths': give at least one chain length");
    L_ = *std::max_element(chains_.begin(), chains_.end());
    if (N_ < L_ + 1)
      throw ConfigError(
          fmt::format("key 'code_variables' ({}) must exceed the longest of chain_lengths ({}): the "
                      "filler code assigns variables outside the chain",
                      N_, L_));
  }
  std::vector<std::string> token_names() const override {
    std::vector<std::string> names;
    for (int v = 0; v < N_; ++v) names.push_back(fmt::format("x{}", v));
    for (int c = 0; c < M_; ++c) names.push_back(fmt::format("c{}", c));
    names.insert(names.end(), {"=", ";", "PRINT"});
    return names;
  }
  int min_length() const override { return 4 * L_ + 2; }
  std::vector<std::string> cells() const override {
    std::vector<std::string> c;
    for (int L : chains_)
      for (const char* r : kRootNames) c.push_back(fmt::format("chain {}, root {}", L, r));
    return c;
  }
  int slots() const override { return 1; }

  void sequence(uint64_t key, int n, int cell, int* x, int* y, int* slot) const override {
    Rng rng(key);
    const int L = cell < 0 ? chains_[rng.below(int(chains_.size()))] : chains_[cell / 3];
    const double d = cell < 0 ? rng.uniform() : 0.5 * (cell % 3);
    const int S = (n - 2) / 4, pad = (n - 2) % 4;
    const int EQ = N_ + M_, SEMI = EQ + 1, PRINT = EQ + 2;
    const std::vector<int> vars = distinct_draw(rng, N_, N_);  // the chain's L first, then the others
    const int constant = rng.below(M_);
    const int root = int(std::lround(d * (S - L)));
    // the statements after the root that carry the chain: L - 1 distinct ones of (root, S), sorted
    std::vector<int> after = distinct_draw(rng, S - 1 - root, L - 1);
    std::sort(after.begin(), after.end());
    std::vector<int> at(S, -1);  // statement -> its place in the chain (-1: filler code)
    at[root] = 0;
    for (int i = 0; i < L - 1; ++i) at[root + 1 + after[i]] = i + 1;
    std::vector<int> t;
    t.reserve(n + 1);
    for (int i = 0; i < pad; ++i) t.push_back(SEMI);
    for (int s = 0; s < S; ++s) {
      int lhs, rhs;
      if (at[s] >= 0) {
        lhs = vars[at[s]];
        rhs = at[s] == 0 ? N_ + constant : vars[at[s] - 1];
      } else {
        lhs = vars[L + rng.below(N_ - L)];
        rhs = rng.below(2) == 0 ? N_ + rng.below(M_) : vars[L + rng.below(N_ - L)];
      }
      t.insert(t.end(), {lhs, EQ, rhs, SEMI});
    }
    t.insert(t.end(), {PRINT, vars[L - 1], N_ + constant});
    for (int i = 0; i < n; ++i) x[i] = t[i], y[i] = -1, slot[i] = -1;
    y[n - 1] = t[n], slot[n - 1] = 0;
  }

 private:
  std::vector<int> chains_;
  int N_, M_, L_ = 0;
};

}  // namespace

ProbeKind declarations_kind() {
  ProbeKind k;
  k.name = "declarations";
  k.description = "code with distant declarations: a variable's value through a chain of 1-3 assignments";
  k.title = "Code with distant declarations";
  k.cell_axis = "chain length and the root declaration's place";
  k.shape_keys = {
      {"chain_lengths",
       KeyType::IntList,
       {1, 2, 3},
       "statements from the constant to the printed variable: training draws one per sequence, reading reads each",
       1,
       8},
      {"code_variables", KeyType::Int, 16, "variable names (more than the longest chain)", 2, 64},
      {"code_constants", KeyType::Int, 10, "constants a program assigns", 2, 64}};
  k.make = [](const json& shape) -> std::unique_ptr<ProbeSource> { return std::make_unique<DeclarationSource>(shape); };
  k.describe = [](const json& shape) {
    return fmt::format(
        "A program of statements v = c ; and v = w ; over {} variables and {} constants; PRINT u asks for u's value, "
        "carried from a constant through a chain of {} statements among the filler code.",
        shape.at("code_variables").get<int>(), shape.at("code_constants").get<int>(), shape.at("chain_lengths").dump());
  };
  k.gradcheck_shape = {{"chain_lengths", {2}}, {"code_variables", 3}, {"code_constants", 2}};
  k.gradcheck_length = 14;
  return k;
}

}  // namespace pe
