// The six schemes added as registry entries (t5, shaw, txl, deberta, tupe, hybrid): sign conventions
// against formulas written out by hand, the joint-shift classification of every registered scheme,
// per-layer visibility of the hybrid, and the schemes' own settings in configs and checkpoints.
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <set>

#include "core/rng.h"
#include "harness/config.h"
#include "models/block_stack.h"
#include "schemes/scheme.h"
#include "tasks/cue/checkpoint.h"

using namespace pe;

namespace {

// A double scheme with H = 2 heads of width 4 (d_model 8), one layer, every parameter random.
struct Fixture {
  std::unique_ptr<Scheme<double>> scheme;
  ParamLayout layout;
  std::vector<double> params;
  explicit Fixture(const std::string& name, nlohmann::json settings = nlohmann::json::object(),
                   bool bidirectional = false) {
    SchemeConfig c;
    c.name = name, c.n_heads = 2, c.d_head = 4, c.d_model = 8, c.n_layers = 1, c.train_length = 40;
    c.bidirectional = bidirectional;
    c.settings = std::move(settings);
    scheme = make_scheme<double>(c);
    scheme->declare(layout);
    params.resize(layout.total());
    Rng rng(stream_key({kTagCheck, 41}));
    for (auto& p : params) p = rng.normal();
    scheme->prepare(40);
  }
  CMatMap<double> P(const std::string& tensor) const {
    const int id = layout.find(tensor);
    REQUIRE(id >= 0);
    return CParamView<double>{params.data(), &layout}(id);
  }
  // The scheme's score terms for a query at m (head h) and keys at kpos, vectors q and k.
  std::vector<double> scores(int h, int m, std::vector<int> kpos, const std::vector<double>& q,
                             const std::vector<double>& K, std::vector<double>* tables_out = nullptr) const {
    const int span = 40;
    std::vector<double> tables(scheme->tables_size(0, span));
    const CParamView<double> cp{params.data(), &layout};
    if (!tables.empty()) scheme->tables_forward(cp, 0, span, tables.data());
    std::vector<int> keys(kpos.size());
    for (size_t t = 0; t < keys.size(); ++t) keys[t] = int(t);
    AttnRow<double> r;
    r.layer = 0, r.head = h, r.dh = 4, r.qpos = m, r.q = q.data(), r.nk = int(kpos.size()), r.kpos = kpos.data();
    r.keys = {K.data() + h * 4, 8, keys.data(), nullptr, 0};
    r.tables = tables.data(), r.span = span;
    std::vector<double> s(kpos.size(), 0.0);
    scheme->score_forward(cp, r, s.data());
    if (tables_out) *tables_out = tables;
    return s;
  }
};

double dot(const double* a, const double* b, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i) s += a[i] * b[i];
  return s;
}

// The fixture's query (head row, width 4) and two keys as [2, H*dh] rows.
const std::vector<double> kQ = {0.3, -1.1, 0.7, 0.2};
const std::vector<double> kK = {0.5, 0.1, -0.4, 0.9, -0.6, 1.2, 0.3, -0.8, 1.0, -0.2, 0.6, 0.4, 0.2, -0.9, -0.5, 0.7};
constexpr int kM = 10, kBefore = 7, kAfter = 13;  // a key three before the query and one three after
constexpr int kHead = 1;
const double* key_row(int t) { return kK.data() + t * 8 + kHead * 4; }

}  // namespace

TEST_CASE(
    "sign conventions: each relative scheme's term for a key 3 before the query differs from 3 after, as its formula "
    "says") {
  SUBCASE("alibi: -slope_h (m - n)") {
    Fixture f("alibi", {{"alibi_slopes", {0.5, 0.25}}});
    const auto s = f.scores(kHead, kM, {kBefore, kAfter}, kQ, kK);
    CHECK(s[0] == doctest::Approx(-0.25 * 3));
    CHECK(s[1] == doctest::Approx(+0.25 * 3));
  }
  SUBCASE("alibi, encoder form: -slope_h |m - n|, the same on both sides") {
    Fixture f("alibi", {{"alibi_slopes", {0.5, 0.25}}}, true);
    const auto s = f.scores(kHead, kM, {kBefore, kAfter}, kQ, kK);
    CHECK(s[0] == doctest::Approx(-0.25 * 3));
    CHECK(s[1] == doctest::Approx(-0.25 * 3));                          // direction is lost
    CHECK(f.scheme->geometry().kind == PositionGeometry::Kind::Other);  // not read as the causal linear bias
  }
  SUBCASE("t5, encoder form: a later key reads the other half of the buckets") {
    Fixture f("t5", nlohmann::json::object(), true);
    const auto s = f.scores(kHead, kM, {kBefore, kAfter}, kQ, kK);
    const auto beta = f.P("pos.t5_bias");
    CHECK(s[0] == doctest::Approx(beta(3, kHead)));
    CHECK(s[1] == doctest::Approx(beta(16 + 3, kHead)));
    const auto far = f.scores(kHead, 200, {200 - 150, 200 + 150}, kQ, kK);
    CHECK(far[0] == doctest::Approx(beta(15, kHead)));
    CHECK(far[1] == doctest::Approx(beta(31, kHead)));
  }
  SUBCASE("t5: beta[bucket(max(m - n, 0)), h]; ages below 16 are their own bucket") {
    Fixture f("t5");
    const auto s = f.scores(kHead, kM, {kBefore, kAfter}, kQ, kK);
    const auto beta = f.P("pos.t5_bias");
    CHECK(s[0] == doctest::Approx(beta(3, kHead)));
    CHECK(s[1] == doctest::Approx(beta(0, kHead)));  // causal mode: a key after the query counts as age 0
    CHECK(s[0] != s[1]);
    // far ages share log-spaced buckets: 16 + floor(ln(r/16) / ln(128/16) * 16)
    const auto far = f.scores(kHead, 200, {200 - 40, 200 - 150}, kQ, kK);
    CHECK(far[0] == doctest::Approx(beta(16 + int(std::floor(std::log(40.0 / 16) / std::log(8.0) * 16)), kHead)));
    CHECK(far[1] == doctest::Approx(beta(31, kHead)));
  }
  SUBCASE("shaw: <q, RK[clamp(n - m, -K, K) + K]> / sqrt(d); values add RV of the same row") {
    Fixture f("shaw");
    const auto s = f.scores(kHead, kM, {kBefore, kAfter}, kQ, kK);
    const auto RK = f.P("pos.layer0.shaw_rk");
    const int K = 16;
    CHECK(s[0] == doctest::Approx(dot(kQ.data(), RK.row(-3 + K).data(), 4) / 2));
    CHECK(s[1] == doctest::Approx(dot(kQ.data(), RK.row(+3 + K).data(), 4) / 2));
    CHECK(s[0] != doctest::Approx(s[1]));
    // clipping: 20 before shares row 0 with 16 before
    const auto c = f.scores(kHead, 30, {10, 14}, kQ, kK);
    CHECK(c[0] == doctest::Approx(dot(kQ.data(), RK.row(0).data(), 4) / 2));
    CHECK(c[0] == doctest::Approx(c[1]));
    // value side: out += sum_t p_t RV[u_t]
    const auto RV = f.P("pos.layer0.shaw_rv");
    std::vector<int> kpos = {kBefore, kAfter}, keys = {0, 1};
    AttnRow<double> r;
    r.head = kHead, r.dh = 4, r.qpos = kM, r.q = kQ.data(), r.nk = 2, r.kpos = kpos.data();
    r.keys = {kK.data() + 4, 8, keys.data(), nullptr, 0};
    const double p[2] = {0.25, 0.75};
    double out[4] = {0, 0, 0, 0};
    f.scheme->value_forward(CParamView<double>{f.params.data(), &f.layout}, r, p, out);
    for (int c2 = 0; c2 < 4; ++c2) CHECK(out[c2] == doctest::Approx(0.25 * RV(13, c2) + 0.75 * RV(19, c2)));
  }
  SUBCASE("txl: [<q, R_r> + <u, k> + <v, R_r>] / sqrt(d), R_r = rho(r) W_R, r = m - n") {
    Fixture f("txl");
    const auto s = f.scores(kHead, kM, {kBefore, kAfter}, kQ, kK);
    const auto W = f.P("pos.layer0.w_r"), u = f.P("pos.txl_u"), v = f.P("pos.txl_v");
    for (int t = 0; t < 2; ++t) {
      const int r = kM - (t == 0 ? kBefore : kAfter);
      double rho[8], R[4] = {0, 0, 0, 0};
      for (int j = 0; j < 4; ++j) {  // sine first, theta_j = 10000^(-2j/8)
        const double a = r * std::pow(10000.0, -2.0 * j / 8);
        rho[2 * j] = std::sin(a), rho[2 * j + 1] = std::cos(a);
      }
      for (int c = 0; c < 4; ++c)
        for (int i = 0; i < 8; ++i) R[c] += rho[i] * W(i, kHead * 4 + c);
      double want = 0;
      for (int c = 0; c < 4; ++c) want += kQ[c] * R[c] + u(kHead, c) * key_row(t)[c] + v(kHead, c) * R[c];
      CHECK(s[t] == doctest::Approx(want / 2));
    }
    CHECK(s[0] != doctest::Approx(s[1]));
  }
  SUBCASE("deberta: [<q, Kr[delta(m,n)]> + <k, Qr[delta(n,m)]>] / sqrt(3d), delta(m,n) = clamp(m - n + K, 0, 2K-1)") {
    Fixture f("deberta");
    const auto s = f.scores(kHead, kM, {kBefore, kAfter}, kQ, kK);
    const auto Pt = f.P("pos.deberta_p"), Wk = f.P("pos.layer0.w_kr"), Wq = f.P("pos.layer0.w_qr");
    const Eigen::MatrixXd Kr = Pt * Wk, Qr = Pt * Wq;
    const int K = 16;
    for (int t = 0; t < 2; ++t) {
      const int n = t == 0 ? kBefore : kAfter;
      const int d_mn = std::clamp(kM - n + K, 0, 2 * K - 1), d_nm = std::clamp(n - kM + K, 0, 2 * K - 1);
      double want = 0;
      for (int c = 0; c < 4; ++c) want += kQ[c] * Kr(d_mn, kHead * 4 + c) + key_row(t)[c] * Qr(d_nm, kHead * 4 + c);
      CHECK(s[t] == doctest::Approx(want / std::sqrt(12.0)));
    }
    // the reversed index of the third term: 3 before reads Qr[K - 3], 3 after reads Qr[K + 3]
    CHECK(s[0] != doctest::Approx(s[1]));
    CHECK(f.scheme->content_scale() == doctest::Approx(1 / std::sqrt(3.0)));
  }
  SUBCASE("tupe: <p_m U_Q, p_n U_K> / sqrt(2d), absolute rows") {
    Fixture f("tupe");
    const auto s = f.scores(kHead, kM, {kBefore, kAfter}, kQ, kK);
    const Eigen::MatrixXd PQ = f.P("pos.tupe_p") * f.P("pos.layer0.u_q"),
                          PK = f.P("pos.tupe_p") * f.P("pos.layer0.u_k");
    for (int t = 0; t < 2; ++t) {
      const int n = t == 0 ? kBefore : kAfter;
      double want = 0;
      for (int c = 0; c < 4; ++c) want += PQ(kM, kHead * 4 + c) * PK(n, kHead * 4 + c);
      CHECK(s[t] == doctest::Approx(want / std::sqrt(8.0)));
    }
    CHECK(f.scheme->content_scale() == doctest::Approx(1 / std::sqrt(2.0)));
    // TUPE-R adds the bucket bias
    Fixture r("tupe", {{"tupe_relative", true}});
    const auto sr = r.scores(kHead, kM, {kBefore}, kQ, kK);
    const Eigen::MatrixXd PQr = r.P("pos.tupe_p") * r.P("pos.layer0.u_q"),
                          PKr = r.P("pos.tupe_p") * r.P("pos.layer0.u_k");
    double want = 0;
    for (int c = 0; c < 4; ++c) want += PQr(kM, kHead * 4 + c) * PKr(kBefore, kHead * 4 + c);
    CHECK(sr[0] == doctest::Approx(want / std::sqrt(8.0) + r.P("pos.t5_bias")(3, kHead)));
  }
}

namespace {
// Logits of a small char LM (2 layers, 2 heads) with every parameter random, at positions p0...
std::vector<double> charlm_logits(const std::string& scheme, int p0) {
  BlockStackConfig cfg;
  cfg.vocab = 7, cfg.d_model = 8, cfg.n_heads = 2, cfg.n_layers = 2;
  cfg.scheme.name = scheme;
  cfg.scheme.train_length = 512;
  BlockStack<double> m(cfg);
  m.init(3);
  Rng rng(stream_key({kTagCheck, 43}));
  for (auto& p : m.params()) p = 0.5 * rng.normal();  // t5 and txl start at 0: make every term count
  const int B = 2, T = 24;
  std::vector<int> x(B * T), y(B * T);
  for (auto& v : x) v = rng.below(7);
  for (auto& v : y) v = rng.below(7);
  m.prepare(p0 + T);
  BlockStackCache<double> c;
  m.forward(x.data(), y.data(), B, T, c, p0);
  return c.logits;
}
double largest_gap(const std::vector<double>& a, const std::vector<double>& b) {
  double m = 0;
  for (size_t i = 0; i < a.size(); ++i) m = std::max(m, std::abs(a[i] - b[i]));
  return m;
}
}  // namespace

TEST_CASE("joint shift: relative schemes leave a char LM unchanged when every position moves, absolute ones do not") {
  const std::set<std::string> relative = {"none",    "rope",   "alibi",         "t5",     "shaw", "txl",
                                          "deberta", "kerple", "alibi-learned", "hybrid", "xpos", "cope"};
  const std::set<std::string> absolute = {"sinusoidal", "learned", "tupe"};
  // relative while every query is inside a threshold, absolute past it: fire's L = 128.5 exp(l) (a quarter of
  // the training length 512, plus 1/2, times the random exp(l)), past position 60 in both layers with this seed:
  // shifts 1 and 37 keep every query inside it, 300 does not (a query past L divides by psi of its own position)
  const std::set<std::string> threshold = {"fire"};
  for (auto& info : scheme_list()) {
    INFO(info.name, ": classify a new scheme here (relative, absolute, or relative below a threshold)");
    REQUIRE((relative.count(info.name) + absolute.count(info.name) + threshold.count(info.name)) == 1);
    const auto base = charlm_logits(info.name, 0);
    for (int shift : {1, 37, 300}) {
      const double d = largest_gap(base, charlm_logits(info.name, shift));
      INFO("shift ", shift, " max logit change ", d);
      if (relative.count(info.name) || (threshold.count(info.name) && shift < 300))
        CHECK(d < 1e-9);
      else
        CHECK(d > 1e-3);
    }
  }
}

TEST_CASE("hybrid: layer 1 sees only keys younger than its window, layer 2 every earlier key, unrotated") {
  BlockStackConfig cfg;
  cfg.vocab = 7, cfg.d_model = 8, cfg.n_heads = 2, cfg.n_layers = 2;
  cfg.scheme.name = "hybrid";
  cfg.scheme.settings = {{"hybrid_layers", {"rope:5", "none"}}};
  BlockStack<double> m(cfg);
  m.init(1);
  const int B = 1, T = 12;
  std::vector<int> x(T), y(T);
  for (int t = 0; t < T; ++t) x[t] = t % 7, y[t] = (t + 1) % 7;
  m.prepare(T);
  BlockStackCache<double> c;
  std::vector<double> grad(m.layout().total(), 0.0);
  m.forward_backward(x.data(), y.data(), B, T, grad.data(), c);
  int wrong = 0;
  for (int h = 0; h < 2; ++h)
    for (int i = 0; i < T; ++i)
      for (int j = 0; j < T; ++j) {
        const double p0 = c.probs[0][(size_t(h) * T + i) * T + j], p1 = c.probs[1][(size_t(h) * T + i) * T + j];
        wrong += (j <= i && i - j < 5) ? !(p0 > 0) : !(p0 == 0);
        wrong += (j <= i) ? !(p1 > 0) : !(p1 == 0);
      }
  CHECK(wrong == 0);
  // layer 2's queries are h W_Q exactly (a none layer rotates nothing)
  const auto W = CParamView<double>{m.params().data(), &m.layout()}(m.layout().find("block1.w_qkv"));
  const Eigen::MatrixXd q = CMatMap<double>(c.h_in[1].data(), T, 8) * W.leftCols(8);
  CHECK((q - CMatMap<double>(c.Q[1].data(), T, 8)).cwiseAbs().maxCoeff() < 1e-12);
  // a layer list of the wrong length, a bad window or a scheme acting on the embedding is refused
  for (auto bad : {nlohmann::json{"rope:64"}, nlohmann::json{"rope:x", "none"}, nlohmann::json{"sinusoidal", "none"}}) {
    BlockStackConfig b = cfg;
    b.scheme.settings = {{"hybrid_layers", bad}};
    CHECK_THROWS_WITH_AS(BlockStack<double>{b}, doctest::Contains("hybrid_layers"), ConfigError);
  }
}

TEST_CASE("hybrid: a layer's tables are named pos.layer<l>.*, like every other per-layer table") {
  BlockStackConfig cfg;
  cfg.vocab = 7, cfg.d_model = 8, cfg.n_heads = 2, cfg.n_layers = 3;
  cfg.scheme.name = "hybrid";
  cfg.scheme.settings = {{"hybrid_layers", {"rope:5", "t5", "shaw"}}};
  BlockStack<double> m(cfg);
  std::vector<std::string> pos;
  for (auto& t : m.layout().tensors())
    if (t.name.rfind("block", 0) != 0 && t.name != "tok_emb") pos.push_back(t.name);
  CHECK(pos == std::vector<std::string>{"pos.layer1.t5_bias", "pos.layer2.shaw_rk", "pos.layer2.shaw_rv"});
}

TEST_CASE("a scheme's own settings: defaults, domains, keys no scheme uses, checkpoint round trip") {
  nlohmann::json cfg = default_config();
  CHECK(!cfg.contains("shaw_clip"));  // joins the config with its scheme
  cfg["schemes"] = {"shaw", "rope"};
  complete_config(cfg);
  CHECK(cfg.at("shaw_clip") == 16);
  // a setting of a scheme the experiment does not train is refused, naming the key
  nlohmann::json c2 = default_config();
  c2["schemes"] = {"rope"};
  c2["shaw_clip"] = 8;
  CHECK_THROWS_WITH_AS(complete_config(c2), doctest::Contains("shaw_clip"), ConfigError);
  // out of its domain: refused before any training, naming the key
  cfg["shaw_clip"] = 0;
  CHECK_THROWS_WITH_AS(ExperimentConfig::from_json(cfg), doctest::Contains("shaw_clip"), ConfigError);
  nlohmann::json c3 = default_config();
  c3["schemes"] = {"t5"};
  complete_config(c3);
  c3["t5_buckets"] = 7;
  CHECK_THROWS_WITH_AS(ExperimentConfig::from_json(c3), doctest::Contains("t5_buckets"), ConfigError);
  // a run's config carries its own scheme's settings only
  const auto run = run_config(cfg, "rope", 0);
  CHECK(!run.contains("shaw_clip"));
  // checkpoint section: declared settings written, read back; a missing one takes its default
  SchemeConfig sc;
  sc.name = "t5";
  sc.settings = {{"t5_buckets", 16}};
  const auto j = scheme_config_to_json(sc);
  CHECK(j.at("t5_buckets") == 16);
  CHECK(j.at("t5_max_distance") == 128);
  auto back = scheme_config_from_json(j);
  CHECK(back.settings.at("t5_buckets") == 16);
  auto trimmed = j;
  trimmed.erase("t5_max_distance");
  auto s2 = scheme_config_from_json(trimmed);
  fill_scheme_settings(s2);
  CHECK(s2.settings.at("t5_max_distance") == 128);
  // the published five declare their settings like the others: a section holds its own only
  SchemeConfig rope;
  rope.name = "rope";
  const auto rj = scheme_config_to_json(rope);
  CHECK(rj.size() == 6);
  CHECK(rj.at("base") == 10000.0);
  CHECK(rj.at("rotary_fraction") == 1.0);
  CHECK(!rj.contains("learned_rows"));
  SchemeConfig learned;
  learned.name = "learned";
  learned.train_length = 24;  // learned_rows 0 is recorded as the rows it resolved to
  CHECK(scheme_config_to_json(learned).at("learned_rows") == 24);
  learned.train_length = 0;
  CHECK_THROWS_WITH_AS(scheme_config_to_json(learned), doctest::Contains("learned_rows"), ConfigError);
  // out of their domains
  for (auto [key, bad] : std::vector<std::pair<std::string, nlohmann::json>>{
           {"rotary_fraction", 7.0}, {"rotary_fraction", -0.1}, {"base", 0.0}, {"base", 1.0}}) {
    SchemeConfig r;
    r.name = "rope";
    r.settings[key] = bad;
    CHECK_THROWS_WITH_AS(make_scheme<float>(r), doctest::Contains(key.c_str()), ConfigError);
  }
  SchemeConfig a;
  a.name = "alibi";
  a.settings["alibi_slopes"] = {0.5, 0.25};
  CHECK_THROWS_WITH_AS(make_scheme<float>(a), doctest::Contains("slopes"), UsageError);
}

// Checkpoints written before the schemes declared their own settings carry the five published
// schemes' settings in every scheme's section (a copy of one is kept in tests/data); they still
// load, each scheme reading only its own and ignoring the rest.
TEST_CASE("checkpoints from before the schemes owned their settings still load") {
  const auto old = load_checkpoint("tests/data/legacy-rope-checkpoint.json");
  CHECK(old.model->scheme().name() == "rope");
  const auto& st = old.model->config().scheme.settings;
  CHECK(st.at("base") == 10000.0);
  CHECK(st.at("rotary_fraction") == 1.0);
  CHECK(!st.contains("learned_rows"));
  CHECK(!st.contains("alibi_slopes"));
  // the weights the file holds, tensor by tensor (it was copied from a committed run that later
  // training changes have since replaced, so it is compared with itself, not with today's run)
  std::ifstream in("tests/data/legacy-rope-checkpoint.json");
  const auto file = nlohmann::json::parse(in);
  std::vector<float> stored;
  for (auto& t : file.at("params"))
    for (auto& v : t.at("data")) stored.push_back(v.get<float>());
  CHECK(old.model->params() == stored);
  for (auto s : {"none", "sinusoidal", "learned", "rope", "alibi"}) {
    const auto cp = load_checkpoint(std::string("results/tournament/runs/cue/") + s + "/seed0/checkpoint.json");
    CHECK(cp.model->scheme().name() == s);
  }
}
