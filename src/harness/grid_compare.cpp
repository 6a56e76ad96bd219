#include "harness/grid_compare.h"

#include <fmt/format.h>

#include <vector>

#include "harness/statistics.h"
#include "harness/task.h"

namespace pe {

using nlohmann::json;

std::string compare_grid_readers(const json& results, const std::string& a, const std::string& b, int length,
                                 const std::string& what, long n_test) {
  const size_t li = length_index(results, length);
  const json &ra = find_reader_row(results, a), &rb = find_reader_row(results, b);
  auto cell_mean = [](const json& cells) {
    double s = 0;
    for (auto& v : cells) s += v.get<double>();
    return cells.empty() ? 0.0 : s / double(cells.size());
  };
  std::vector<double> va, vb;
  for (size_t si = 0; si < ra["seeds"].size(); ++si)
    for (size_t sj = 0; sj < rb["seeds"].size(); ++sj)
      if (ra["seeds"][si] == rb["seeds"][sj]) {
        const json &wa = ra["whole"][si][li], &wb = rb["whole"][sj][li];
        if (wa.is_null() || wb.is_null()) throw UsageError(fmt::format("a reader cannot read length {}", length));
        va.push_back(cell_mean(wa));
        vb.push_back(cell_mean(wb));
      }
  if (va.empty()) throw UsageError(fmt::format("{} and {} share no seed", a, b));
  const stats::PairedT t = stats::paired_t(va, vb);
  const stats::ProportionInterval ia = stats::proportion_interval(va, n_test),
                                  ib = stats::proportion_interval(vb, n_test);
  return fmt::format(
      "{} - {} at {} ({}), {} paired seeds: {:+.4f} [95% {:+.4f}, {:+.4f}], paired t p = {:.3g}\n  {}: {}, {}: {} "
      "(95% intervals of each proportion: logit scale, seeds and {} test items; docs/results-format.md)\n",
      a, b, length, what, t.n, t.mean_diff, t.lo, t.hi, t.p_value, a, stats::proportion_cell(ia.mean, ia.lo, ia.hi), b,
      stats::proportion_cell(ib.mean, ib.lo, ib.hi), n_test);
}

}  // namespace pe
