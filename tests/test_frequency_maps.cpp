// The table of context-extension maps: every entry parses as written and is what every list reads;
// base=B is a factor map too (so the census takes it), equal to a change of base; none is 1; bad
// spellings are unknown; a map's plan follows the table.
#include <doctest/doctest.h>

#include <string>

#include "core/errors.h"
#include "core/frequencies.h"
#include "schemes/frequency_maps.h"
#include "schemes/frequency_plan.h"

TEST_CASE("frequency maps: the table is what every list says") {
  const auto& maps = pe::frequency_maps();
  REQUIRE(maps.size() == 13);
  for (const auto& m : maps) {
    CHECK(pe::known_maps().find(m.spelling) != std::string::npos);
    CHECK(!m.help.empty());
    const std::string written = m.takes_value ? m.name + "=20000" : m.name;
    CHECK(pe::find_frequency_map(written) == &m);
    CHECK(pe::parse_map(written).written == written);
  }
  double v = 0;
  CHECK(pe::find_frequency_map("base=5e4", &v) != nullptr);
  CHECK(v == 50000.0);
  for (const char* bad : {"base", "base=", "base=1", "base=-3", "base=2x", "pi=2", "dynamic=3", "", "PI",
                          "yarn-hf:factor=0.5", "yarn-hf:beta=3", "compress:w"})
    CHECK_MESSAGE(pe::find_frequency_map(bad) == nullptr, bad);
}

TEST_CASE("frequency maps: base=B and none as plane factors (what the census reads)") {
  const int d = 16, L = 32;
  for (double kappa : {0.5, 1.0, 4.0}) {
    const auto f = pe::parse_map("base=40000").factors(d, 10000.0, L, kappa);  // any kappa: not a kappa map
    for (int j = 0; j < d / 2; ++j)
      CHECK(f[j] == doctest::Approx(pe::plane_frequency(j, d, 40000.0) / pe::plane_frequency(j, d, 10000.0)));
    for (double x : pe::parse_map("none").factors(d, 10000.0, L, kappa)) CHECK(x == 1.0);
  }
  CHECK_THROWS_WITH_AS(pe::parse_map("base=0.5").factors(d, 10000.0, L, 2.0), doctest::Contains("B > 1"),
                       pe::UsageError);
}

TEST_CASE("frequency maps: a map's plan follows the table") {
  const int d = 16, L = 32;
  const auto rebased = pe::parse_map("base=40000").plan(d, 10000.0, d / 2, L, 128);
  const auto direct = pe::identity_plan(d, 40000.0, d / 2);
  CHECK(rebased.theta == direct.theta);  // computed at the new base, bit for bit
  CHECK(rebased.kappa == 1.0);
  const auto yarn = pe::parse_map("yarn").plan(d, 10000.0, d / 2, L, 128);
  CHECK(yarn.logit_scale == pe::yarn_logit_scale(4.0));
  const auto pi = pe::parse_map("pi").plan(d, 10000.0, d / 2, L, 128);
  CHECK(pi.logit_scale == 1.0);
  for (int j = 0; j < d / 2; ++j) CHECK(pi.theta[j] == pe::plane_frequency(j, d, 10000.0) * 0.25);
  CHECK_THROWS_AS(pe::parse_map("zoom").plan(d, 10000.0, d / 2, L, 128), pe::UsageError);
}
