// Comparing two readers of a results file whose rows hold, per seed, proportions on a grid of lengths x cells
// ("whole": [seed][length][cell]; the passkey's depths, a probe's cells).
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace pe {

// Readers a and b (as the tables label them) at `length`, each seed's mean over cells: paired t over the seeds they
// share, and each reader's proportion with its 95% interval over those seeds and n_test items. `what` names the
// measure ("whole-passkey accuracy, mean over depths"). UsageError for an unknown reader or length, a reader that
// cannot read the length, or no shared seed.
std::string compare_grid_readers(const nlohmann::json& results, const std::string& a, const std::string& b, int length,
                                 const std::string& what, long n_test);

}  // namespace pe
