// DeBERTa-v2's log buckets (schemes/deberta.h, deberta_log_buckets): the row delta(m, n) each distance takes
// against values of make_log_bucket_position as DeBERTa-v2 writes it (computed outside pe-bench for the
// v2 configuration, K = 256 and max distance 512, and for pe-bench's default K = 16 at a training length of
// 32); off, the clip at K as before; the refusals; gradients against central differences on a block stack
// under every batch mode.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "core/errors.h"
#include "models/block_stack.h"
#include "models/gradcheck.h"
#include "schemes/deberta.h"

#include "variant_gradcheck.h"

using namespace pe;

namespace {
std::unique_ptr<Scheme<double>> deberta(int clip, bool log_buckets, int max_distance, int train_length = 32) {
  SchemeConfig c;
  c.name = "deberta", c.n_heads = 1, c.d_head = 4, c.d_model = 4, c.n_layers = 1, c.train_length = train_length;
  c.settings = {{"deberta_clip", clip}, {"deberta_log_buckets", log_buckets}, {"deberta_max_distance", max_distance}};
  return make_scheme<double>(c);
}
}  // namespace

TEST_CASE("deberta log buckets: every distance's row is DeBERTa-v2's, clamped to the table as v2 clamps it") {
  // (K, max distance, {r, make_log_bucket_position(r)}): delta = clamp(bucket + K, 0, 2K - 1)
  const std::vector<std::pair<int, int>> v2 = {{1, 1},     {-5, -5},     {127, 127}, {128, 128},
                                               {129, 129}, {-129, -129}, {200, 169}, {300, 207},
                                               {511, 255}, {-511, -255}, {512, 256}, {1000, 317}};
  const std::vector<std::pair<int, int>> small = {{3, 3},   {8, 8},   {9, 9},     {10, 10}, {12, 11}, {16, 12},
                                                  {20, 13}, {31, 15}, {-31, -15}, {32, 16}, {100, 22}};
  for (const auto& [K, M, cases] : {std::tuple{256, 512, v2}, std::tuple{16, 32, small}}) {
    const auto s = deberta(K, true, M);
    const auto& d = dynamic_cast<const DebertaScheme<double>&>(*s);
    for (const auto& [r, b] : cases) {
      INFO("K ", K, " r ", r);
      CHECK(d.delta(r, 0) == std::clamp(b + K, 0, 2 * K - 1));
      CHECK(d.delta(0, r) == std::clamp(-b + K, 0, 2 * K - 1));
    }
  }
  // off: v1's clip; 0: the training length
  const auto plain = deberta(16, false, 0);
  const auto& p = dynamic_cast<const DebertaScheme<double>&>(*plain);
  for (int r : {-40, -16, -15, 0, 7, 15, 16, 40}) CHECK(p.delta(r, 0) == std::clamp(r + 16, 0, 31));
  CHECK(plain->config().settings.at("deberta_max_distance") == 32);
  CHECK_THROWS_AS(deberta(2, true, 32), ConfigError);  // mid = 1: no log range
  CHECK_THROWS_AS(deberta(16, true, 9), ConfigError);  // M - 1 <= mid
}

TEST_CASE("deberta log buckets: gradients match central differences on a block stack, every batch mode") {
  const int own = check_variant_gradients(
      "deberta log buckets", "deberta",
      {{"deberta_log_buckets", true}, {"deberta_clip", 4}, {"deberta_max_distance", 8}}, "deberta_p");
  CHECK(own >= 2);
}
