// The character LM (groundwork): gradients and causality.
#include <doctest/doctest.h>

#include <cmath>

#include "core/rng.h"
#include "models/block_stack.h"
#include "models/gradcheck.h"
#include "schemes/scheme.h"
#include "tasks/charlm/gradcheck.h"

using namespace pe;

TEST_CASE("character LM gradients match central differences for every scheme and tensor") {
  for (auto& s : scheme_list())
    for (auto& r : gradcheck_charlm(s.name)) {
      INFO(r.what, " ", r.tensor, " worst rel ", r.max_rel, " worst abs ", r.max_abs);
      CHECK(r.ok);
    }
}

TEST_CASE("causality: logits at positions 0..T-1 of a longer sequence equal those of the prefix alone") {
  for (auto& s : scheme_list()) {
    BlockStackConfig cfg;
    cfg.vocab = 28;
    cfg.d_model = 16;
    cfg.n_heads = 4;
    cfg.scheme.name = s.name;
    cfg.scheme.train_length = 64;
    BlockStack<double> m(cfg);
    m.init(1);
    const int Tlong = 48, Tshort = 16;
    Rng rng(77);
    std::vector<int> x(Tlong), y(Tlong);
    for (auto& v : x) v = rng.below(28);
    for (auto& v : y) v = rng.below(28);
    m.prepare(Tlong);
    BlockStackCache<double> a, b;
    m.forward(x.data(), y.data(), 1, Tlong, a);
    m.forward(x.data(), y.data(), 1, Tshort, b);
    double diff = 0;
    for (int i = 0; i < Tshort * 28; ++i) diff = std::max(diff, std::abs(a.logits[i] - b.logits[i]));
    INFO(s.name);
    CHECK(diff < 1e-12);
  }
}
