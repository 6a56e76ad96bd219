// Shaw's key-only ablation (schemes/shaw.h, shaw_values false): the scores are key+value Shaw's, the values
// are plain (no RV tables, no value hooks), and its gradients match central differences on a block stack
// under every batch mode.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "core/rng.h"
#include "models/block_stack.h"
#include "models/gradcheck.h"
#include "schemes/scheme.h"

#include "variant_gradcheck.h"

using namespace pe;

TEST_CASE("shaw key-only: the same score terms as key+value, no RV tables, no value term") {
  auto make = [](bool values) {
    SchemeConfig c;
    c.name = "shaw", c.n_heads = 2, c.d_head = 4, c.d_model = 8, c.n_layers = 2, c.train_length = 40;
    c.settings = {{"shaw_values", values}};
    return make_scheme<double>(c);
  };
  const auto both = make(true), keys = make(false);
  ParamLayout lb, lk;
  both->declare(lb);
  keys->declare(lk);
  CHECK(both->acts_on_values());
  CHECK_FALSE(keys->acts_on_values());
  CHECK_FALSE(keys->block_values(0));
  CHECK(lb.find("pos.layer1.shaw_rv") >= 0);
  CHECK(lk.find("pos.layer0.shaw_rv") < 0);
  CHECK(lk.find("pos.layer1.shaw_rv") < 0);
  CHECK(lk.total() * 2 == lb.total());  // RK alone: half the tables
  // the same RK: the same score terms
  std::vector<double> pb(lb.total()), pk(lk.total());
  Rng rng(stream_key({kTagCheck, 51}));
  for (auto& p : pb) p = rng.normal();
  for (int l = 0; l < 2; ++l) {
    const std::string t = "pos.layer" + std::to_string(l) + ".shaw_rk";
    const auto src = CParamView<double>{pb.data(), &lb}(lb.find(t));
    ParamView<double>{pk.data(), &lk}(lk.find(t)) = src;
  }
  const std::vector<double> q = {0.3, -1.2, 0.7, 2.0};
  const std::vector<int> kpos = {2, 9, 10, 30}, idx = {0, 1, 2, 3};
  std::vector<double> kv(4 * 8, 0.5);
  AttnRow<double> r;
  r.layer = 1, r.head = 0, r.dh = 4, r.qpos = 10, r.q = q.data(), r.nk = 4, r.kpos = kpos.data();
  r.keys = {kv.data(), 8, idx.data(), nullptr, 0};
  std::vector<double> sb(4, 0.0), sk(4, 0.0);
  both->score_forward(CParamView<double>{pb.data(), &lb}, r, sb.data());
  keys->score_forward(CParamView<double>{pk.data(), &lk}, r, sk.data());
  CHECK(sb == sk);
  CHECK(sb[0] != sb[1]);
}

TEST_CASE("shaw key-only: gradients match central differences on a block stack, every batch mode") {
  const int own =
      check_variant_gradients("shaw key-only", "shaw", {{"shaw_values", false}, {"shaw_clip", 4}}, "shaw_r");
  CHECK(own == check_variant_gradients("shaw key-only", "shaw", {{"shaw_values", false}, {"shaw_clip", 4}}, "shaw_rk"));
  CHECK(own >= 2 * 2);  // each layer's RK (and no RV), in the plain batch and the modes
}
