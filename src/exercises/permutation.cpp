// Exercises 1.3 and 2: what a permutation of the tokens does to attention, for every scheme pe-bench
// implements, through the harness's own attention layer and the schemes' own hooks in double.
//
// The model read: a stack of L attention layers with residuals, h_{l+1} = h_l + attn_l(h_l), 2 heads of
// width 8, random token vectors x_t ~ N(0, 1) as the input, random projections W ~ N(0, 1/16) and every
// scheme parameter drawn N(0, 0.5^2) (a scheme at its own init may start with a zero table, which would
// hide its position term). Positions are 0..n-1 and stay where they are: a permutation moves the tokens.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/errors.h"
#include "core/rng.h"
#include "exercises/exercises.h"
#include "models/attention.h"
#include "schemes/scheme.h"

namespace pe::exercises {

namespace {
constexpr int kHeads = 2, kHeadWidth = 8, kStateWidth = kHeads * kHeadWidth, kLength = 24, kTrials = 8;
constexpr double kParamStd = 0.5, kRounding = 1e-12;
using Mat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

Mat normals(Rng& rng, int rows, int cols, double std) {
  Mat m(rows, cols);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) m(i, j) = std * rng.normal();
  return m;
}

// A random member of a scheme's family, L layers deep.
struct Stack {
  std::unique_ptr<Scheme<double>> scheme;
  ParamLayout layout;
  std::vector<double> params;
  std::vector<Mat> wq, wk, wv;
  int layers = 1;
  bool bidirectional = false;
};

Stack make_stack(const std::string& name, int layers, bool bidirectional, Rng& rng) {
  Stack s;
  SchemeConfig sc;
  sc.name = name;
  sc.n_heads = kHeads;
  sc.d_head = kHeadWidth;
  sc.d_model = kStateWidth;
  sc.n_layers = std::max(layers, scheme_info(name).min_layers);
  sc.train_length = kLength;
  sc.bidirectional = bidirectional;
  if (auto settings = scheme_info(name).check_settings) sc.settings = settings(sc.n_layers);
  s.scheme = make_scheme<double>(sc);
  s.scheme->declare(s.layout);
  s.params.resize(s.layout.total());
  for (auto& p : s.params) p = kParamStd * rng.normal();
  s.scheme->prepare(kLength);
  s.layers = layers;
  s.bidirectional = bidirectional;
  for (int l = 0; l < layers; ++l) {
    const double w = 1.0 / std::sqrt(double(kStateWidth));
    s.wq.push_back(normals(rng, kStateWidth, kStateWidth, w));
    s.wk.push_back(normals(rng, kStateWidth, kStateWidth, w));
    s.wv.push_back(normals(rng, kStateWidth, kStateWidth, w));
  }
  return s;
}

// X: [n, width] token vectors at positions 0..n-1 -> the residual stream after the stack.
Mat forward(const Stack& s, Mat h) {
  const int n = int(h.rows());
  std::vector<int> pos(n);
  std::iota(pos.begin(), pos.end(), 0);
  const CParamView<double> P{s.params.data(), &s.layout};
  if (s.scheme->acts_on_embedding()) {
    Mat e = Mat::Zero(n, kStateWidth);
    s.scheme->embed_forward(P, pos.data(), n, e.data());
    h += e;
  }
  for (int l = 0; l < s.layers; ++l) {
    Mat q = h * s.wq[l], k = h * s.wk[l], v = h * s.wv[l], out(n, kStateWidth);
    if (s.scheme->acts_on_qk()) {
      s.scheme->qk_forward(l, Qk::Query, pos.data(), n, q.data());
      s.scheme->qk_forward(l, Qk::Key, pos.data(), n, k.data());
    }
    std::vector<double> tables(s.scheme->tables_size(l, n));
    if (!tables.empty()) s.scheme->tables_forward(P, l, n, tables.data());
    Coordinates at;
    at.qpos = at.kpos = pos.data();
    at.vis = (s.bidirectional ? Visibility::bidirectional() : Visibility{}).with_window(s.scheme->window(l));
    attention_forward<double>(AttnShape{1, n, n, kHeads, kHeadWidth, l}, q.data(), k.data(), v.data(), at, *s.scheme, P,
                              nullptr, out.data(), nullptr, AttnTables<double>{tables.data(), nullptr, n});
    h += out;
  }
  return h;
}

// A uniformly drawn permutation of 0..n-1 (Fisher-Yates).
std::vector<int> draw_permutation(Rng& rng, int n) {
  std::vector<int> p(n);
  std::iota(p.begin(), p.end(), 0);
  for (int i = n - 1; i > 0; --i) std::swap(p[i], p[rng.below(i + 1)]);
  return p;
}

Mat permute_rows(const Mat& x, const std::vector<int>& p) {
  Mat y(x.rows(), x.cols());
  for (int i = 0; i < int(p.size()); ++i) y.row(i) = x.row(p[i]);
  return y;
}

std::string verdict(double change) { return change <= kRounding ? "invariant (rounding)" : "changes"; }

// The largest change of the last row's output when the n-1 tokens before it are permuted, over trials.
nlohmann::json prefix_row(const std::string& name, int layers, uint64_t index) {
  nlohmann::json row = {{"scheme", name}, {"layers", layers}};
  if (scheme_info(name).min_layers > layers) {
    row["skipped"] = fmt::format("{} needs {} layers", name, scheme_info(name).min_layers);
    return row;
  }
  double change = 0, scale = 0;
  for (int t = 0; t < kTrials; ++t) {
    Rng rng(stream_key({kTagCheck, 13, index, uint64_t(layers), uint64_t(t)}));
    const Stack s = make_stack(name, layers, false, rng);
    const Mat x = normals(rng, kLength, kStateWidth, 1.0);
    std::vector<int> p = draw_permutation(rng, kLength - 1);
    p.push_back(kLength - 1);  // the last token stays last
    const Mat a = forward(s, x), b = forward(s, permute_rows(x, p));
    change = std::max(change, (a.row(kLength - 1) - b.row(kLength - 1)).cwiseAbs().maxCoeff());
    scale = std::max(scale, a.row(kLength - 1).cwiseAbs().maxCoeff());
  }
  row["max_abs_change"] = change;
  row["max_abs_output"] = scale;
  row["verdict"] = verdict(change);
  return row;
}

// One layer that sees every key: max |f(PX) - P f(X)| under a drawn permutation and under reversal.
nlohmann::json equivariance_row(const std::string& name, uint64_t index) {
  nlohmann::json row = {{"scheme", name}};
  const int layers = scheme_info(name).min_layers;
  row["layers"] = layers;
  double drawn = 0, reversed = 0;
  for (int t = 0; t < kTrials; ++t) {
    Rng rng(stream_key({kTagCheck, 2, index, uint64_t(t)}));
    Stack s;
    try {
      s = make_stack(name, layers, true, rng);
    } catch (const Error& e) {
      row["skipped"] = e.what();
      return row;
    }
    const Mat x = normals(rng, kLength, kStateWidth, 1.0), y = forward(s, x);
    const std::vector<int> p = draw_permutation(rng, kLength);
    std::vector<int> r(kLength);
    for (int i = 0; i < kLength; ++i) r[i] = kLength - 1 - i;
    drawn = std::max(drawn, (forward(s, permute_rows(x, p)) - permute_rows(y, p)).cwiseAbs().maxCoeff());
    reversed = std::max(reversed, (forward(s, permute_rows(x, r)) - permute_rows(y, r)).cwiseAbs().maxCoeff());
  }
  row["drawn_permutation"] = drawn;
  row["reversal"] = reversed;
  row["drawn_verdict"] = drawn <= kRounding ? "equivariant (rounding)" : "breaks";
  row["reversal_verdict"] = reversed <= kRounding ? "equivariant (rounding)" : "breaks";
  return row;
}

// The bias matrices B (n x n) that every permutation keeps, B[p(i), p(j)] = B[i, j]: the fixed space
// of the group average A = (1/n!) sum_p (P (x) P) on vec(B), found by its eigenvalues (1 on the fixed
// space, 0 elsewhere). n = 4: 24 permutations, a 16 x 16 operator.
nlohmann::json invariant_biases() {
  constexpr int n = 4;
  std::vector<int> p(n);
  std::iota(p.begin(), p.end(), 0);
  Eigen::MatrixXd A = Eigen::MatrixXd::Zero(n * n, n * n);
  int count = 0;
  do {
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) A(p[i] * n + p[j], i * n + j) += 1.0;
    ++count;
  } while (std::next_permutation(p.begin(), p.end()));
  A /= count;
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig((A + A.transpose()) / 2);
  int fixed = 0;
  for (int i = 0; i < n * n; ++i) fixed += eig.eigenvalues()(i) > 0.5;
  // the two named matrices lie in it: I and 11^T - I are fixed by A
  Eigen::VectorXd identity = Eigen::VectorXd::Zero(n * n), ones_off = Eigen::VectorXd::Ones(n * n);
  for (int i = 0; i < n; ++i) identity(i * n + i) = 1, ones_off(i * n + i) = 0;
  return {{"n", n},
          {"permutations", count},
          {"fixed_dimension", fixed},
          {"identity_residual", (A * identity - identity).cwiseAbs().maxCoeff()},
          {"off_diagonal_ones_residual", (A * ones_off - ones_off).cwiseAbs().maxCoeff()}};
}
}  // namespace

Exercise prefix_permutation() {
  Exercise e{"1.3", "permuting a causal prefix"};
  e.question =
      "Without positions, does a causal model's output at the last token change when the tokens before it "
      "are permuted? With one layer, with two, and with each positional scheme?";
  e.method = fmt::format(
      "The harness's attention layer and each scheme's own hooks in double: a causal stack of 1 and 2 "
      "layers (residual, {} heads of width {}), random token vectors at positions 0..{}, random weights; the "
      "{} tokens before the last are permuted (the last stays), over {} draws. 'invariant' means the last "
      "row moves by at most {:g}, summation order alone.",
      kHeads, kHeadWidth, kLength - 1, kLength - 1, kTrials, kRounding);
  e.compute = [] {
    nlohmann::json rows = nlohmann::json::array();
    uint64_t index = 0;
    for (auto& info : scheme_list()) {
      for (int layers : {1, 2}) rows.push_back(prefix_row(info.name, layers, index));
      ++index;
    }
    return nlohmann::json{{"length", kLength}, {"heads", kHeads},       {"head_width", kHeadWidth},
                          {"trials", kTrials}, {"rounding", kRounding}, {"rows", rows}};
  };
  e.print = [](const nlohmann::json& j) {
    std::string s = fmt::format("{:<14} {:>6} {:>14} {:>12}  {}\n", "scheme", "layers", "max |change|", "max |output|",
                                "last row under a permuted prefix");
    for (auto& r : j["rows"]) {
      if (r.contains("skipped")) {
        s += fmt::format("{:<14} {:>6} {:>14} {:>12}  {}\n", r["scheme"].get<std::string>(), r["layers"].get<int>(),
                         "-", "-", r["skipped"].get<std::string>());
        continue;
      }
      s += fmt::format("{:<14} {:>6} {:>14.3e} {:>12.3f}  {}\n", r["scheme"].get<std::string>(), r["layers"].get<int>(),
                       r["max_abs_change"].get<double>(), r["max_abs_output"].get<double>(),
                       r["verdict"].get<std::string>());
    }
    return s;
  };
  return e;
}

Exercise permutation_biases() {
  Exercise e{"2", "biases that keep permutation symmetry"};
  e.question =
      "Which position biases keep attention's permutation symmetry? Does the symmetric ALiBi -m|i-j| keep "
      "it?";
  e.method = fmt::format(
      "(a) The bias matrices every permutation keeps, B[p(i),p(j)] = B[i,j], as the fixed space of the group "
      "average over all 24 permutations of 4 tokens: its dimension and the residuals of I and 11^T - I. (b) "
      "Each scheme in its encoder form (every key visible: t5's two-sided buckets, alibi's -m|i-j|), one "
      "layer ({} heads of width {}, {} tokens, {} draws) through the harness's attention in double: max "
      "|f(PX) - P f(X)| for a drawn permutation P and for the reversal.",
      kHeads, kHeadWidth, kLength, kTrials);
  e.compute = [] {
    nlohmann::json rows = nlohmann::json::array();
    uint64_t index = 0;
    for (auto& info : scheme_list()) rows.push_back(equivariance_row(info.name, index++));
    return nlohmann::json{{"invariant_biases", invariant_biases()},
                          {"length", kLength},
                          {"heads", kHeads},
                          {"head_width", kHeadWidth},
                          {"trials", kTrials},
                          {"rounding", kRounding},
                          {"rows", rows}};
  };
  e.print = [](const nlohmann::json& j) {
    const auto& b = j["invariant_biases"];
    std::string s = fmt::format(
        "biases kept by every permutation of {} tokens: a {}-dimensional space (a I + c 11^T); residual of I "
        "{:.1e}, of 11^T - I {:.1e}\n"
        "a constant c shifts every score of a row alike (softmax ignores it); a I changes only the weight on "
        "the token itself\n\n",
        b["n"].get<int>(), b["fixed_dimension"].get<int>(), b["identity_residual"].get<double>(),
        b["off_diagonal_ones_residual"].get<double>());
    s += fmt::format("{:<14} {:>15} {:>12}  {:<24} {}\n", "scheme (enc.)", "drawn P", "reversal", "drawn", "reversal");
    for (auto& r : j["rows"]) {
      if (r.contains("skipped")) {
        s += fmt::format("{:<14} {}\n", r["scheme"].get<std::string>(), r["skipped"].get<std::string>());
        continue;
      }
      s += fmt::format("{:<14} {:>15.3e} {:>12.3e}  {:<24} {}\n", r["scheme"].get<std::string>(),
                       r["drawn_permutation"].get<double>(), r["reversal"].get<double>(),
                       r["drawn_verdict"].get<std::string>(), r["reversal_verdict"].get<std::string>());
    }
    return s;
  };
  return e;
}

}  // namespace pe::exercises
