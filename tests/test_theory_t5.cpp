// T5 buckets against an integer-only characterisation (no logarithms): for r >= E,
// bucket(r) >= E + k  <=>  r^(B-E) >= E^(B-E) (M/E)^k.
#include <doctest/doctest.h>

#include <boost/multiprecision/cpp_int.hpp>

#include "schemes/t5_buckets.h"

using boost::multiprecision::cpp_int;

namespace {

int integer_bucket(int r, int B, int M) {
  const int E = B / 2;
  if (r < E) return r;
  // (M/E) need not be an integer: compare r^(B-E) E^k >= E^(B-E) M^k
  int k = 0;
  while (k + 1 <= B - 1 - E) {
    const cpp_int lhs = pow(cpp_int(r), B - E) * pow(cpp_int(E), k + 1);
    const cpp_int rhs = pow(cpp_int(E), B - E) * pow(cpp_int(M), k + 1);
    if (lhs >= rhs)
      ++k;
    else
      break;
  }
  return E + k;
}

}  // namespace

TEST_CASE("theory: T5 bucket function matches the integer characterisation") {
  for (auto [B, M] : {std::pair{32, 128}, std::pair{16, 64}, std::pair{32, 100}, std::pair{8, 20}})
    for (int r = 0; r <= 3 * M; ++r) CHECK(pe::theory::t5_bucket(r, B, M) == integer_bucket(r, B, M));
  CHECK(pe::theory::t5_bucket(-5) == 0);  // causal: negative ages clamp to 0
}

TEST_CASE("theory: T5 bucket table") {
  const auto j = pe::theory::t5_bucket_report();
  // first r with bucket 31: smallest r with r^16 >= 16^16 8^15, i.e. r >= 16 * 8^(15/16) = 112.27...
  CHECK(j["first_distance_in_last_bucket"] == 113);
  int covered = 0;
  for (const auto& r : j["rows"]) {
    const int b = r["bucket"];
    if (b < 31) {
      CHECK(r["count"].get<int>() == r["last"].get<int>() - r["first"].get<int>() + 1);
      covered += r["count"].get<int>();
      CHECK(integer_bucket(r["first"], 32, 128) == b);
      CHECK(integer_bucket(r["last"], 32, 128) == b);
      CHECK(integer_bucket(r["last"].get<int>() + 1, 32, 128) == b + 1);
    } else {
      CHECK(r["last"].is_null());
    }
  }
  CHECK(covered == 113);  // buckets 0..30 tile 0..112 without gaps
}

TEST_CASE("theory: T5's encoder buckets split the table between the two sides (Transformers' bidirectional)") {
  // Transformers' relative_position_bucket(rel = key - query, bidirectional=True, 32, 128): num_buckets
  // halves to 16, a later key (rel > 0) adds 16, then 8 exact distances and log-spaced ones up to 128.
  // Values worked by hand from that definition: ln(20/8)/ln(16) * 8 = 2.64, ln(100/8)/ln(16) * 8 = 7.29.
  using pe::theory::t5_bidirectional_bucket;
  CHECK(t5_bidirectional_bucket(0) == 0);     // the query's own position
  CHECK(t5_bidirectional_bucket(5) == 5);     // a key 5 before
  CHECK(t5_bidirectional_bucket(-5) == 21);   // a key 5 after: 16 + 5
  CHECK(t5_bidirectional_bucket(8) == 8);     // the first log-spaced distance
  CHECK(t5_bidirectional_bucket(20) == 10);   // 8 + floor(2.64)
  CHECK(t5_bidirectional_bucket(-20) == 26);  // 16 + 10
  CHECK(t5_bidirectional_bucket(100) == 15);  // 8 + floor(7.29)
  CHECK(t5_bidirectional_bucket(-100) == 31);
  CHECK(t5_bidirectional_bucket(5000) == 15);  // every far key shares its side's last bucket
  CHECK(t5_bidirectional_bucket(-5000) == 31);
  // each side is the causal map over half the buckets
  for (int r = 0; r <= 400; ++r) {
    CHECK(t5_bidirectional_bucket(r, 32, 128) == integer_bucket(r, 16, 128));
    CHECK(t5_bidirectional_bucket(-r - 1, 32, 128) == 16 + integer_bucket(r + 1, 16, 128));
  }
}
