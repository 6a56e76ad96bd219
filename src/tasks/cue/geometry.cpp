#include "tasks/cue/geometry.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/build_info.h"
#include "core/frequencies.h"
#include "core/math.h"
#include "tasks/cue/checkpoint.h"
#include "theory/relativity.h"

namespace pe {

using nlohmann::json;

namespace {

// Rows of E W_Q and E W_K for every token (no positional state): [V, d] each.
void projected_tokens(const CueHead<float>& m, Eigen::MatrixXd& Qt, Eigen::MatrixXd& Kt) {
  const int d = m.config().d_model;
  const auto P = m.cview();
  const Eigen::MatrixXd E = P(m.layout().find("tok_emb")).cast<double>();
  const Eigen::MatrixXd W = P(m.layout().find("w_qkv")).cast<double>();
  Qt = E * W.leftCols(d);
  Kt = E * W.middleCols(d, d);
}

// M = W_Q W_K^T: the matrix of the position-position term p(m)^T M p(n).
Eigen::MatrixXd qk_matrix(const CueHead<float>& m) {
  const int d = m.config().d_model;
  const Eigen::MatrixXd W = m.cview()(m.layout().find("w_qkv")).cast<double>();
  return W.leftCols(d) * W.middleCols(d, d).transpose();
}

// Sinusoidal head read with its position-position term replaced by the offset-only projection:
// adds -p(m)^T (M - Pi M) p(n) / sqrt(d) to every score (an analysis-only scheme, no parameters).
class ProjectedSinusoidal final : public Scheme<float> {
 public:
  ProjectedSinusoidal(const SchemeConfig& cfg, const Eigen::MatrixXd& M)
      : Scheme<float>(cfg), inner_(make_scheme<float>(cfg)), base_(inner_->geometry().base) {
    D_ = M - theory::relative_projection(M);
  }
  std::string name() const override { return "sinusoidal-offset-projected"; }
  bool acts_on_embedding() const override { return true; }
  bool acts_on_scores() const override { return true; }
  void embed_forward(CParamView<float> P, const int* pos, int n, float* out) const override {
    inner_->embed_forward(P, pos, n, out);
  }
  // The codes p(n) and the rows p(n)^T D of positions 0..max_pos, computed once (the sums are the
  // ones score_forward made per pair before, so the scores are the same bits).
  void prepare(int max_pos) override {
    inner_->prepare(max_pos);
    for (int p = int(codes_.size()); p <= max_pos; ++p) {
      codes_.emplace_back(cfg_.d_model);
      sinusoidal_code(p, cfg_.d_model, base_, codes_.back().data());
      coded_.push_back(codes_.back().transpose() * D_);
    }
  }
  void score_forward(CParamView<float>, const AttnRow<float>& r, float* scores) const override {
    const int d = cfg_.d_model, nk = r.nk;
    const int* kpos = r.kpos;
    if (r.qpos >= int(coded_.size()))
      throw Error("sinusoidal-offset-projected: positions outside the prepared range; call prepare()");
    const Eigen::RowVectorXd& aD = coded_[r.qpos];  // keys precede the query: prepared too
    for (int j = 0; j < nk; ++j) scores[j] -= float(aD.dot(codes_[kpos[j]]) / std::sqrt(double(d)));
  }

 private:
  std::unique_ptr<Scheme<float>> inner_;
  double base_;
  Eigen::MatrixXd D_;
  std::vector<Eigen::VectorXd> codes_;     // p(n), n = 0..max_pos prepared
  std::vector<Eigen::RowVectorXd> coded_;  // p(n)^T D
};

json opt(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

json rope_section(const CueHead<float>& m, const PositionGeometry& rotation, int train_len, int max_age) {
  const auto curve = rope_offset_curve(m, max_age);
  // first trough: the first local minimum
  int trough = -1;
  for (int r = 1; r + 1 < int(curve.size()); ++r)
    if (curve[r] < curve[r - 1] && curve[r] <= curve[r + 1]) {
      trough = r;
      break;
    }
  const auto deepest = std::min_element(curve.begin() + train_len, curve.end()) - curve.begin();
  const auto rebound = deepest + 1 < long(curve.size())
                           ? std::max_element(curve.begin() + deepest + 1, curve.end()) - curve.begin()
                           : deepest;
  // per-plane amplitude |q_j| |k_j|, averaged over marked symbols
  Eigen::MatrixXd Qt, Kt;
  projected_tokens(m, Qt, Kt);
  const int A = m.config().task.alphabet, qt = m.config().task.query_token_id(), P = m.config().d_model / 2;
  std::vector<double> amp(P, 0.0);
  for (int s = 0; s < A; ++s)
    for (int j = 0; j < P; ++j)
      amp[j] += math::hypot(Qt(qt, 2 * j), Qt(qt, 2 * j + 1)) * math::hypot(Kt(A + s, 2 * j), Kt(A + s, 2 * j + 1)) /
                std::sqrt(2.0 * P) / A;
  const int top = int(std::max_element(amp.begin(), amp.end()) - amp.begin());
  return {{"score_by_age", curve},
          {"in_window_start", curve[0]},
          {"in_window_end", curve[train_len - 1]},
          {"first_trough", {{"age", trough}, {"score", trough >= 0 ? json(curve[trough]) : json(nullptr)}}},
          {"deepest_past_window", {{"age", deepest}, {"score", curve[deepest]}}},
          {"highest_after_deepest", {{"age", rebound}, {"score", curve[rebound]}}},
          {"plane_amplitudes", amp},
          {"largest_plane", top},
          {"largest_plane_wavelength", plane_wavelength(top, 2 * P, rotation.base)}};
}

json sinusoidal_section(CueHead<float>& m, const json& meta, const EvalSettings& s, int train_len) {
  CueHead<float> fresh(m.config());
  fresh.init(uint64_t(meta.at("training").value("seed", 0)));
  const double d_init = theory::relativity_defect(qk_matrix(fresh)),
               d_trained = theory::relativity_defect(qk_matrix(m));
  json acc = json::array(), proj = json::array(), shifted = json::array();
  const auto task = m.config().task;
  std::vector<CueBatch> tests;
  for (int n : s.lengths) tests.push_back(cue_test_set(task, uint64_t(s.test_seed), n, s.test_sequences));
  for (size_t i = 0; i < tests.size(); ++i) {
    m.prepare(tests[i].T);
    acc.push_back(opt(cue_accuracy(m, tests[i])));
    // the query at position train_len - 1 again: positions train_len - n .. train_len - 1
    shifted.push_back(opt(cue_accuracy(m, tests[i], train_len - tests[i].T)));
  }
  auto original = make_scheme<float>(m.config().scheme);
  m.swap_scheme(std::make_unique<ProjectedSinusoidal>(m.config().scheme, qk_matrix(m)));
  for (auto& t : tests) m.prepare(t.T);  // the projected scheme's codes
  for (auto& t : tests) proj.push_back(opt(cue_accuracy(m, t)));
  m.swap_scheme(std::move(original));
  return {{"defect_at_init", d_init},
          {"defect_trained", d_trained},
          {"accuracy", acc},
          {"accuracy_offset_projected", proj},
          {"accuracy_query_at_train_end", shifted}};
}

json alibi_section(CueHead<float>& m, const EvalSettings& s) {
  const auto task = m.config().task;
  const AlibiReach reach = *alibi_reach(m);
  const double W = reach.width, slope = reach.slope, horizon = reach.horizon();
  long inside = 0, inside_ok = 0, beyond = 0, beyond_ok = 0;
  for (int n : s.lengths) {
    const CueBatch t = cue_test_set(task, uint64_t(s.test_seed), n, s.test_sequences);
    std::vector<int> pred;
    m.prepare(n);
    cue_accuracy(m, t, 0, &pred);
    for (int b = 0; b < t.B; ++b) {
      int last = -1;
      for (int i = 0; i < n - 1; ++i)
        if (t.tokens[size_t(b) * n + i] >= task.alphabet) last = i;
      const int age = (n - 1) - last;
      if (age <= horizon / 2) inside++, inside_ok += (pred[b] == t.targets[b]);
      if (age > horizon) beyond++, beyond_ok += (pred[b] == t.targets[b]);
    }
  }
  return {{"content_width", W},
          {"slope", slope},
          {"horizon", horizon},
          {"lengths", s.lengths},
          {"queries_inside_half_horizon", inside},
          {"accuracy_inside_half_horizon", inside ? json(double(inside_ok) / inside) : json(nullptr)},
          {"queries_beyond_horizon", beyond},
          {"accuracy_beyond_horizon", beyond ? json(double(beyond_ok) / beyond) : json(nullptr)}};
}

}  // namespace

std::optional<AlibiReach> alibi_reach(const CueHead<float>& m) {
  // the slope the head was trained with: the scheme's own (an empty alibi_slopes means the reference
  // rule, which the scheme applied), never the raw setting
  const PositionGeometry g = m.scheme().geometry();
  if (g.kind != PositionGeometry::Kind::LinearBias) return std::nullopt;
  Eigen::MatrixXd Qt, Kt;
  projected_tokens(m, Qt, Kt);
  const auto task = m.config().task;
  const int V = task.vocab(), d = m.config().d_model;
  // content scores of each query against every key the task produces (content tokens and the
  // query token itself, when there is one)
  AlibiReach reach{0, g.slopes.at(0), std::vector<double>(size_t(V), 0.0)};
  for (int q = task.query_token ? task.query_token_id() : 0; q < V; ++q) {
    double lo = 1e300, hi = -1e300;
    for (int x = 0; x < V; ++x) {
      const double c = Qt.row(q).dot(Kt.row(x)) / std::sqrt(double(d));
      lo = std::min(lo, c), hi = std::max(hi, c);
    }
    reach.widths[size_t(q)] = hi - lo;
    reach.width = std::max(reach.width, hi - lo);
  }
  return reach;
}

std::vector<double> rope_offset_curve(const CueHead<float>& m, int max_age) {
  Eigen::MatrixXd Qt, Kt;
  projected_tokens(m, Qt, Kt);
  const auto task = m.config().task;
  const int d = m.config().d_model, A = task.alphabet, qpos = max_age;
  // rotate with the scheme's own hook, in double, at explicit positions
  SchemeConfig sc = m.config().scheme;
  auto rope = make_scheme<double>(sc);
  rope->prepare(qpos);
  std::vector<double> q(d);
  for (int c = 0; c < d; ++c) q[c] = Qt(task.query_token_id(), c);  // (Qt is column-major: copy by element)
  rope->qk_forward(Qk::Query, &qpos, 1, q.data());
  std::vector<double> curve(max_age + 1, 0.0);
  for (int s = 0; s < A; ++s)
    for (int r = 0; r <= max_age; ++r) {
      std::vector<double> k(d);
      for (int c = 0; c < d; ++c) k[c] = Kt(A + s, c);
      const int kpos = qpos - r;
      rope->qk_forward(Qk::Key, &kpos, 1, k.data());
      double dot = 0;
      for (int c = 0; c < d; ++c) dot += q[c] * k[c];
      curve[r] += dot / std::sqrt(double(d)) / A;
    }
  return curve;
}

json analyze_checkpoints(const std::vector<std::string>& paths, const EvalSettings& s, int max_age) {
  json rope = json::array(), sinus = json::array(), alibi = json::array();
  for (auto& p : paths) {
    auto cp = load_checkpoint(p);
    note_positions_read(cp, "the geometry");
    auto& m = *cp.model;
    const PositionGeometry g = m.scheme().geometry();
    const int L = cp.meta.at("training").value("train_length", 32);
    json head = {{"checkpoint", p}, {"seed", cp.meta.at("training").value("seed", 0)}, {"train_length", L}};
    switch (g.kind) {  // the section of the head's shape (a head of any other shape is not read here)
      case PositionGeometry::Kind::Rotation:
        head.update(rope_section(m, g, L, max_age));
        rope.push_back(head);
        break;
      case PositionGeometry::Kind::AddedCode:
        head.update(sinusoidal_section(m, cp.meta, s, L));
        sinus.push_back(head);
        break;
      case PositionGeometry::Kind::LinearBias:
        head.update(alibi_section(m, s));
        alibi.push_back(head);
        break;
      case PositionGeometry::Kind::Other:
        break;
    }
  }
  return {{"format", "pe-bench-geometry"}, {"version", 1}, {"lengths", s.lengths}, {"test_sequences", s.test_sequences},
          {"test_seed", s.test_seed},      {"rope", rope}, {"sinusoidal", sinus},  {"alibi", alibi},
          {"build", build_info_json()}};
}

std::string format_geometry(const json& g) {
  auto num = [](const json& v, const char* f = "{:.3f}") {
    return v.is_null() ? std::string("—") : fmt::format(fmt::runtime(f), v.get<double>());
  };
  std::string out;
  if (!g["rope"].empty()) {
    out += "RoPE heads: score of a marked key at age r (query token at the query position), mean over symbols\n";
    out += fmt::format("{:>5} {:>9} {:>9} {:>16} {:>20} {:>20} {:>14}\n", "seed", "r=0", "r=31", "first trough",
                       "deepest past window", "highest after it", "top plane");
    for (auto& h : g["rope"])
      out += fmt::format(
          "{:>5} {:>9.3f} {:>9.3f} {:>16} {:>20} {:>20} {:>14}\n", h["seed"].get<int>(),
          h["in_window_start"].get<double>(), h["in_window_end"].get<double>(),
          fmt::format("r={} ({})", h["first_trough"]["age"].get<int>(), num(h["first_trough"]["score"])),
          fmt::format("r={} ({})", h["deepest_past_window"]["age"].get<long>(), num(h["deepest_past_window"]["score"])),
          fmt::format("r={} ({})", h["highest_after_deepest"]["age"].get<long>(),
                      num(h["highest_after_deepest"]["score"])),
          fmt::format("{} (λ={:.0f})", h["largest_plane"].get<int>(), h["largest_plane_wavelength"].get<double>()));
  }
  std::string lens;
  for (auto& n : g["lengths"]) lens += fmt::format(" {:>5}", n.get<int>());
  if (!g["sinusoidal"].empty()) {
    out += fmt::format("\nSinusoidal heads: relativity defect of W_Q W_K^T, and accuracy at{}\n", lens);
    for (auto& h : g["sinusoidal"]) {
      out += fmt::format("  seed {}: defect {:.3f} at init -> {:.3f} trained\n", h["seed"].get<int>(),
                         h["defect_at_init"].get<double>(), h["defect_trained"].get<double>());
      auto row = [&](const char* label, const json& v) {
        std::string r = fmt::format("    {:<36}", label);
        for (auto& x : v) r += fmt::format(" {:>5}", num(x));
        return r + "\n";
      };
      out += row("as trained", h["accuracy"]);
      out += row("pos-pos term projected onto offsets", h["accuracy_offset_projected"]);
      out += row("shifted: query at position L-1 again", h["accuracy_query_at_train_end"]);
    }
  }
  if (!g["alibi"].empty()) {
    out += fmt::format("\nALiBi heads: content width W, horizon W/s; accuracy on test queries (lengths{})\n", lens);
    for (auto& h : g["alibi"])
      out += fmt::format(
          "  seed {}: W = {:.2f}, s = {}, horizon {:.1f}; inside half the horizon {} ({} queries), "
          "beyond the horizon {} ({} queries)\n",
          h["seed"].get<int>(), h["content_width"].get<double>(), h["slope"].get<double>(), h["horizon"].get<double>(),
          num(h["accuracy_inside_half_horizon"]), h["queries_inside_half_horizon"].get<long>(),
          num(h["accuracy_beyond_horizon"]), h["queries_beyond_horizon"].get<long>());
  }
  return out;
}

}  // namespace pe
