// The attention paths asked for by name (AttnPath, models/attention.h) against the reference row path:
// the dense path (query blocks of matrix products, models/attention_dense.cpp) for the schemes that act
// on q and k or add a bias row by row (none, rope, alibi), forward and backward, in float and double.
// (The schemes with block hooks are compared in tests/test_block_hooks.cpp; the lookup path against
// itself one sequence at a time in tests/test_attention_float.cpp.)
//
// Dense and rows are NOT the same bits, and are not meant to be: each sums in its own order. A score
// q.k is one FMA per k in increasing k from 0 in the matrix kernel (core/gemm.h) but Eigen's vectorised
// dot product (products, then a tree of adds) in the row path; o = p v, dq, dk and dv likewise
// (the kernel's FMAs against accumulate_rows' multiply-then-add in key order), and the double path's
// products are Eigen's. What they share is the softmax (softmax_row, softmax_row_backward) and the
// scheme's row hooks, so the differences are rounding only: a few units in the last place of a sum of
// T terms. Asserted: max |dense - rows| <= tol * max |rows| over each output, tol = 2e-6 in float
// (the worst measured here: 4.8e-7) and 1e-14 in double (measured: 8.9e-16). The row path asked for by
// name is also checked to give the bits of the identity kv_index that chose it before paths had names.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <tuple>
#include <vector>

#include "core/params.h"
#include "core/rng.h"
#include "models/attention.h"

using namespace pe;

namespace {

template <class S>
struct Pass {
  std::vector<S> out, probs, dQ, dK, dV, grad;
};

// One attention layer (B = 2 sequences, T = 75 rows: a last query block of 11 rows; 2 heads of width dh)
// through `path`; identity: keys through an identity kv_index (the row path's other way in).
template <class S>
Pass<S> run(const std::string& name, const Visibility& vis, int dh, AttnPath path, bool identity = false) {
  const int B = 2, T = 75, H = 2, W = H * dh;
  SchemeConfig c;
  c.name = name;
  c.d_model = W, c.n_heads = H, c.d_head = dh;
  auto scheme = make_scheme<S>(c);
  ParamLayout layout;
  scheme->declare(layout);
  std::vector<S> params(layout.total() + 1), grad(layout.total() + 1, S(0));
  Rng rng(17);
  for (auto& x : params) x = S(0.5 * rng.normal());
  const size_t n = size_t(B) * T * W;
  auto draw = [&] {
    std::vector<S> v(n);
    for (auto& x : v) x = S(rng.normal());
    return v;
  };
  const std::vector<S> Q = draw(), K = draw(), V = draw(), dO = draw();
  std::vector<int> pos(T), index(size_t(B) * T);
  for (int t = 0; t < T; ++t) pos[t] = 5 + t;
  std::iota(index.begin(), index.end(), 0);
  scheme->prepare(5 + T);
  const AttnShape sh{B, T, T, H, dh};
  const CParamView<S> P{params.data(), &layout};
  const int* kv = identity ? index.data() : nullptr;
  Pass<S> r;
  r.out.assign(n, S(0)), r.dQ.assign(n, S(0)), r.dK.assign(n, S(0)), r.dV.assign(n, S(0));
  r.probs.assign(size_t(B) * H * T * T, S(0));
  attention_forward(sh, Q.data(), K.data(), V.data(), Coordinates{pos.data(), pos.data(), vis}, *scheme, P,
                    r.probs.data(), r.out.data(), kv, {}, {}, path);
  attention_backward(sh, Q.data(), K.data(), V.data(), Coordinates{pos.data(), pos.data(), vis}, *scheme, P,
                     ParamView<S>{grad.data(), &layout}, r.probs.data(), dO.data(), r.dQ.data(), r.dK.data(),
                     r.dV.data(), kv, {}, {}, path);
  r.grad = grad;
  return r;
}

// max |a - b| / max |b|
template <class S>
double rel(const std::vector<S>& a, const std::vector<S>& b) {
  double m = 0, s = 0;
  for (size_t i = 0; i < a.size(); ++i)
    m = std::max(m, std::abs(double(a[i]) - double(b[i]))), s = std::max(s, std::abs(double(b[i])));
  return s > 0 ? m / s : m;
}

template <class S>
void compare_dense_with_rows(double tol) {
  int checked = 0;
  double worst = 0;
  for (const char* s : {"none", "rope", "alibi"})
    for (const Visibility vis : {Visibility{}, Visibility{true, 20}})
      for (int dh : {8, 16, 32, 6}) {
        const Pass<S> dense = run<S>(s, vis, dh, AttnPath::dense), rows = run<S>(s, vis, dh, AttnPath::rows);
        INFO(s, " window ", vis.window, " dh ", dh, " (", sizeof(S) == 4 ? "float" : "double", ")");
        using Output = std::tuple<const char*, const std::vector<S>*, const std::vector<S>*>;
        for (const Output& o : {Output{"out", &dense.out, &rows.out}, Output{"probs", &dense.probs, &rows.probs},
                                Output{"dQ", &dense.dQ, &rows.dQ}, Output{"dK", &dense.dK, &rows.dK},
                                Output{"dV", &dense.dV, &rows.dV}, Output{"grad", &dense.grad, &rows.grad}}) {
          INFO(std::get<0>(o));
          const double e = rel(*std::get<1>(o), *std::get<2>(o));
          CHECK(e <= tol);
          worst = std::max(worst, e);
        }
        // the automatic choice for these arguments (no kv_index, several query rows) is the dense path
        const Pass<S> automatic = run<S>(s, vis, dh, AttnPath::automatic);
        CHECK(automatic.out == dense.out);
        CHECK(automatic.dK == dense.dK);
        // and asking for rows by name is what an identity kv_index gave before the path had a name
        const Pass<S> identity = run<S>(s, vis, dh, AttnPath::automatic, true);
        CHECK(identity.out == rows.out);
        CHECK(identity.dQ == rows.dQ);
        CHECK(identity.dK == rows.dK);
        CHECK(identity.dV == rows.dV);
        ++checked;
      }
  CHECK(checked == 24);
  MESSAGE("dense against rows, worst max |difference| / max |value|: ", worst);
}

}  // namespace

TEST_CASE("attention paths: dense against the reference rows for none, rope and alibi (float)") {
  compare_dense_with_rows<float>(2e-6);
}

TEST_CASE("attention paths: dense against the reference rows for none, rope and alibi (double)") {
  compare_dense_with_rows<double>(1e-14);
}

TEST_CASE("attention paths: a path that cannot take the arguments throws") {
  SchemeConfig c;
  c.name = "none";
  c.d_model = 8, c.n_heads = 1, c.d_head = 8;
  auto scheme = make_scheme<float>(c);
  ParamLayout layout;
  scheme->declare(layout);
  std::vector<float> params(layout.total() + 1, 0.0f), x(4 * 8, 0.5f), out(4 * 8), probs(16), scores(4, 0.0f);
  const CParamView<float> P{params.data(), &layout};
  const std::vector<int> pos{0, 1, 2, 3}, index{0, 1, 2, 3};
  const AttnShape sh{1, 4, 4, 1, 8};
  auto forward = [&](const int* kv, ScoreLookup<float> lookup, AttnPath path) {
    attention_forward(sh, x.data(), x.data(), x.data(), Coordinates{pos.data(), pos.data(), Visibility{}}, *scheme, P,
                      probs.data(), out.data(), kv, {}, lookup, path);
  };
  CHECK_NOTHROW(forward(nullptr, {}, AttnPath::rows));
  CHECK_NOTHROW(forward(index.data(), {}, AttnPath::rows));
  CHECK_NOTHROW(forward(nullptr, {}, AttnPath::dense));
  CHECK_THROWS_AS(forward(index.data(), {}, AttnPath::dense), Error);                   // dense: no kv_index
  CHECK_THROWS_AS(forward(index.data(), {}, AttnPath::lookup), Error);                  // lookup: no scores given
  CHECK_THROWS_AS(forward(index.data(), {scores.data()}, AttnPath::rows), Error);       // scores for lookup only
  CHECK_THROWS_AS(forward(index.data(), {scores.data()}, AttnPath::automatic), Error);  // lookup: Tq = 4
}
