#include "harness/random_positions.h"

#include <fmt/format.h>

#include "core/errors.h"
#include "core/rng.h"
#include "harness/packing.h"

namespace pe {

KeySpec random_positions_key() {
  return {"random_positions",
          KeyType::Int,
          0,
          "randomised positions (Ruoss et al. 2023): 0, positions 0..n-1; L > 0, every training and test sequence "
          "reads a sorted random subset of [0, L) (L at least every length read)",
          0,
          1 << 20};
}

void sample_positions(uint64_t key, int n, int range, int* out) {
  if (n < 0 || n > range) throw Error(fmt::format("sample_positions: {} positions of [0, {})", n, range));
  Rng rng(key);
  int kept = 0;
  for (int p = 0; p < range && kept < n; ++p)
    if (double(range - p) * rng.uniform() < double(n - kept)) out[kept++] = p;
}

void draw_batch_positions(uint64_t seed, uint64_t task, int step, int B, int T, int range, std::vector<int>& pos) {
  pos.resize(size_t(B) * T);
  for (int b = 0; b < B; ++b)
    sample_positions(stream_key({kTagTrain, seed, task, 0x7A4D, uint64_t(step), uint64_t(b)}), T, range,
                     &pos[size_t(b) * T]);
}

void check_random_positions(const nlohmann::json& cfg) {
  const int L = cfg.value("random_positions", 0);
  if (L == 0) return;
  const int T = cfg.at("train_length");
  if (L < T)
    throw ConfigError(fmt::format(
        "key 'random_positions' ({}) is shorter than train_length {}: a sequence draws its positions from [0, {}) "
        "without repeats; give at least the longest length read, or 0 for positions 0..n-1",
        L, T, L));
  for (auto& n : cfg.at("eval_lengths"))
    if (n.get<int>() > L)
      throw ConfigError(fmt::format(
          "key 'random_positions' ({}) is shorter than eval_lengths' {}: a test sequence draws its positions from "
          "[0, {}) too; give at least {}",
          L, n.get<int>(), L, n.get<int>()));
  if (cfg.contains("packing") && packing_from_name(cfg.at("packing").get<std::string>()) != Packing::None)
    throw ConfigError(
        "keys 'random_positions' and 'packing': both lay out the positions of a window; give one of them (packing "
        "none, or random_positions 0)");
  if (cfg.value("packed_windows", 0) > 0)
    throw ConfigError(
        "keys 'random_positions' and 'packed_windows': a packed test window lays out its own positions (from 0 or "
        "from each document's start), not the randomised ones the model was trained on; give packed_windows 0");
}

int random_positions_of(const nlohmann::json& training) {
  if (!training.contains("random_positions")) return 0;
  const nlohmann::json& v = training.at("random_positions");
  if (!v.is_number_integer() || v.get<long long>() < 1 || v.get<long long>() > (1 << 20))
    throw DataError(fmt::format("training.random_positions is {}: a positive whole number of positions", v.dump()));
  return v.get<int>();
}

}  // namespace pe
