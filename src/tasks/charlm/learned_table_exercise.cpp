// The d2l exercise 4 on the char LM's learned position table (docs/exercises.md): a table of 512 rows
// trained at 128 (experiments/learned-rows-charlm.json, and -wd.json with AdamW's weight decay). Rows
// 128..511 never get a gradient, so Adam leaves them alone: their Adam moments stay 0 and the update
// lr * m / (sqrt(v) + eps) is exactly 0. Weight decay still shrinks them, p <- p - lr * wd * p every step.
// The exercise reads the committed checkpoints and the same models at their seeds' initial weights.
#include <fmt/format.h>

#include <cmath>

#include "core/errors.h"
#include "core/files.h"
#include "exercises/exercises.h"
#include "tasks/charlm/checkpoint.h"

namespace pe {

namespace learned_table {  // named: a unity build puts other sources' names beside these
const char* const kRuns[] = {"results/learned-rows/runs/charlm/learned/seed0",
                             "results/learned-rows-wd/runs/charlm/learned/seed0"};
constexpr int kHeatmapStride = 4;  // the cosine heatmap keeps every 4th row and column
constexpr int kOffsets = 127;      // the diagonal's profile: mean cosine at offsets 1..127

using Table = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

Table position_table(const BlockStack<float>& model) {
  const int id = model.layout().find("pos.table");
  if (id < 0) throw DataError("the checkpoint's model has no learned position table (pos.table)");
  const TensorInfo& t = model.layout()[id];
  return Eigen::Map<const Table>(model.params().data() + t.offset, t.rows, t.cols);
}

double rounded(double x) { return std::round(x * 1e4) / 1e4; }

// Mean cosine between rows i and i + delta, over the rows [lo, hi) with both in range.
std::vector<double> diagonal_profile(const Eigen::MatrixXd& cos, int lo, int hi) {
  std::vector<double> out;
  for (int delta = 1; delta <= kOffsets; ++delta) {
    double sum = 0;
    int n = 0;
    for (int i = lo; i + delta < hi; ++i) sum += cos(i, i + delta), ++n;
    out.push_back(n ? sum / n : 0.0);
  }
  return out;
}

// The first offset at which the mean cosine falls below 1/2 (0: never within kOffsets).
int spread(const std::vector<double>& profile) {
  for (int i = 0; i < int(profile.size()); ++i)
    if (profile[i] < 0.5) return i + 1;
  return 0;
}

nlohmann::json read_run(const std::string& dir, bool heatmap) {
  const std::string path = dir + "/checkpoint.json";
  if (!file_exists(path))
    throw DataError(
        fmt::format("{} is missing: exercise 4 reads the committed runs of "
                    "experiments/learned-rows-charlm.json and -wd.json (make learned-rows)",
                    path));
  // the run's resolved config (one run: its scheme, not the experiment's list): the keys the recurrence reads
  const std::string config_path = dir + "/config.json";
  const nlohmann::json cfg = parse_json(read_file(config_path));
  auto number = [&](const char* key, double lo, double hi) {
    if (!cfg.contains(key) || !cfg[key].is_number() || !(cfg[key].get<double>() >= lo && cfg[key].get<double>() <= hi))
      throw DataError(fmt::format("{}: key '{}' is missing or not a number in [{}, {}]", config_path, key, lo, hi));
    return cfg[key].get<double>();
  };
  struct {
    double lr;
    int steps;
  } e{number("lr", 0, 1), int(number("steps", 1, 1000000))};
  const double wd = number("weight_decay", 0, 1);
  LoadedCharLM cp = load_charlm_checkpoint(path);
  const int seed = cp.meta.at("training").at("seed"), trained = cp.meta.at("training").at("train_length");
  const Table after = position_table(*cp.model);
  cp.model->init(uint64_t(seed));  // as train_charlm starts it
  const Table before = position_table(*cp.model);
  const int rows = int(after.rows());
  // rows past the training length: equal bit for bit to their initial values, or to the AdamW recurrence
  // a row without gradient follows, run here in float step by step from its initial value
  const float decay = float(e.lr * wd);
  long equal_initial = 0, equal_recurrence = 0, untrained = 0, trained_changed = 0;
  double ratio_min = INFINITY, ratio_max = -INFINITY;
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < int(after.cols()); ++c) {
      const float a = after(r, c), b = before(r, c);
      if (r < trained) {
        trained_changed += a != b;
        continue;
      }
      ++untrained;
      equal_initial += a == b;
      float x = b;
      for (int s = 0; s < e.steps; ++s) x -= 0.0f + decay * x;  // Adam's update with m = v = 0
      equal_recurrence += a == x;
      if (b != 0.0f) ratio_min = std::min(ratio_min, double(a) / b), ratio_max = std::max(ratio_max, double(a) / b);
    }
  // cosines between the trained table's rows
  Eigen::MatrixXd t = after.cast<double>();
  for (int r = 0; r < rows; ++r) t.row(r) /= t.row(r).norm();
  const Eigen::MatrixXd cos = t * t.transpose();
  const std::vector<double> inside = diagonal_profile(cos, 0, trained), outside = diagonal_profile(cos, trained, rows);
  nlohmann::json out = {{"checkpoint", path},
                        {"rows", rows},
                        {"train_length", trained},
                        {"steps", e.steps},
                        {"lr", e.lr},
                        {"weight_decay", wd},
                        {"trained_entries_changed", trained_changed},
                        {"trained_entries", long(trained) * after.cols()},
                        {"untrained_entries", untrained},
                        {"untrained_equal_initial", equal_initial},
                        {"untrained_equal_recurrence", equal_recurrence},
                        {"decay_factor_analytic", std::pow(1.0 - e.lr * wd, double(e.steps))},
                        {"decay_factor_measured_min", ratio_min},
                        {"decay_factor_measured_max", ratio_max},
                        {"diagonal_profile_trained_rows", inside},
                        {"diagonal_profile_untrained_rows", outside},
                        {"diagonal_spread_trained_rows", spread(inside)},
                        {"diagonal_spread_untrained_rows", spread(outside)}};
  if (heatmap) {
    nlohmann::json grid = nlohmann::json::array();
    for (int i = 0; i < rows; i += kHeatmapStride) {
      nlohmann::json line = nlohmann::json::array();
      for (int j = 0; j < rows; j += kHeatmapStride) line.push_back(rounded(cos(i, j)));
      grid.push_back(line);
    }
    out["cosine_heatmap"] = {{"stride", kHeatmapStride}, {"values", grid}};
  }
  return out;
}
}  // namespace learned_table

exercises::Exercise charlm_learned_table_exercise() {
  using namespace learned_table;
  exercises::Exercise e{"4", "the learned table's untrained rows"};
  e.question =
      "A learned position table with more rows than the training length: are the rows training never reaches "
      "still their initial values? What does weight decay do to them? How do the trained rows' cosines look "
      "(the 512 x 512 heatmap), and how wide is its diagonal?";
  e.method = fmt::format(
      "The char LM (learned, 512 rows, trained at 128 for 3000 steps, seed 0; experiments/learned-rows-charlm.json "
      "and -wd.json with AdamW's decoupled weight decay 0.1), its table compared with the same model at its "
      "seed's initial weights: the rows past 128 counted equal bit for bit to their initial values, and to the "
      "float recurrence p <- p - lr wd p run from them for every step; the factor (1 - lr wd)^steps beside the "
      "measured ratios; the cosine between every two rows (the heatmap keeps every {}th), and the mean cosine "
      "at offsets 1..{} within the trained rows and within the untrained ones (the spread: the first offset "
      "where it falls below 1/2).",
      kHeatmapStride, kOffsets);
  e.compute = [] {
    return nlohmann::json{{"without_weight_decay", read_run(kRuns[0], true)},
                          {"with_weight_decay", read_run(kRuns[1], false)}};
  };
  e.print = [](const nlohmann::json& j) {
    std::string s;
    for (const char* k : {"without_weight_decay", "with_weight_decay"}) {
      const auto& r = j[k];
      s += fmt::format(
          "weight decay {}: rows {}..{} (never trained): {} of {} entries equal their initial values bit for "
          "bit, {} equal the AdamW recurrence; factor (1 - lr wd)^steps = {:.6f}, measured {:.6f} .. {:.6f}\n"
          "  trained rows 0..{}: {} of {} entries moved; mean cosine of rows 1 apart {:.3f} (trained) and {:.3f} "
          "(untrained); spread {} and {}\n",
          r["weight_decay"].get<double>(), r["train_length"].get<int>(), r["rows"].get<int>() - 1,
          r["untrained_equal_initial"].get<long>(), r["untrained_entries"].get<long>(),
          r["untrained_equal_recurrence"].get<long>(), r["decay_factor_analytic"].get<double>(),
          r["decay_factor_measured_min"].get<double>(), r["decay_factor_measured_max"].get<double>(),
          r["train_length"].get<int>() - 1, r["trained_entries_changed"].get<long>(), r["trained_entries"].get<long>(),
          r["diagonal_profile_trained_rows"][0].get<double>(), r["diagonal_profile_untrained_rows"][0].get<double>(),
          r["diagonal_spread_trained_rows"].get<int>(), r["diagonal_spread_untrained_rows"].get<int>());
    }
    return s;
  };
  return e;
}

}  // namespace pe
