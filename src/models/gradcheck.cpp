#include "models/gradcheck.h"

#include <algorithm>

#include <fmt/format.h>

#include <cmath>
#include <functional>
#include <optional>

#include "core/rng.h"
#include "models/attention.h"
#include "models/block_stack.h"
#include "models/coordinate_cases.h"

namespace pe {

// Compares analytic gradient `ana` of f at x[0..n) with central differences.
GradCheckRow compare_gradient(const std::string& what, const std::string& tensor, double* x, const double* ana,
                              size_t n, const std::function<double()>& f) {
  GradCheckRow row{what, tensor, n, 0, 0, true, ""};
  for (size_t i = 0; i < n; ++i) {
    const double x0 = x[i], h = 1e-5 * std::max(1.0, std::abs(x0));
    x[i] = x0 + h;
    const double fp = f();
    x[i] = x0 - h;
    const double fm = f();
    x[i] = x0;
    const double num = (fp - fm) / (2 * h);
    const double err = std::abs(num - ana[i]);
    const double mag = std::max(std::abs(num), std::abs(ana[i]));
    const double rel = mag > 0 ? err / mag : 0.0;
    row.max_abs = std::max(row.max_abs, err);
    if (mag > 1e-7) row.max_rel = std::max(row.max_rel, rel);
    if (err > kGradAbsTol && rel > kGradRelTol) row.ok = false;
  }
  return row;
}

// Every tensor of a model's layout: analytic `grad` against central differences of `loss` in `params`.
std::vector<GradCheckRow> compare_all(const std::string& what, const ParamLayout& layout, std::vector<double>& params,
                                      const std::vector<double>& grad, const std::function<double()>& loss) {
  std::vector<GradCheckRow> rows;
  for (auto& t : layout.tensors())
    rows.push_back(compare_gradient(what, t.name, params.data() + t.offset, grad.data() + t.offset, t.size(), loss));
  return rows;
}

namespace {
// The analytic gradient of an initialised, prepared model at positions p0.. (with the segment memory
// `mem`, or none) against central differences of its loss, every tensor; rows named `name`.
std::vector<GradCheckRow> check_stack(const std::string& name, BlockStack<double>& model, const std::vector<int>& x,
                                      const std::vector<int>& y, int B, int T, int p0, const SegmentMemory<double>* mem,
                                      const Visibility& vis = Visibility{}, const TokenCoordinates* at = nullptr) {
  BlockStackCache<double> cache;
  std::vector<double> grad(model.layout().total(), 0.0);
  model.forward_backward(x.data(), y.data(), B, T, grad.data(), cache, p0, vis, 0, mem, at);
  auto loss = [&] {
    BlockStackCache<double> c;
    return model.forward(x.data(), y.data(), B, T, c, p0, vis, mem, at);
  };
  return compare_all(name, model.layout(), model.params(), grad, loss);
}
}  // namespace

std::vector<GradCheckRow> gradcheck_block_stack(const std::string& what, const BlockStackConfig& cfg, uint64_t seed,
                                                const std::vector<int>& x, const std::vector<int>& y, int B, int T,
                                                int p0) {
  BlockStack<double> model(cfg);
  model.init(seed);
  model.prepare(p0 + T);
  return check_stack(what + "/" + cfg.scheme.name, model, x, y, B, T, p0, nullptr);
}

std::vector<GradCheckRow> gradcheck_block_stack_modes(const std::string& what, BlockStackConfig cfg, uint64_t seed) {
  std::vector<GradCheckRow> rows;
  for (const CoordinateCase& c : coordinate_cases(3)) {
    if (c.Tq != c.Tk) continue;  // a decode step is the cached decoder's (models/block_stack_decoder.h)
    cfg.scheme.bidirectional = c.vis.sees_later();
    BlockStack<double> model(cfg);
    model.init(seed);
    model.prepare(c.max_position() + 1);
    Rng rng(stream_key({kTagCheck, 0xC0, seed}));
    std::vector<int> x(size_t(c.B) * c.Tq), y(x.size());
    for (auto& v : x) v = rng.below(cfg.vocab);
    for (auto& v : y) v = rng.below(cfg.vocab);
    const TokenCoordinates at{c.qpos.data(), c.qseg.empty() ? nullptr : c.qseg.data()};
    for (auto& r :
         check_stack(what + " " + c.mode + "/" + cfg.scheme.name, model, x, y, c.B, c.Tq, 0, nullptr, c.vis, &at)) {
      r.mode = c.mode;
      rows.push_back(r);
    }
  }
  return rows;
}

std::vector<GradCheckRow> gradcheck_block_stack_memory(const std::string& what, const BlockStackConfig& cfg,
                                                       uint64_t seed, const std::vector<int>& x,
                                                       const std::vector<int>& y, int B, int T, int M) {
  BlockStack<double> model(cfg);
  if (model.scheme().acts_on_embedding()) return {};  // its positions are absolute: no segment memory
  model.init(seed);
  model.prepare(M + T);
  // a memory of states of the size the model's own states have
  Rng rng(stream_key({kTagCheck, 0x4E3, seed}));
  std::vector<std::vector<double>> rows(cfg.n_layers, std::vector<double>(size_t(B) * M * cfg.d_model));
  SegmentMemory<double> mem{M, {}};
  for (auto& r : rows) {
    for (auto& v : r) v = cfg.embed_init_std * rng.normal();
    mem.h.push_back(r.data());
  }
  return check_stack(what + " memory/" + cfg.scheme.name, model, x, y, B, T, M, &mem);
}

std::vector<GradCheckRow> gradcheck_block_stack_depths(const std::string& what, BlockStackConfig cfg, uint64_t seed,
                                                       const std::vector<int>& x, const std::vector<int>& y, int B,
                                                       int T, int p0) {
  std::vector<GradCheckRow> rows;
  const SchemeInfo& info = scheme_info(cfg.scheme.name);
  for (int depth : {2, 4, 6}) {
    if (depth < info.min_layers) continue;
    cfg.n_layers = depth;
    cfg.scheme.settings = depth > 2 && info.check_settings ? info.check_settings(depth) : nlohmann::json::object();
    auto more =
        gradcheck_block_stack(depth == 2 ? what : fmt::format("{} L{}", what, depth), cfg, seed, x, y, B, T, p0);
    rows.insert(rows.end(), more.begin(), more.end());
  }
  return rows;
}

namespace {
// One attention configuration: a batch of coordinates (CoordinateCase), heads H of width dh, a layer.
std::vector<GradCheckRow> gradcheck_attention_case(const std::string& scheme, const std::string& tag,
                                                   const CoordinateCase& c, int H, int dh, int layer,
                                                   const std::optional<MapSpec>& map) {
  const AttnShape sh{c.B, c.Tq, c.Tk, H, dh, layer};
  SchemeConfig sc;
  sc.name = scheme;
  sc.n_heads = sh.H;
  sc.d_head = sh.dh;
  sc.d_model = sh.H * sh.dh;
  sc.n_layers = std::max(sh.layer + 1, scheme_info(scheme).min_layers);
  sc.train_length = 80;
  sc.bidirectional = c.vis.sees_later();
  auto sch = make_scheme<double>(sc);
  if (map) sch->read_with(*map, 20, 80);  // a map read at kappa 4
  ParamLayout layout;
  sch->declare(layout);
  std::vector<double> params(layout.total()), grad(layout.total(), 0.0);
  Rng rng(stream_key({kTagCheck, 1}));
  sch->init(ParamView<double>{params.data(), &layout}, rng);
  const int W = sh.H * sh.dh;
  sch->prepare(c.max_position() + 1);
  Coordinates at = c.coordinates();
  at.vis = c.vis.with_window(sch->window(sh.layer));
  // the scheme's derived tables for position differences below span
  const int span = c.max_position() - c.min_position() + 1;
  std::vector<double> tables(sch->tables_size(sh.layer, span)), dtables(tables.size(), 0.0);
  auto randv = [&](size_t n) {
    std::vector<double> v(n);
    for (auto& x : v) x = rng.normal();
    return v;
  };
  std::vector<double> Q = randv(size_t(sh.B) * sh.Tq * W), K = randv(size_t(sh.B) * sh.Tk * W),
                      V = randv(size_t(sh.B) * sh.Tk * W), R = randv(size_t(sh.B) * sh.Tq * W);
  std::vector<int> qrow(sh.B * sh.Tq), krow(sh.B * sh.Tk);
  for (int b = 0; b < sh.B; ++b) {
    for (int i = 0; i < sh.Tq; ++i) qrow[b * sh.Tq + i] = c.q_at(b, i);
    for (int j = 0; j < sh.Tk; ++j) krow[b * sh.Tk + j] = c.k_at(b, j);
  }
  const CParamView<double> P{params.data(), &layout};
  std::vector<double> probs(size_t(sh.B) * sh.H * sh.Tq * sh.Tk), out(Q.size());
  // loss = <R, attention(qk(Q), qk(K), V)>
  auto loss = [&] {
    std::vector<double> q = Q, k = K;
    if (sch->acts_on_qk()) {
      sch->qk_forward(sh.layer, Qk::Query, qrow.data(), sh.B * sh.Tq, q.data());
      sch->qk_forward(sh.layer, Qk::Key, krow.data(), sh.B * sh.Tk, k.data());
    }
    if (!tables.empty()) sch->tables_forward(P, sh.layer, span, tables.data());
    attention_forward(sh, q.data(), k.data(), V.data(), at, *sch, P, probs.data(), out.data(), nullptr,
                      AttnTables<double>{tables.data(), nullptr, span});
    double l = 0;
    for (size_t i = 0; i < out.size(); ++i) l += R[i] * out[i];
    return l;
  };
  // analytic
  std::vector<double> q = Q, k = K;
  if (sch->acts_on_qk()) {
    sch->qk_forward(sh.layer, Qk::Query, qrow.data(), sh.B * sh.Tq, q.data());
    sch->qk_forward(sh.layer, Qk::Key, krow.data(), sh.B * sh.Tk, k.data());
  }
  if (!tables.empty()) sch->tables_forward(P, sh.layer, span, tables.data());
  attention_forward(sh, q.data(), k.data(), V.data(), at, *sch, P, probs.data(), out.data(), nullptr,
                    AttnTables<double>{tables.data(), nullptr, span});
  std::vector<double> dQ(Q.size(), 0.0), dK(K.size(), 0.0), dV(V.size(), 0.0);
  const ParamView<double> G{grad.data(), &layout};
  attention_backward(sh, q.data(), k.data(), V.data(), at, *sch, P, G, probs.data(), R.data(), dQ.data(), dK.data(),
                     dV.data(), nullptr, AttnTables<double>{tables.data(), dtables.data(), span});
  if (!dtables.empty()) sch->tables_backward(P, G, sh.layer, span, tables.data(), dtables.data());
  if (sch->acts_on_qk()) {
    sch->qk_backward(sh.layer, Qk::Query, qrow.data(), sh.B * sh.Tq, dQ.data());
    sch->qk_backward(sh.layer, Qk::Key, krow.data(), sh.B * sh.Tk, dK.data());
  }
  const std::string what = "attention/" + scheme + tag + (sh.layer > 0 ? "/layer" + std::to_string(sh.layer) : "");
  std::vector<GradCheckRow> rows;
  rows.push_back(compare_gradient(what, "Q", Q.data(), dQ.data(), Q.size(), loss));
  rows.push_back(compare_gradient(what, "K", K.data(), dK.data(), K.size(), loss));
  rows.push_back(compare_gradient(what, "V", V.data(), dV.data(), V.size(), loss));
  // The parameters of score and value terms are checked here too.
  if (sch->acts_on_scores() || sch->acts_on_values())
    for (auto& r : compare_all(what, layout, params, grad, loss)) rows.push_back(r);
  for (auto& r : rows) r.mode = c.mode;
  return rows;
}

// A batch whose sequences share their positions (Coordinates::shared).
CoordinateCase shared_case(std::vector<int> qpos, std::vector<int> kpos, int B, Visibility vis) {
  CoordinateCase c;
  c.B = B, c.Tq = int(qpos.size()), c.Tk = int(kpos.size()), c.qpos = std::move(qpos), c.kpos = std::move(kpos);
  c.vis = vis, c.shared = true;
  return c;
}
}  // namespace

std::vector<GradCheckRow> gradcheck_attention(const std::string& scheme) {
  std::vector<GradCheckRow> rows;
  // the trained plan; for a scheme with frequencies also a map with an attention factor (the code
  // YaRN) and the distance warp, whose score hook has its own backward; for every scheme logn
  std::vector<std::optional<MapSpec>> maps = {std::nullopt};
  {
    SchemeConfig sc;
    sc.name = scheme;
    sc.n_layers = scheme_info(scheme).min_layers;
    sc.train_length = 80;
    if (make_scheme<double>(sc)->accepts_frequency_plan())
      maps.insert(maps.end(), {parse_map("yarn-hf"), parse_map("compress:w=2:s=1.5")});
  }
  // log-length scaling, which every scheme reads: read at 80 after training at 20, so the rows that
  // see more than 20 keys (the band's) are scaled, and their backward undoes it
  maps.push_back(parse_map("logn"));
  for (const std::optional<MapSpec>& map : maps) {
    const std::string tag = map ? "+" + map->map->name : std::string();  // the entry, without its parameters
    // every layer of a scheme that differs by layer
    for (int layer = 0; layer < scheme_info(scheme).min_layers; ++layer) {
      auto add = [&](const std::string& mode, const CoordinateCase& c, int H) {
        for (auto& r : gradcheck_attention_case(scheme, tag + mode, c, H, 4, layer, map)) rows.push_back(r);
      };
      // queries at 17..21, keys at 15..20, shared by 2 sequences: explicit positions, not indices;
      // causal hides some keys
      add("", shared_case({17, 18, 19, 20, 21}, {15, 16, 17, 18, 19, 20}, 2, Visibility{}), 3);
      // no causal mask: keys after the query too (negative ages; relative schemes' other side)
      add("/bidir", shared_case({10, 11, 12, 13}, {8, 9, 10, 11, 12, 13, 14, 15}, 1, Visibility::bidirectional()), 2);
      // 70 queries and keys at 5..74 under a causal band of 40: several query blocks, key spans not at 0
      std::vector<int> pos(70);
      for (int i = 0; i < 70; ++i) pos[i] = 5 + i;
      add("/band", shared_case(pos, pos, 1, Visibility{true, 40}), 2);
      // every batch mode (models/coordinate_cases.h), positions per sequence
      for (const CoordinateCase& c : coordinate_cases(5)) add("/" + c.mode, c, 2);
    }
  }
  return rows;
}

}  // namespace pe
