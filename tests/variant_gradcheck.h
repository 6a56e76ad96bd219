// The gradient check of a scheme's setting that the scheme-wide checks (every scheme at its defaults,
// pe-bench gradcheck) do not reach: a 2-layer block stack of 2 heads (width 8, vocabulary 11) at 12
// tokens, the plain batch and every batch mode (models/gradcheck.h), each tensor against central
// differences in double. CHECKs every row and returns how many rows were the scheme's own tensors
// (their names contain `own`), for the caller to hold to what the variant declares.
#pragma once
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/block_stack.h"
#include "models/gradcheck.h"

inline int check_variant_gradients(const std::string& what, const std::string& scheme, const nlohmann::json& settings,
                                   const std::string& own) {
  pe::BlockStackConfig cfg;
  cfg.vocab = 11, cfg.d_model = 8, cfg.n_heads = 2, cfg.n_layers = 2;
  cfg.scheme.name = scheme;
  cfg.scheme.train_length = 12;
  cfg.scheme.settings = settings;
  const int B = 2, T = 12;
  std::vector<int> x(size_t(B) * T), y(size_t(B) * T);
  for (int i = 0; i < B * T; ++i) x[size_t(i)] = (i * 5 + 1) % 11, y[size_t(i)] = (i * 3 + 2) % 11;
  auto rows = pe::gradcheck_block_stack(what, cfg, 3, x, y, B, T, 4);
  const auto modes = pe::gradcheck_block_stack_modes(what, cfg, 3);
  rows.insert(rows.end(), modes.begin(), modes.end());
  int n = 0;
  for (auto& r : rows) {
    INFO(r.what, " ", r.tensor, " ", r.mode, " worst rel ", r.max_rel, " worst abs ", r.max_abs);
    CHECK(r.ok);
    n += r.tensor.find(own) != std::string::npos;
  }
  return n;
}
