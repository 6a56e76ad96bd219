// format_tables renders every section of a (reduced) compute_all-shaped object, and skips missing ones.
#include <doctest/doctest.h>

#include "schemes/t5_buckets.h"
#include "theory/alibi_bound.h"
#include "theory/baselines.h"
#include "theory/census.h"
#include "theory/finite_precision.h"
#include "theory/interpolation_bound.h"
#include "theory/relativity.h"
#include "theory/rope_geometry.h"
#include "theory/sinusoidal_geometry.h"
#include "theory/theory.h"

using namespace pe::theory;

TEST_CASE("theory: format_tables renders each section") {
  nlohmann::json all;
  all["cue_baseline"] = cue_baseline_report();
  all["causal_counter"] = causal_counter_report(64, 2);
  all["log_ruler"] = log_ruler_report();
  all["column_cosines"] = column_cosine_report();
  all["t5_buckets"] = t5_bucket_report();
  all["alibi_bound"] = alibi_bound_report();
  all["rope_decay"] = rope_decay_report();
  all["wavelength_census"] = wavelength_census_report();
  all["interpolation_bound"] = interpolation_bound_report();
  all["finite_precision"] = finite_precision_report(256, 16);
  const std::string out = format_tables(all);
  for (const char* h : {"Best cue reader", "Causal counter", "Logarithmic ruler", "Largest |cosine|",
                        "T5 causal buckets", "ALiBi tail bound", "decay envelope", "Wavelength census",
                        "Interpolation bound", "position scalars", "sinusoidal table"})
    CHECK(out.find(h) != std::string::npos);
  CHECK(out.find("first distance in the last bucket: 113") != std::string::npos);
  CHECK(out.find("Window conditioning") == std::string::npos);  // absent section skipped
  CHECK(format_tables(nlohmann::json::object()).empty());
}
