// The scheme registry: adding a scheme means one header plus one line here.
#include <cmath>

#include "core/errors.h"
#include "schemes/alibi.h"
#include "schemes/learned.h"
#include "schemes/none.h"
#include "schemes/rope.h"
#include "schemes/sinusoidal.h"
#include "core/math.h"

namespace pe {

namespace {
template <class S>
using Factory = std::unique_ptr<Scheme<S>> (*)(const SchemeConfig&);

template <class S>
struct Entry {
  SchemeInfo info;
  Factory<S> make;
};

template <template <class> class T, class S>
std::unique_ptr<Scheme<S>> build(const SchemeConfig& c) {
  return std::make_unique<T<S>>(c);
}

template <class S>
const std::vector<Entry<S>>& entries() {
  static const std::vector<Entry<S>> e = {
      {{"none", "NoPE: no position; the causal mask is the only source of order"}, &build<NoneScheme, S>},
      {{"sinusoidal", "fixed sin/cos code added to the token embedding"}, &build<SinusoidalScheme, S>},
      {{"learned", "trained position table added to the token embedding (cannot read past its rows)"},
       &build<LearnedScheme, S>},
      {{"rope", "rotary: query and key planes rotated by position; scores see only offsets"},
       &build<RopeScheme, S>},
      {{"alibi", "linear penalty on the age m-n added to every score"}, &build<AlibiScheme, S>},
  };
  return e;
}
}  // namespace

const std::vector<SchemeInfo>& scheme_list() {
  static const std::vector<SchemeInfo> list = [] {
    std::vector<SchemeInfo> v;
    for (auto& e : entries<float>()) v.push_back(e.info);
    return v;
  }();
  return list;
}

bool scheme_exists(const std::string& name) {
  for (auto& s : scheme_list())
    if (s.name == name) return true;
  return false;
}

template <class S>
std::unique_ptr<Scheme<S>> make_scheme(const SchemeConfig& cfg) {
  for (auto& e : entries<S>())
    if (e.info.name == cfg.name) return e.make(cfg);
  std::string known;
  for (auto& s : scheme_list()) known += (known.empty() ? "" : ", ") + s.name;
  throw UsageError("unknown scheme '" + cfg.name + "' (known: " + known + ")");
}
template std::unique_ptr<Scheme<float>> make_scheme<float>(const SchemeConfig&);
template std::unique_ptr<Scheme<double>> make_scheme<double>(const SchemeConfig&);

// slope_h = 2^(-8h/H) for H a power of two; otherwise the slopes of the largest power of two P < H,
// then every other slope of the 2P sequence until there are H.
std::vector<double> alibi_reference_slopes(int H) {
  if (H < 1) throw UsageError("alibi: need at least one head");
  auto pow2 = [](int n) {
    std::vector<double> s(n);
    for (int h = 1; h <= n; ++h) s[h - 1] = math::pow(2.0, -8.0 * h / n);
    return s;
  };
  int P = 1;
  while (P * 2 <= H) P *= 2;
  if (P == H) return pow2(H);
  auto s = pow2(P);
  auto s2 = pow2(2 * P);
  for (size_t i = 0; int(s.size()) < H; i += 2) s.push_back(s2[i]);
  return s;
}

}  // namespace pe
