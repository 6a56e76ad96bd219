// The T5 causal bucket map (schemes.md "t5") and its table (docs/analyses.md "Relative biases").
#pragma once
#include <nlohmann/json.hpp>

namespace pe::theory {

// Distance r = max(age, 0) -> bucket: exact buckets E = buckets/2 (r < E -> r), then
// min(buckets-1, E + floor(ln(r/E) / ln(max_distance/E) * (buckets - E))).
int t5_bucket(int r, int buckets = 32, int max_distance = 128);
// The encoder (bidirectional) map of age = query position - key position, as Transformers'
// relative_position_bucket(bidirectional=True): half the buckets per side, a key at or before the
// query in t5_bucket(age, buckets/2) and a later key in buckets/2 + t5_bucket(-age, buckets/2).
int t5_bidirectional_bucket(int age, int buckets = 32, int max_distance = 128);

// {"buckets", "max_distance", "rows":[{"bucket","first","last"(null: open-ended),"count"}],
//  "first_distance_in_last_bucket"}.
nlohmann::json t5_bucket_report(int buckets = 32, int max_distance = 128);

}  // namespace pe::theory
