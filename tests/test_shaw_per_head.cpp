// Shaw with a pair of tables per head (schemes/shaw.h, shaw_per_head): head h reads its own rows
// h (2K+1) .. (h+1)(2K+1) - 1 of the layer's tensors, each head's scores and values are those of a
// shared-table Shaw whose table is that head's, the dense path's block hooks give what its row hooks give,
// and its gradients match central differences on a block stack under every batch mode, key+value and key-only.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "core/rng.h"
#include "models/block_stack.h"
#include "models/gradcheck.h"
#include "schemes/scheme.h"

#include "variant_gradcheck.h"

using namespace pe;

TEST_CASE("shaw per head: head h scores and sums values with its own rows, as shared-table Shaw with that table") {
  const int H = 3, d = 4, K = 2, R = 2 * K + 1;
  auto make = [&](bool per_head) {
    SchemeConfig c;
    c.name = "shaw", c.n_heads = H, c.d_head = d, c.d_model = H * d, c.n_layers = 1, c.train_length = 40;
    c.settings = {{"shaw_per_head", per_head}, {"shaw_clip", K}};
    return make_scheme<double>(c);
  };
  const auto each = make(true), shared = make(false);
  ParamLayout le, ls;
  each->declare(le);
  shared->declare(ls);
  CHECK(le.total() == size_t(H) * ls.total());
  std::vector<double> pe_(le.total());
  Rng rng(stream_key({kTagCheck, 52}));
  for (auto& p : pe_) p = rng.normal();
  const std::vector<double> q = {0.3, -1.2, 0.7, 2.0}, p = {0.1, 0.2, 0.3, 0.4};
  const std::vector<int> kpos = {2, 9, 10, 30}, idx = {0, 1, 2, 3};
  std::vector<double> kv(size_t(4) * H * d, 0.5);
  for (int h = 0; h < H; ++h) {
    // the shared scheme given head h's rows as its tables
    std::vector<double> ps(ls.total());
    for (const char* t : {"pos.layer0.shaw_rk", "pos.layer0.shaw_rv"})
      for (int u = 0; u < R * d; ++u)
        ps[ls[ls.find(t)].offset + u] = pe_[le[le.find(t)].offset + size_t(h) * R * d + u];
    AttnRow<double> r;
    r.layer = 0, r.head = h, r.dh = d, r.qpos = 10, r.q = q.data(), r.nk = 4, r.kpos = kpos.data();
    r.keys = {kv.data(), size_t(H * d), idx.data(), nullptr, 0};
    std::vector<double> se(4, 0.0), ss(4, 0.0), oe(d, 0.0), os(d, 0.0);
    each->score_forward(CParamView<double>{pe_.data(), &le}, r, se.data());
    each->value_forward(CParamView<double>{pe_.data(), &le}, r, p.data(), oe.data());
    AttnRow<double> r0 = r;
    r0.head = 0;  // the shared scheme reads one table whatever the head
    shared->score_forward(CParamView<double>{ps.data(), &ls}, r0, ss.data());
    shared->value_forward(CParamView<double>{ps.data(), &ls}, r0, p.data(), os.data());
    INFO("head ", h);
    CHECK(se == ss);
    CHECK(oe == os);
  }
}

TEST_CASE("shaw per head: gradients match central differences on a block stack, every batch mode") {
  for (bool values : {true, false}) {
    const int own = check_variant_gradients(
        "shaw per head", "shaw", {{"shaw_per_head", true}, {"shaw_values", values}, {"shaw_clip", 4}}, "shaw_r");
    CHECK(own >= (values ? 4 : 2) * 2);
  }
}
