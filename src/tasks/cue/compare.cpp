#include "tasks/cue/compare.h"

#include <fmt/format.h>

#include <cmath>

#include "core/errors.h"
#include "harness/statistics.h"
#include "tasks/cue/checkpoint.h"
#include "tasks/cue/data.h"
#include "tasks/cue/evaluation.h"

namespace pe {

using nlohmann::json;

std::string signed_interval(double mean, double lo, double hi, int decimals) {
  return fmt::format("{:+.{}f} [{:+.{}f}, {:+.{}f}]", mean, decimals, lo, decimals, hi, decimals);
}

namespace {

// Right (1) or wrong (0) on every test sequence, read from the checkpoint with the row's map.
std::vector<char> correct_on(const std::string& checkpoint, const MapSpec& map, const json& results, int n,
                             const HeadTestStream& stream) {
  const LoadedCheckpoint cp = load_checkpoint(checkpoint, stream.task);
  CueHead<float>& m = *cp.model;
  CueBatch test = stream.test_set(m.config().task, uint64_t(results.at("test_seed").get<long long>()), n,
                                  results.at("test_sequences").get<int>());
  // a head trained with randomised positions reads the draws eval read (tasks/cue/evaluation.cpp)
  if (cp.random_positions > 0) {
    check_positions_hold(cp, n);
    cue_test_positions(test, uint64_t(results.at("test_seed").get<long long>()), cp.random_positions);
  }
  m.scheme().read_with(map, cp.meta.at("training").at("train_length"), n);
  m.prepare(test.position_span());
  std::vector<int> predicted;
  if (!cue_accuracy(m, test, 0, &predicted))
    throw UsageError(fmt::format("{} cannot read length {} (its learned table has no rows there)", checkpoint, n));
  std::vector<char> right(test.B);
  for (int b = 0; b < test.B; ++b) right[b] = predicted[b] == test.targets[b];
  return right;
}

}  // namespace

std::string compare_cue_readers(const json& results, const std::string& a, const std::string& b, int length,
                                const CompareSettings& settings, const HeadTestStream& stream) {
  const size_t li = length_index(results, length);
  const json &ra = find_reader_row(results, a), &rb = find_reader_row(results, b);
  // the seeds both readers have, paired by seed
  std::vector<double> va, vb;
  std::vector<std::pair<std::string, std::string>> checkpoints;
  std::vector<int> seeds;
  for (auto& sa : ra.at("seeds"))
    for (auto& sb : rb.at("seeds"))
      if (sa.at("seed") == sb.at("seed")) {
        if (sa.at("accuracy")[li].is_null() || sb.at("accuracy")[li].is_null())
          throw UsageError(fmt::format("{} or {} has no reading at {} (a learned table past its rows)", a, b, length));
        va.push_back(sa.at("accuracy")[li]), vb.push_back(sb.at("accuracy")[li]);
        checkpoints.push_back({sa.at("checkpoint"), sb.at("checkpoint")});
        seeds.push_back(sa.at("seed"));
      }
  if (seeds.empty()) throw UsageError(fmt::format("{} and {} share no seed", a, b));
  const int N = results.at("test_sequences");
  std::string s = fmt::format("{} − {} at {} ({} seed{}, {} test sequences each)\n", a, b, length, seeds.size(),
                              seeds.size() == 1 ? "" : "s", N);
  const stats::PairedT t = stats::paired_t(va, vb);
  if (seeds.size() >= 2)
    s += fmt::format("  across seeds (paired t, {} df): {}  p = {:.3g}\n", t.n - 1,
                     signed_interval(t.mean_diff, t.lo, t.hi), t.p_value);
  else
    s += fmt::format("  across seeds: {:+.3f} (one seed: no interval)\n", t.mean_diff);
  // each reader's own accuracy over these seeds, with the interval of a proportion
  const stats::ProportionInterval ia = stats::proportion_interval(va, N), ib = stats::proportion_interval(vb, N);
  s += fmt::format(
      "  {}: {}, {}: {} (95% intervals of each proportion: logit scale, seeds and test set; "
      "docs/results-format.md)\n",
      a, stats::proportion_cell(ia.mean, ia.lo, ia.hi), b, stats::proportion_cell(ib.mean, ib.lo, ib.hi));
  // The per-seed lines re-read the checkpoints: each must still give the accuracy recorded beside the
  // across-seed line, or the two kinds of line would describe different models.
  auto reread = [&](const std::string& checkpoint, const std::string& reader, const json& map, double recorded,
                    int seed) {
    std::vector<char> right = correct_on(checkpoint, parse_map(map.get<std::string>()), results, length, stream);
    long hits = 0;
    for (char c : right) hits += c;
    const double now = double(hits) / double(right.size());
    if (std::fabs(now - recorded) > 0.25 / double(right.size()))
      throw DataError(
          fmt::format("{} ({} seed {}) now reads {:.4f} at {} but these results recorded {:.4f}: the "
                      "checkpoint changed after they were written; read it again (pe-bench eval or run "
                      "--resume) before comparing",
                      checkpoint, reader, seed, now, length, recorded));
    return right;
  };
  for (size_t i = 0; i < seeds.size(); ++i) {
    const std::vector<char> ca = reread(checkpoints[i].first, a, ra.at("map"), va[i], seeds[i]),
                            cb = reread(checkpoints[i].second, b, rb.at("map"), vb[i], seeds[i]);
    const stats::Bootstrap bs = stats::paired_bootstrap(ca, cb, settings.resamples, settings.seed);
    const stats::McNemar mc = stats::mcnemar_exact(ca, cb);
    s += fmt::format(
        "  seed {}, over the shared test sequences: {}  (paired bootstrap, {} resamples, seed {}); "
        "McNemar exact: {} right only for {}, {} only for {}, p = {:.3g}\n",
        seeds[i], signed_interval(bs.diff, bs.lo, bs.hi), bs.resamples, bs.seed, mc.a_only, a, mc.b_only, b,
        mc.p_value);
  }
  return s;
}

}  // namespace pe
