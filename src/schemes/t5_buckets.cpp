#include "schemes/t5_buckets.h"

#include <algorithm>
#include <cmath>
#include "core/math.h"

namespace pe::theory {

int t5_bucket(int r, int buckets, int max_distance) {
  r = std::max(r, 0);
  const int exact = buckets / 2;
  if (r < exact) return r;
  const double scaled = math::log(double(r) / exact) / math::log(double(max_distance) / exact) * (buckets - exact);
  return std::min(buckets - 1, exact + int(std::floor(scaled)));
}

int t5_bidirectional_bucket(int age, int buckets, int max_distance) {
  const int half = buckets / 2;
  return age >= 0 ? t5_bucket(age, half, max_distance) : half + t5_bucket(-age, half, max_distance);
}

nlohmann::json t5_bucket_report(int buckets, int max_distance) {
  // Scan far enough that the last bucket is reached (it is from max_distance on).
  const int limit = 4 * max_distance;
  std::vector<int> first(buckets, -1), last(buckets, -1);
  for (int r = 0; r <= limit; ++r) {
    const int b = t5_bucket(r, buckets, max_distance);
    if (first[b] < 0) first[b] = r;
    last[b] = r;
  }
  nlohmann::json rows = nlohmann::json::array();
  for (int b = 0; b < buckets; ++b) {
    nlohmann::json row = {{"bucket", b}, {"first", first[b]}};
    if (first[b] < 0) {
      row["first"] = nullptr, row["last"] = nullptr, row["count"] = 0;
    } else if (b == buckets - 1) {
      row["last"] = nullptr, row["count"] = nullptr;  // open-ended
    } else {
      row["last"] = last[b], row["count"] = last[b] - first[b] + 1;
    }
    rows.push_back(row);
  }
  return {{"buckets", buckets},
          {"max_distance", max_distance},
          {"rows", rows},
          {"first_distance_in_last_bucket", first[buckets - 1]}};
}

}  // namespace pe::theory
