// format_tables: plain-text rendering of compute_all()'s JSON, one block per analysis item.
#include <fmt/format.h>

#include <string>

#include "theory/census.h"
#include "theory/theory.h"

namespace pe::theory {

namespace {

using nlohmann::json;

double num(const json& v) { return v.get<double>(); }
std::string yes_no(const json& v) { return v.get<bool>() ? "yes" : "no"; }
std::string pair_str(const json& v) {
  return v.is_null() ? std::string("none") : fmt::format("({}, {})", v[0].dump(), v[1].dump());
}

void heading(std::string& out, const std::string& title) { out += fmt::format("\n== {} ==\n", title); }

void cue(std::string& out, const json& j) {
  heading(out, fmt::format("Best cue reader without positions (exact; alphabet {}, mark prob {})",
                           j["alphabet"].get<int>(), num(j["mark_prob"])));
  out += fmt::format("{:>6}  {:>10}\n", "n", "accuracy");
  for (const auto& r : j["rows"]) out += fmt::format("{:>6}  {:>10.6f}\n", r["n"].get<int>(), num(r["accuracy"]));
}

void counter(std::string& out, const json& j) {
  heading(out, "Causal counter: equal scores, value e at 0 -> output e/(t+1)");
  out += fmt::format(
      "t = 0..{} (width {}): max |o_t - e/(t+1)| = {:.3e}, max |1/<o_t,e> - 1 - t| = {:.3e}, "
      "t recovered exactly: {}\n",
      j["len"].get<int>() - 1, j["width"].get<int>(), num(j["max_output_error"]), num(j["max_recovered_t_error"]),
      yes_no(j["t_recovered_exactly"]));
}

void rotation(std::string& out, const json& j) {
  heading(out, "Sinusoidal code: shift = rotation, group law, norm, injectivity (b = 10000)");
  out += fmt::format("{:>4} {:>9} {:>11} {:>11} {:>11} {:>11} {:>9} {:>12} {:>12}\n", "d", "positions", "shift err",
                     "group err", "orth err", "|p|^2 err", "|p|^2", "min dist", "at pair");
  for (const auto& r : j["rows"])
    out += fmt::format("{:>4} {:>9} {:>11.2e} {:>11.2e} {:>11.2e} {:>11.2e} {:>9} {:>12.6f} {:>12}\n",
                       r["d"].get<int>(), r["positions"].get<int>(), num(r["max_shift_error"]),
                       num(r["max_group_law_error"]), num(r["max_orthogonality_error"]), num(r["max_norm_sq_error"]),
                       num(r["norm_sq"]), num(r["min_distance"]), pair_str(r["min_distance_pair"]));
}

void ruler(std::string& out, const json& j) {
  heading(out, fmt::format("Logarithmic ruler: (2/d) kappa_d(Delta), b = {}", num(j["base"])));
  out += fmt::format("{:>6}", "Delta");
  for (const auto& c : j["rows"][0]["by_d"]) out += fmt::format(" {:>10}", fmt::format("d={}", c["d"].get<int>()));
  out += fmt::format(" {:>10} {:>12}\n", "I_b(Delta)", "1-(g+lnD)/lnb");
  for (const auto& r : j["rows"]) {
    out += fmt::format("{:>6}", r["delta"].get<int>());
    for (const auto& c : r["by_d"]) out += fmt::format(" {:>10.6f}", num(c["ratio"]));
    out += fmt::format(" {:>10.6f} {:>12.6f}\n", num(r["limit"]), num(r["line"]));
  }
}

void columns(std::string& out, const json& j) {
  heading(out, "Largest |cosine| between two columns of the [positions x d] sinusoidal matrix");
  out += fmt::format("{:>4} {:>9} {:>20} {:>10}  {}\n", "d", "positions", "max |cosine|", "columns",
                     "(col 2j = sin, 2j+1 = cos)");
  for (const auto& r : j["rows"])
    out += fmt::format("{:>4} {:>9} {:>20.15f} {:>10}  {} / {}\n", r["d"].get<int>(), r["positions"].get<int>(),
                       num(r["max_cosine"]), pair_str(r["columns"]), r["column_names"][0].get<std::string>(),
                       r["column_names"][1].get<std::string>());
}

void windows(std::string& out, const json& j) {
  heading(out, fmt::format("Window conditioning, d = {}, {}-bit ({} digits) arithmetic", j["d"].get<int>(),
                           j["precision_bits"].get<int>(), j["decimal_digits"].get<int>()));
  out += fmt::format("{:>6} {:>38} {:>10} {:>12} {:>12} {:>14}\n", "W", "cond (exact)", "log10", "sigma_max",
                     "sigma_min", "double SVD");
  for (const auto& r : j["rows"])
    out += fmt::format("{:>6} {:>38} {:>10.4f} {:>12.6f} {:>12.4e} {:>14.4e}\n", r["window"].get<int>(),
                       r["cond_digits"].get<std::string>(), num(r["log10_cond"]), num(r["sigma_max"]),
                       num(r["sigma_min"]), num(r["double_svd_cond"]));
  const auto& nr = j["numerical_rank_double"];
  out += fmt::format("numerical rank in double over {} positions: {} (tolerance {:.3e} = {})\n",
                     nr["positions"].get<int>(), nr["rank"].get<int>(), num(nr["tolerance"]),
                     nr["tolerance_rule"].get<std::string>());
  out += fmt::format("{:>4} {:>14} {:>14}\n", "i", "sigma double", "sigma exact");
  for (size_t i = 0; i < nr["singular_values_double"].size(); ++i)
    out += fmt::format("{:>4} {:>14.6e} {:>14.6e}\n", i, num(nr["singular_values_double"][i]),
                       num(nr["singular_values_exact"][i]));
}

void relativity(std::string& out, const json& j) {
  heading(out, "Relativity defect delta(M) = ||M - Pi M||_F / ||M||_F");
  const auto& c = j["commutant_check"];
  out += fmt::format("d = {}: {} offsets x {} positions in [0, {}); spread of p(m)^T M p(n) at a fixed offset\n",
                     c["d"].get<int>(), c["offsets"].get<int>(), c["positions_per_offset"].get<int>(),
                     c["position_range"].get<int>());
  out += fmt::format("  defect-0 matrix (Pi of a Gaussian): defect {:.2e}, max spread {:.3e}\n",
                     num(c["defect_zero_matrix"]["defect"]),
                     num(c["defect_zero_matrix"]["max_score_spread_at_fixed_offset"]));
  out += fmt::format("  random Gaussian matrix:            defect {:.4f}, max spread {:.3e}\n",
                     num(c["random_matrix"]["defect"]), num(c["random_matrix"]["max_score_spread_at_fixed_offset"]));
  out += fmt::format("{:>4} {:>8} {:>12} {:>10} {:>10}\n", "d", "samples", "mean delta^2", "stderr", "1 - 1/d");
  for (const auto& r : j["gaussian_mean_defect_sq"])
    out += fmt::format("{:>4} {:>8} {:>12.6f} {:>10.2e} {:>10.6f}\n", r["d"].get<int>(), r["samples"].get<int>(),
                       num(r["mean_defect_sq"]), num(r["stderr"]), num(r["expected"]));
}

void t5(std::string& out, const json& j) {
  heading(out, fmt::format("T5 causal buckets ({} buckets, max distance {})", j["buckets"].get<int>(),
                           j["max_distance"].get<int>()));
  out += fmt::format("{:>6} {:>12} {:>6}   {:>6} {:>12} {:>6}\n", "bucket", "distances", "count", "bucket", "distances",
                     "count");
  auto cell = [](const json& r) {
    std::string dist = r["first"].is_null()      ? std::string("empty")
                       : r["last"].is_null()     ? fmt::format("{}..", r["first"].get<int>())
                       : r["first"] == r["last"] ? fmt::format("{}", r["first"].get<int>())
                                                 : fmt::format("{}..{}", r["first"].get<int>(), r["last"].get<int>());
    std::string count = r["count"].is_null() ? std::string("open") : r["count"].dump();
    return fmt::format("{:>6} {:>12} {:>6}", r["bucket"].get<int>(), dist, count);
  };
  const auto& rows = j["rows"];
  const size_t half = (rows.size() + 1) / 2;
  for (size_t i = 0; i < half; ++i)
    out += cell(rows[i]) + (i + half < rows.size() ? "   " + cell(rows[i + half]) : "") + "\n";
  out += fmt::format("first distance in the last bucket: {}\n", j["first_distance_in_last_bucket"].get<int>());
}

void alibi(std::string& out, const json& j) {
  heading(out, fmt::format("ALiBi tail bound e^W e^(-sD)/(1-e^(-s)), W = {}, s = {}, horizon W/s = {}", num(j["width"]),
                           num(j["slope"]), num(j["horizon"])));
  out += fmt::format("random heads: {} per family, length {}\n", j["heads_per_family"].get<int>(), j["len"].get<int>());
  out += fmt::format("{:>4} {:>12} {:>8} {:>14} {:>14} {:>14} {:>6}\n", "D", "bound", "vacuous", "max uniform",
                     "max two-level", "worst case", "holds");
  for (const auto& r : j["rows"])
    out += fmt::format("{:>4} {:>12.4e} {:>8} {:>14.4e} {:>14.4e} {:>14.4e} {:>6}\n", r["D"].get<int>(),
                       num(r["bound"]), yes_no(r["vacuous"]), num(r["max_mass_uniform_heads"]),
                       num(r["max_mass_two_level_heads"]), num(r["worst_case_mass"]), yes_no(r["holds"]));
}

void rope_rel(std::string& out, const json& j) {
  heading(out, "RoPE: <R(m)q, R(n)k> = <q, R(n-m)k> and ||R(m)q|| = ||q|| on random vectors");
  out += fmt::format("{:>4} {:>7} {:>10} {:>14} {:>14}\n", "d", "trials", "positions", "max rel err", "max norm err");
  for (const auto& r : j["rows"])
    out += fmt::format("{:>4} {:>7} {:>10} {:>14.3e} {:>14.3e}\n", r["d"].get<int>(), r["trials"].get<int>(),
                       fmt::format("<{}", r["position_range"].get<int>()), num(r["max_relative_error"]),
                       num(r["max_norm_error"]));
}

void rope_decay(std::string& out, const json& j) {
  heading(out, fmt::format("RoPE long-term decay envelope sum_j |S_j|, d = {} (value at Delta = 0: {})",
                           j["d"].get<int>(), num(j["envelope_at_0"])));
  out += fmt::format("{:>12} {:>12} {:>12}\n", "Delta", "mean", "mean/(d/2)");
  for (const auto& r : j["rows"])
    out += fmt::format("{:>12} {:>12.4f} {:>12.4f}\n",
                       fmt::format("{}..{}", r["octave"][0].get<int>(), r["octave"][1].get<int>()),
                       num(r["mean_envelope"]), num(r["mean_relative"]));
}

void rope_dist(std::string& out, const json& j) {
  heading(out, fmt::format("RoPE score distribution vs offset ({} samples per offset; KS 0.1% critical {:.4f})",
                           j["samples"].get<int>(), num(j["ks_critical_0.1pct"])));
  for (const auto& c : j["cases"]) {
    out += fmt::format("d = {}, key planes {}: max KS vs Delta=0 {:.4f}\n", c["d"].get<int>(),
                       c["key_planes"].get<std::string>(), num(c["max_ks_vs_delta0"]));
    out += fmt::format("  {:>6} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>8}\n", "Delta", "mean", "var", "exact var",
                       "q05", "q50", "q95", "KS");
    for (const auto& r : c["rows"])
      out += fmt::format("  {:>6} {:>9.4f} {:>9.4f} {:>9.4f} {:>9.4f} {:>9.4f} {:>9.4f} {:>8.4f}\n",
                         r["delta"].get<int>(), num(r["mean"]), num(r["variance"]), num(r["exact_variance"]),
                         num(r["q05"]), num(r["q50"]), num(r["q95"]), num(r["ks_vs_delta0"]));
  }
}

void census(std::string& out, const json& j) {
  heading(out, fmt::format("Wavelength census, d = {}, L = {}, b = {} (factor theta'_j/theta_j)", j["d"].get<int>(),
                           j["train_len"].get<int>(), num(j["base"])));
  out += format_census(j);
}

void interp(std::string& out, const json& j) {
  heading(out, "Interpolation bound: sum_j theta_j^2 vs the published d/(4 ln b)");
  out += fmt::format("{:>5} {:>14} {:>14} {:>22}\n", "d", "sum theta^2", "d/(4 ln b)", "published too small by");
  for (const auto& c : j["constants"])
    out += fmt::format("{:>5} {:>14.6f} {:>14.6f} {:>21.2f}x\n", c["d"].get<int>(), num(c["sum_theta_sq"]),
                       num(c["published_d_over_4lnb"]), num(c["ratio"]));
  const auto& e = j["example"];
  out += fmt::format(
      "d = {}, all h_j = 1, on [{}, {}] at Delta = {}: actual error {:.6f}, published bound {:.6f} "
      "(holds: {}), corrected bound {:.6f} (holds: {})\n",
      e["d"].get<int>(), num(e["interval"][0]), num(e["interval"][1]), num(e["delta"]), num(e["actual_error"]),
      num(e["published_bound"]), yes_no(e["published_holds"]), num(e["corrected_bound"]), yes_no(e["corrected_holds"]));
}

void precision(std::string& out, const json& j) {
  heading(out, "Finite precision: position scalars");
  out += fmt::format("{:>9} {:>5} {:>14} {:>14} {:>14}\n", "dtype", "bits", "first alias", "aliases with", "stored as");
  for (const auto& r : j["scalar_aliasing"])
    out += fmt::format("{:>9} {:>5} {:>14} {:>14} {:>14}\n", r["dtype"].get<std::string>(),
                       r["significand_bits"].get<int>(), r["first_aliasing_position"].get<long long>(),
                       r["aliases_with"].get<long long>(), num(r["stored_value"]));
  const auto& t = j["table"];
  heading(out, fmt::format("Finite precision: sinusoidal table d = {}, b = {}, positions 0..{}", t["d"].get<int>(),
                           num(t["base"]), t["positions"].get<int>() - 1));
  out += fmt::format("unrounded (double): min distance {:.6f} at offset {}\n", num(t["unrounded_min_distance"]),
                     t["unrounded_min_offset"].get<int>());
  out += fmt::format("{:>9} {:>12} {:>14} {:>10} {:>9} {:>14} {:>14}\n", "dtype", "min dist", "at pair", "rechecked",
                     "certified", "repeated rows", "first collision");
  for (const auto& r : t["rows"])
    out +=
        fmt::format("{:>9} {:>12.6f} {:>14} {:>10} {:>9} {:>14} {:>14}\n", r["dtype"].get<std::string>(),
                    num(r["min_distance"]), pair_str(r["min_pair"]), r["rechecked_candidates"].get<long long>(),
                    yes_no(r["certified"]), r["repeated_rows"].get<long long>(), pair_str(r["first_colliding_pair"]));
}

}  // namespace

std::string format_tables(const json& all) {
  std::string out;
  const std::pair<const char*, void (*)(std::string&, const json&)> parts[] = {{"cue_baseline", cue},
                                                                               {"causal_counter", counter},
                                                                               {"sinusoidal_rotation", rotation},
                                                                               {"log_ruler", ruler},
                                                                               {"column_cosines", columns},
                                                                               {"window_conditioning", windows},
                                                                               {"relativity", relativity},
                                                                               {"t5_buckets", t5},
                                                                               {"alibi_bound", alibi},
                                                                               {"rope_relative", rope_rel},
                                                                               {"rope_decay", rope_decay},
                                                                               {"rope_offset_distribution", rope_dist},
                                                                               {"wavelength_census", census},
                                                                               {"interpolation_bound", interp},
                                                                               {"finite_precision", precision}};
  for (const auto& [key, render] : parts)
    if (all.contains(key)) render(out, all.at(key));
  return out;
}

}  // namespace pe::theory
