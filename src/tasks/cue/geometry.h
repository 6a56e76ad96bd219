// The trained heads, read (docs/analyses.md: RoPE offset curves, the sinusoidal relativity defect,
// ALiBi content widths and horizons). Every number comes from the checkpoints named in the output.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tasks/cue/evaluation.h"

namespace pe {

// Analyses every checkpoint: RoPE heads (offset curve r = 0..max_age), sinusoidal heads (defect at
// init and after training; accuracy with the position-position term projected onto offsets only, and
// with long sequences shifted so the query sits at train_length - 1), ALiBi heads (width, horizon,
// accuracy inside half the horizon and beyond it). Test sequences: s (lengths past training).
nlohmann::json analyze_checkpoints(const std::vector<std::string>& checkpoints, const EvalSettings& s,
                                   int max_age = 255);
std::string format_geometry(const nlohmann::json& g);

// An ALiBi head's reach: its slope s and the width W of its content scores — over the queries the
// head reads (its query token; every content token for a head without one, the filings head), the
// largest spread of q.k/sqrt(d) over the keys it can see. Past W/s positions the bias outweighs any
// content preference. nullopt when its scheme adds no linear bias (Scheme::geometry, LinearBias).
// widths[x]: the spread of query token x's own scores (W is their largest; a head with a query
// token has one entry that counts, the query token's).
struct AlibiReach {
  double width = 0, slope = 0;
  std::vector<double> widths;
  double horizon() const { return width / slope; }
  double own_horizon(int query_token) const { return widths.at(size_t(query_token)) / slope; }
};
std::optional<AlibiReach> alibi_reach(const CueHead<float>& model);

// The offset curve of a RoPE head: the content score (after the 1/sqrt(d) scale) of the query token
// at position m against a marked key at position m - r, averaged over the marked symbols.
std::vector<double> rope_offset_curve(const CueHead<float>& model, int max_age);

}  // namespace pe
