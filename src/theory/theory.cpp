#include "theory/theory.h"

#include "core/build_info.h"
#include "schemes/t5_buckets.h"
#include "theory/alibi_bound.h"
#include "theory/baselines.h"
#include "theory/census.h"
#include "theory/finite_precision.h"
#include "theory/interpolation_bound.h"
#include "theory/relativity.h"
#include "theory/rope_geometry.h"
#include "theory/sinusoidal_geometry.h"
#include "theory/window_conditioning.h"

namespace pe::theory {

nlohmann::json compute_all() {
  nlohmann::json all = nlohmann::json::object();
  all["cue_baseline"] = cue_baseline_report();
  all["causal_counter"] = causal_counter_report();
  all["sinusoidal_rotation"] = rotation_report();
  all["log_ruler"] = log_ruler_report();
  all["column_cosines"] = column_cosine_report();
  all["window_conditioning"] = window_conditioning_report();
  all["relativity"] = relativity_report();
  all["t5_buckets"] = t5_bucket_report();
  all["alibi_bound"] = alibi_bound_report();
  all["rope_relative"] = rope_relative_report();
  all["rope_decay"] = rope_decay_report();
  all["rope_offset_distribution"] = rope_offset_distribution_report();
  all["wavelength_census"] = wavelength_census_report();
  all["interpolation_bound"] = interpolation_bound_report();
  all["finite_precision"] = finite_precision_report();
  all["build"] = build_info_json();
  return all;
}

}  // namespace pe::theory
