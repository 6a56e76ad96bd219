// Context-extension maps: ntk against an actual change of base, the limits of the yarn ramp, selective
// against the wavelength rule, argument checking, and the census.
#include <doctest/doctest.h>

#include <cmath>

#include "core/errors.h"
#include "core/frequencies.h"
#include "schemes/frequency_plan.h"
#include "theory/census.h"

using namespace pe::theory;
using pe::kYarnAlpha;
using pe::kYarnBeta;
using pe::parse_map;
using pe::yarn_logit_scale;

TEST_CASE("theory: plane factors of pi, ntk, yarn, selective") {
  const int d = 16, L = 32;
  const double b = 10000;
  for (double kappa : {2.0, 4.0, 8.0}) {
    const auto pi = parse_map("pi").factors(d, b, L, kappa);
    const auto ntk = parse_map("ntk").factors(d, b, L, kappa);
    const auto yarn = parse_map("yarn").factors(d, b, L, kappa);
    const auto sel = parse_map("selective").factors(d, b, L, kappa);
    const double nb = b * std::pow(kappa, d / (d - 2.0));  // NTK's new base
    for (int j = 0; j < d / 2; ++j) {
      CHECK(pi[j] == doctest::Approx(1 / kappa));
      CHECK(ntk[j] == doctest::Approx(pe::plane_frequency(j, d, nb) / pe::plane_frequency(j, d, b)).epsilon(1e-13));
      const double turns = L / pe::plane_wavelength(j, d, b);
      if (turns <= kYarnAlpha) CHECK(yarn[j] == doctest::Approx(1 / kappa));
      if (turns >= kYarnBeta) CHECK(yarn[j] == doctest::Approx(1.0));
      CHECK(yarn[j] >= 1 / kappa - 1e-15);
      CHECK(yarn[j] <= 1.0 + 1e-15);
      CHECK(sel[j] == (pe::plane_wavelength(j, d, b) > L ? 1 / kappa : 1.0));
    }
    CHECK(ntk[0] == 1.0);
    CHECK(ntk[d / 2 - 1] == doctest::Approx(1 / kappa).epsilon(1e-14));
    // plane 0 turns 32/2pi = 5.09 times: g = (5.09 - 1)/31
    const double g0 = (L / (2 * M_PI) - 1) / 31;
    CHECK(yarn[0] == doctest::Approx((1 - g0) / kappa + g0).epsilon(1e-13));
  }
  // a fast plane at base 2 with L large: ramp saturates, factor 1
  CHECK(parse_map("yarn").factors(4, 2.0, 10000, 4.0)[0] == 1.0);
  for (const char* map : {"pi", "ntk", "yarn", "selective", "none"})
    for (double f : parse_map(map).factors(d, b, L, 0.5)) CHECK(f == 1.0);
  CHECK_THROWS_AS(parse_map("zoom").factors(d, b, L, 2.0), pe::UsageError);
  CHECK_THROWS_AS(parse_map("pi").factors(15, b, L, 2.0), pe::UsageError);
  CHECK(yarn_logit_scale(1.0) == 1.0);
  CHECK(yarn_logit_scale(std::exp(1.0)) == doctest::Approx(1.21));
}

TEST_CASE("theory: wavelength census at d = 16, L = 32") {
  const auto j = wavelength_census_report();
  REQUIRE(j["planes"].size() == 8);
  int full = 0;
  for (const auto& p : j["planes"]) {
    const double lambda = p["wavelength"];
    CHECK(lambda == doctest::Approx(2 * M_PI * std::pow(10.0, p["plane"].get<int>() / 2.0)));
    CHECK(p["completes_turn"].get<bool>() == (31 >= lambda));
    full += p["completes_turn"].get<bool>();
    CHECK(p["factors"]["pi"]["4"].get<double>() == 0.25);
  }
  CHECK(full == 2);  // wavelengths 6.28 and 19.87 fit in 31 offsets, 62.8 does not
}
