// The sinusoidal code's variants (schemes/sinusoidal.h): sinusoidal_layout "concatenated" holds the same numbers
// as the interleaved default with every sine moved before every cosine, sinusoidal_scale multiplies the code, and
// a variant is not read as the default code (its geometry is Other); an unknown layout is refused by name.
#include <doctest/doctest.h>

#include <vector>

#include "core/errors.h"
#include "schemes/scheme.h"

using namespace pe;

namespace {
std::vector<double> code(const nlohmann::json& settings, int d, const std::vector<int>& pos) {
  SchemeConfig c;
  c.name = "sinusoidal";
  c.d_model = d;
  c.settings = settings;
  const auto s = make_scheme<double>(c);
  s->prepare(10);  // positions past it are computed directly: both paths
  std::vector<double> out(pos.size() * size_t(d), 0.0);
  s->embed_forward(CParamView<double>{}, pos.data(), int(pos.size()), out.data());
  return out;
}
}  // namespace

TEST_CASE("sinusoidal: the concatenated layout and the amplitude are the default code moved and scaled") {
  const int d = 12;
  const std::vector<int> pos = {0, 3, 10, 57};
  const auto base = code(nlohmann::json::object(), d, pos);
  const auto concat = code({{"sinusoidal_layout", "concatenated"}, {"sinusoidal_scale", 0.5}}, d, pos);
  for (size_t i = 0; i < pos.size(); ++i)
    for (int j = 0; j < d / 2; ++j) {
      CHECK(concat[i * d + j] == 0.5 * base[i * d + 2 * j]);
      CHECK(concat[i * d + d / 2 + j] == 0.5 * base[i * d + 2 * j + 1]);
    }
  SchemeConfig c;
  c.name = "sinusoidal";
  CHECK(make_scheme<double>(c)->geometry().kind == PositionGeometry::Kind::AddedCode);
  c.settings = {{"sinusoidal_scale", 2.0}};
  CHECK(make_scheme<double>(c)->geometry().kind == PositionGeometry::Kind::Other);
  c.settings = {{"sinusoidal_layout", "halves"}};
  CHECK_THROWS_AS(make_scheme<double>(c), ConfigError);
}
