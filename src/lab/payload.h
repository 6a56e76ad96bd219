// The laboratory's payload (docs/lab.md): every number the page draws, gathered from pe-bench's own
// results and recomputed from its library where the results hold too few points. The page
// (lab/page.h) shows the payload and nothing else.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace pe::lab {

// Where the payload's inputs are: results_dir/theory.json, results_dir/tournament/results.json and
// its runs (results_dir/tournament/runs), results_dir/filings/lab_filing.json.
struct LabSources {
  std::string theory, tournament_results, tournament_runs, filings_lab, failures;
  static LabSources in(const std::string& results_dir);
};

// The clock view's choices: head widths and bases, and the positions the sliders reach.
inline const int kClockDims[] = {8, 16, 32, 64};
inline const double kClockBases[] = {100.0, 10000.0, 1000000.0};
inline constexpr int kClockPositions = 64;
// The score curves: the query at the end of a sequence this long; the drift view's fixed age.
inline constexpr int kScoreLength = 256, kDriftAge = 8;

// Builds the payload; DataError naming a missing or unreadable input and how to make it.
nlohmann::json lab_payload(const LabSources& sources, bool progress);

}  // namespace pe::lab
