#include "models/cue_head.h"

#include "models/cross_entropy.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/math.h"
#include "core/rng.h"

namespace pe {

nlohmann::json CueModelConfig::to_json() const {
  nlohmann::json j = {{"model", "cue_head"},
                      {"alphabet", task.alphabet},
                      {"mark_prob", task.mark_prob},
                      {"vocab", task.vocab()},
                      {"classes", task.alphabet},
                      {"d_model", d_model},
                      {"embed_init_std", embed_init_std}};
  if (!task.query_token) j["query_token"] = false, j.erase("mark_prob");
  if (!task.rule.empty()) j["rule"] = task.rule;
  return j;
}

template <class S>
CueHead<S>::CueHead(const CueModelConfig& cfg) : cfg_(cfg) {
  cfg_.scheme.d_model = cfg_.d_model;
  cfg_.scheme.d_head = cfg_.d_model;
  cfg_.scheme.n_heads = 1;
  cfg_.scheme.init_std = cfg_.embed_init_std;
  scheme_ = make_scheme<S>(cfg_.scheme);
  cfg_.scheme = scheme_->config();  // with its settings filled in
  declare_into(layout_, *scheme_);
  params_.assign(layout_.total(), S(0));
}

template <class S>
void CueHead<S>::declare_into(ParamLayout& layout, Scheme<S>& scheme) {
  const int d = cfg_.d_model;
  emb_ = layout.add("tok_emb", cfg_.task.vocab(), d);
  wqkv_ = layout.add("w_qkv", d, 3 * d);
  wout_ = layout.add("w_out", d, cfg_.task.alphabet);
  scheme.declare(layout);
}

template <class S>
void CueHead<S>::init(uint64_t seed) {
  Rng rng(stream_key({kTagInit, seed}));
  auto P = view(params_.data());
  auto E = P(emb_);
  for (Eigen::Index i = 0; i < E.size(); ++i) E.data()[i] = S(cfg_.embed_init_std * rng.normal());
  // Linear maps: U(-1/sqrt(fan_in), 1/sqrt(fan_in)), as PyTorch's nn.Linear default.
  const double bound = 1.0 / std::sqrt(double(cfg_.d_model));
  for (int id : {wqkv_, wout_}) {
    auto Wm = P(id);
    for (Eigen::Index i = 0; i < Wm.size(); ++i) Wm.data()[i] = S(bound * (2.0 * rng.uniform() - 1.0));
  }
  scheme_->init(P, rng);
}

template <class S>
void CueHead<S>::swap_scheme(std::unique_ptr<Scheme<S>> scheme) {
  ParamLayout layout;
  declare_into(layout, *scheme);
  if (!same_tensors(layout, layout_)) throw Error("swap_scheme: the new scheme declares other parameters");
  scheme_ = std::move(scheme);
}

namespace {
// The value columns [2d, 3d) of a [rows, 3d] projected table (ET, PT, their gradients).
template <class S>
Eigen::Map<Mat<S>, 0, Eigen::OuterStride<>> value_columns(S* table, int rows, int d) {
  return {table + 2 * d, rows, d, Eigen::OuterStride<>(3 * d)};
}
template <class S>
Eigen::Map<const Mat<S>, 0, Eigen::OuterStride<>> value_columns(const S* table, int rows, int d) {
  return {table + 2 * d, rows, d, Eigen::OuterStride<>(3 * d)};
}

// Elementwise over n entries, for rows that do not overlap (restrict: the loops vectorise; each
// entry's bits are a scalar loop's).
template <class S>
inline void add_to(S* __restrict y, const S* __restrict x, int n) {
  for (int c = 0; c < n; ++c) y[c] += x[c];
}
template <class S>
inline void sum_of(S* __restrict y, const S* __restrict a, const S* __restrict b, int n) {
  for (int c = 0; c < n; ++c) y[c] = a[c] + b[c];
}
template <class S>
inline void plus_zero(S* __restrict y, const S* __restrict a, int n) {  // + 0: a -0 entry becomes +0
  for (int c = 0; c < n; ++c) y[c] = a[c] + S(0);
}
template <class S>
using RowMat = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

template <class S>
void resize(std::vector<S>& v, size_t n) {
  v.resize(n);
}
template <class S>
void zero(std::vector<S>& v, size_t n) {
  v.assign(n, S(0));
}
}  // namespace

template <class S>
void CueHead<S>::prepare_tables(int T, int p0, bool every_position, CueTables<S>& tab, bool score_table) const {
  const int d = cfg_.d_model, d3 = 3 * d, V = cfg_.task.vocab();
  const int Tq = every_position ? T : 1, first_q = T - Tq;  // query row i reads at sequence index first_q + i
  const auto P = cview();
  const bool emb = scheme_->acts_on_embedding();
  tab.T = T, tab.p0 = p0, tab.every_position = every_position;
  // ET = E W_qkv: [V, 3d]
  resize(tab.ET, size_t(V) * d3);
  MatMap<S>(tab.ET.data(), V, d3).noalias() = P(emb_) * P(wqkv_);
  // positions are explicit: keys at p0..p0+T-1, the queries at p0+first_q..p0+T-1
  tab.kpos.resize(T);
  for (int t = 0; t < T; ++t) tab.kpos[t] = p0 + t;
  tab.qpos.resize(Tq);
  for (int i = 0; i < Tq; ++i) tab.qpos[i] = p0 + first_q + i;
  // PS = positional state [T, d]; PT = PS W_qkv [T, 3d]
  if (emb) {
    zero(tab.PS, size_t(T) * d);
    scheme_->embed_forward(P, tab.kpos.data(), T, tab.PS.data());
    resize(tab.PT, size_t(T) * d3);
    MatMap<S>(tab.PT.data(), T, d3).noalias() = CMatMap<S>(tab.PS.data(), T, d) * P(wqkv_);
  }
  // A key and a value depend only on (position, token): row t*V + x of the tables
  //   KT = qk_t(ET[x, d:2d] (+ PT[t, d:2d])), VT = ET[x, 2d:3d] (+ PT[t, 2d:3d]): [T*V, d]
  // so the scheme's Q/K transform runs on T*V rows, and attention reads rows through kv_index.
  resize(tab.KT, size_t(T) * V * d);
  resize(tab.VT, size_t(T) * V * d);
  tab.kt_pos.resize(size_t(T) * V);
  for (int t = 0; t < T; ++t) {
    const S* pt = emb ? &tab.PT[size_t(t) * d3] : nullptr;
    for (int x = 0; x < V; ++x) {
      const size_t r = size_t(t) * V + x;
      const S* et = &tab.ET[size_t(x) * d3];
      S *kt = &tab.KT[r * d], *vt = &tab.VT[r * d];
      if (pt) {
        sum_of(kt, et + d, pt + d, d);
        sum_of(vt, et + 2 * d, pt + 2 * d, d);
      } else {  // + 0 as with a zero positional row (a -0 entry becomes +0)
        plus_zero(kt, et + d, d);
        plus_zero(vt, et + 2 * d, d);
      }
      tab.kt_pos[r] = p0 + t;
    }
  }
  if (scheme_->acts_on_qk()) scheme_->qk_forward(Qk::Key, tab.kt_pos.data(), T * V, tab.KT.data());
  tab.tables.resize(scheme_->tables_size(0, T));
  if (!tab.tables.empty()) scheme_->tables_forward(P, 0, T, tab.tables.data());
  // The score table, when every query is the query token at p0 + T - 1: V copies of its query row
  //   q = qk(ET[query, 0:d] (+ PT[T-1, 0:d])) scored against the T keys of each token x, then
  //   ST[t*V + x] = score of key row t*V + x (-infinity where the query cannot see position t)
  tab.lookup_token = -1;
  if (!score_table || every_position || !cfg_.task.query_token || scheme_->acts_on_values() ||
      scheme_->contextual_scores())
    return;
  tab.lookup_token = cfg_.task.query_token_id();
  tab.QV.resize(size_t(V) * d);
  const S* et = &tab.ET[size_t(tab.lookup_token) * d3];
  for (int c = 0; c < d; ++c) tab.QV[c] = et[c] + (emb ? tab.PT[size_t(T - 1) * d3 + c] : S(0));
  if (scheme_->acts_on_qk()) scheme_->qk_forward(Qk::Query, tab.qpos.data(), 1, tab.QV.data());
  for (int x = 1; x < V; ++x) std::copy_n(tab.QV.begin(), d, tab.QV.begin() + size_t(x) * d);
  tab.table_index.resize(size_t(V) * T);
  for (int x = 0; x < V; ++x)
    for (int t = 0; t < T; ++t) tab.table_index[size_t(x) * T + t] = t * V + x;
  std::vector<S> by_token(size_t(V) * T);  // [V, T]
  attention_scores(AttnShape{V, 1, T, 1, d}, tab.QV.data(), tab.KT.data(),
                   Coordinates{tab.qpos.data(), tab.kpos.data(), visibility()}, *scheme_, P, by_token.data(),
                   tab.table_index.data(), AttnTables<S>{tab.tables.data(), nullptr, T});
  tab.ST.resize(size_t(T) * V);
  for (int x = 0; x < V; ++x)
    for (int t = 0; t < T; ++t) tab.ST[size_t(t) * V + x] = by_token[size_t(x) * T + t];
  // VW = VT W_out: [T*V, C], by linearity from the token and position tables' value columns:
  //   VW[t*V + x] = EW[x] + PW[t], EW = ET[:, 2d:3d] W_out [V, C], PW = PT[:, 2d:3d] W_out [T, C]
  const int C = cfg_.task.alphabet;
  const Mat<S> EW = value_columns(tab.ET.data(), V, d).lazyProduct(P(wout_));
  Mat<S> PW;
  if (emb) PW = value_columns(tab.PT.data(), T, d).lazyProduct(P(wout_));
  const RowMat<S> EWr = EW, PWr = PW;  // the same values, a row's classes side by side
  resize(tab.VW, size_t(T) * V * C);
  for (int t = 0; t < T; ++t)
    for (int x = 0; x < V; ++x) {
      S* vw = &tab.VW[(size_t(t) * V + x) * C];
      if (emb)
        sum_of(vw, EWr.data() + size_t(x) * C, PWr.data() + size_t(t) * C, C);
      else
        plus_zero(vw, EWr.data() + size_t(x) * C, C);
    }
}

template <class S>
const CueTables<S>& CueHead<S>::prepare_attention(const int* tokens, int B, int T, CueWorkspace<S>& ws, int p0,
                                                  bool every_position, bool lookup) const {
  const int d = cfg_.d_model, d3 = 3 * d;
  const int Tq = every_position ? T : 1, first_q = T - Tq;
  const int* pos = ws.positions;
  // the positions the tables span: p0 .. p0+T-1, or with sequence positions 0 .. past the largest
  int span = T;
  if (pos) {
    if (every_position || p0 != 0)
      throw Error("CueHead: sequence positions are read at one query row per sequence, from p0 0");
    for (int b = 0; b < B; ++b)
      for (int t = 0; t < T; ++t) {
        const int p = pos[size_t(b) * T + t];
        if (p < 0 || (t > 0 && p <= pos[size_t(b) * T + t - 1]))
          throw Error(fmt::format("CueHead: sequence {}'s positions are not ascending from 0 or more at row {}", b, t));
      }
    for (int b = 0; b < B; ++b) span = std::max(span, pos[size_t(b) * T + T - 1] + 1);
  }
  if (ws.shared && (pos ? ws.shared->p0 != 0 || ws.shared->every_position || ws.shared->T < span
                        : ws.shared->T != T || ws.shared->p0 != p0 || ws.shared->every_position != every_position))
    throw Error("CueHead: the shared tables were made for another length, start or query layout");
  if (!ws.shared) prepare_tables(span, p0, every_position, ws.own, !pos);
  const CueTables<S>& tab = ws.tables();
  const bool emb = scheme_->acts_on_embedding();
  const int V = cfg_.task.vocab();
  // a key's table row: its position (row t, or positions[b*T + t]) times V plus its token
  const auto at = [&](int b, int t) { return pos ? pos[size_t(b) * T + t] : t; };
  ws.kv_index.resize(size_t(B) * T);
  for (int b = 0; b < B; ++b)
    for (int t = 0; t < T; ++t) ws.kv_index[size_t(b) * T + t] = at(b, t) * V + tokens[size_t(b) * T + t];
  if (ws.query_rows) {
    if (every_position) throw Error("CueHead: query_rows reads one row per sequence, not every position");
    for (int b = 0; b < B; ++b)
      if (ws.query_rows[b] < 0 || ws.query_rows[b] >= T)
        throw Error(fmt::format("CueHead: sequence {}'s query row {} is outside 0..{}", b, ws.query_rows[b], T - 1));
  }
  ws.looked_up = lookup && tab.lookup_token >= 0 && !ws.query_rows && !pos;
  for (int b = 0; b < B && ws.looked_up; ++b) ws.looked_up = tokens[size_t(b) * T + T - 1] == tab.lookup_token;
  if (ws.looked_up) return tab;
  ws.qrow_pos.resize(size_t(B) * Tq);
  for (int b = 0; b < B; ++b) std::copy(tab.qpos.begin(), tab.qpos.end(), ws.qrow_pos.begin() + size_t(b) * Tq);
  if (ws.query_rows || pos) {  // one query per sequence at its own row or position; the keys' positions to match
    ws.krow_pos.resize(size_t(B) * T);
    for (int b = 0; b < B; ++b) {
      const int r = ws.query_rows ? ws.query_rows[b] : T - 1;
      ws.qrow_pos[b] = pos ? at(b, r) : p0 + r;
      if (pos)
        std::copy_n(pos + size_t(b) * T, T, ws.krow_pos.begin() + size_t(b) * T);
      else
        std::copy_n(tab.kpos.begin(), T, ws.krow_pos.begin() + size_t(b) * T);
    }
  }
  // (above: kv_index[b*T + t] = p*V + x_{b,t}, p = t or positions[b*T + t]);
  // q_{b,i} = qk_t(ET[x_{b,t}, 0:d] (+ PT[p, 0:d])), t = first_q + i (or t = query_rows[b])
  resize(ws.Q, size_t(B) * Tq * d);
  for (int b = 0; b < B; ++b) {
    for (int i = 0; i < Tq; ++i) {
      const int t = ws.query_rows ? ws.query_rows[b] : first_q + i;
      const S* et = &tab.ET[size_t(tokens[size_t(b) * T + t]) * d3];
      S* q = &ws.Q[(size_t(b) * Tq + i) * d];
      for (int c = 0; c < d; ++c) q[c] = et[c] + (emb ? tab.PT[size_t(at(b, t)) * d3 + c] : S(0));
    }
  }
  if (scheme_->acts_on_qk()) scheme_->qk_forward(Qk::Query, ws.qrow_pos.data(), B * Tq, ws.Q.data());
  return tab;
}

template <class S>
void CueHead<S>::scores(const int* tokens, int B, int T, CueWorkspace<S>& ws, std::vector<S>& scores, int p0,
                        bool every_position) const {
  const CueTables<S>& tab = prepare_attention(tokens, B, T, ws, p0, every_position, false);
  const int Tq = every_position ? T : 1;
  scores.resize(size_t(B) * Tq * T);
  attention_scores(AttnShape{B, Tq, T, 1, cfg_.d_model}, ws.Q.data(), tab.KT.data(), coordinates(ws), *scheme_, cview(),
                   scores.data(), ws.kv_index.data(), AttnTables<S>{tab.tables.data(), nullptr, tab.T});
}

template <class S>
Coordinates CueHead<S>::coordinates(const CueWorkspace<S>& ws) const {
  const CueTables<S>& tab = ws.tables();
  if ((ws.query_rows || ws.positions) && !ws.looked_up)
    return {ws.qrow_pos.data(), ws.krow_pos.data(), visibility(), true, nullptr, nullptr};
  return {tab.qpos.data(), tab.kpos.data(), visibility()};
}

template <class S>
BatchStats CueHead<S>::forward(const int* tokens, const int* targets, int B, int T, CueWorkspace<S>& ws,
                               int* predictions, int p0, bool every_position) const {
  const int d = cfg_.d_model, C = cfg_.task.alphabet;
  const int Tq = every_position ? T : 1;
  const auto P = cview();
  const CueTables<S>& tab = prepare_attention(tokens, B, T, ws, p0, every_position, ws.lookup);
  const int rows = B * Tq;
  resize(ws.probs, size_t(B) * Tq * T);
  resize(ws.logits, size_t(rows) * C);
  const Coordinates at = coordinates(ws);
  const AttnTables<S> scheme_tables{tab.tables.data(), nullptr, tab.T};  // tab.T: the positions' span
  if (ws.looked_up) {
    // logits = attention with looked-up scores over the values read through the output layer (VW): [B, C]
    attention_forward(AttnShape{B, 1, T, 1, C}, ws.Q.data(), tab.KT.data(), tab.VW.data(), at, *scheme_, P,
                      ws.probs.data(), ws.logits.data(), ws.kv_index.data(), scheme_tables,
                      ScoreLookup<S>{tab.ST.data()});
  } else {
    // z = attention(q, K, V): [B*Tq, d]; logits = Z W_out: [B*Tq, C]
    resize(ws.Z, size_t(B) * Tq * d);
    attention_forward(AttnShape{B, Tq, T, 1, d}, ws.Q.data(), tab.KT.data(), tab.VT.data(), at, *scheme_, P,
                      ws.probs.data(), ws.Z.data(), ws.kv_index.data(), scheme_tables);
    MatMap<S>(ws.logits.data(), rows, C).noalias() = CMatMap<S>(ws.Z.data(), rows, d) * P(wout_);
  }
  // cross-entropy and accuracy over the rows with a target
  BatchStats st;
  for (int r = 0; r < rows; ++r) {
    int arg = 0;
    if (targets[r] < 0) {
      if (predictions) predictions[r] = argmax_of(&ws.logits[size_t(r) * C], C);
      continue;
    }
    if (ws.loss)
      st.loss_sum += cross_entropy_forward(&ws.logits[size_t(r) * C], C, targets[r], &arg);
    else
      arg = argmax_of(&ws.logits[size_t(r) * C], C);
    st.correct += (arg == targets[r]);
    st.queries += 1;
    if (predictions) predictions[r] = arg;
  }
  return st;
}

template <class S>
BatchStats CueHead<S>::forward_backward(const int* tokens, const int* targets, int B, int T, long norm_rows, S* grad,
                                        CueWorkspace<S>& ws, int p0, bool every_position) const {
  const BatchStats st = chunk_backward(tokens, targets, B, T, norm_rows, grad, ws, p0, every_position);
  shared_tables_backward(ws, grad);
  return st;
}

template <class S>
BatchStats CueHead<S>::chunk_backward(const int* tokens, const int* targets, int B, int T, long norm_rows, S* grad,
                                      CueWorkspace<S>& ws, int p0, bool every_position) const {
  const BatchStats st = forward(tokens, targets, B, T, ws, nullptr, p0, every_position);
  const CueTables<S>& tab = ws.tables();
  const int d = cfg_.d_model, d3 = 3 * d, C = cfg_.task.alphabet, V = cfg_.task.vocab();
  const int Tq = every_position ? T : 1, first_q = T - Tq, rows = B * Tq;
  const auto P = cview();
  const ParamView<S> G = view(grad);
  const bool emb = scheme_->acts_on_embedding();
  // undoes loss = sum_r CE(logits_r) / norm_rows: dlogits = (softmax - onehot) / norm_rows (0 off the queries)
  resize(ws.dlogits, size_t(rows) * C);
  for (int r = 0; r < rows; ++r) {
    if (targets[r] < 0) {
      std::fill_n(&ws.dlogits[size_t(r) * C], C, S(0));
      continue;
    }
    cross_entropy_backward(&ws.logits[size_t(r) * C], C, targets[r], S(norm_rows), &ws.dlogits[size_t(r) * C]);
  }
  // the table gradients this chunk adds to (summed over the chunks, undone by shared_tables_backward):
  // dVW and dST where the tables have a score table (this chunk may not read it), and the row gradients
  // dKT, dVT, dET, dPT, dtables where it computes its scores
  const bool table = tab.lookup_token >= 0;
  zero(ws.dVW, table ? size_t(tab.T) * V * C : 0);
  zero(ws.dST, table ? size_t(tab.T) * V : 0);
  ws.row_grads = !ws.looked_up;
  if (ws.row_grads) zero_row_grads(ws);
  const Coordinates at = coordinates(ws);
  const AttnTables<S> scheme_tables{tab.tables.data(), ws.dtables.data(), tab.T};
  if (ws.looked_up) {
    // undoes logits = attention with looked-up scores over VW: into dVW and the score table's dST
    attention_backward(AttnShape{B, 1, T, 1, C}, ws.Q.data(), tab.KT.data(), tab.VW.data(), at, *scheme_, P, G,
                       ws.probs.data(), ws.dlogits.data(), ws.dQ.data(), ws.dKT.data(), ws.dVW.data(),
                       ws.kv_index.data(), scheme_tables, ScoreLookup<S>{tab.ST.data(), ws.dST.data()});
  } else {
    // undoes logits = Z W_out
    const CMatMap<S> dL(ws.dlogits.data(), rows, C);
    G(wout_).noalias() += CMatMap<S>(ws.Z.data(), rows, d).transpose() * dL;
    resize(ws.dZ, size_t(rows) * d);
    MatMap<S>(ws.dZ.data(), rows, d).noalias() = dL * P(wout_).transpose();
    // undoes z = attention(q, KT, VT): into dKT, dVT, the scheme's dtables, and dQ
    zero(ws.dQ, size_t(rows) * d);
    attention_backward(AttnShape{B, Tq, T, 1, d}, ws.Q.data(), tab.KT.data(), tab.VT.data(), at, *scheme_, P, G,
                       ws.probs.data(), ws.dZ.data(), ws.dQ.data(), ws.dKT.data(), ws.dVT.data(), ws.kv_index.data(),
                       scheme_tables);
  }
  // undoes q_{b,i} = qk(ET[x_{b,t}, 0:d] (+ PT[p, 0:d])), t = first_q + i (or query_rows[b]), p = t (or
  // positions[b*T + t]): into dET, dPT
  if (ws.looked_up) return st;
  if (scheme_->acts_on_qk()) scheme_->qk_backward(Qk::Query, ws.qrow_pos.data(), rows, ws.dQ.data());
  for (int b = 0; b < B; ++b)
    for (int i = 0; i < Tq; ++i) {
      const int t = ws.query_rows ? ws.query_rows[b] : first_q + i;
      S* det = &ws.dET[size_t(tokens[size_t(b) * T + t]) * d3];
      const S* dq = &ws.dQ[(size_t(b) * Tq + i) * d];
      for (int c = 0; c < d; ++c) det[c] += dq[c];
      const int p = ws.positions ? ws.positions[size_t(b) * T + t] : t;
      if (emb)
        for (int c = 0; c < d; ++c) ws.dPT[size_t(p) * d3 + c] += dq[c];
    }
  return st;
}

template <class S>
void CueHead<S>::zero_row_grads(CueWorkspace<S>& ws) const {
  const CueTables<S>& tab = ws.tables();
  const size_t T = size_t(tab.T), V = size_t(cfg_.task.vocab()), d = size_t(cfg_.d_model);
  zero(ws.dKT, T * V * d);
  zero(ws.dVT, T * V * d);
  zero(ws.dET, V * 3 * d);
  zero(ws.dPT, scheme_->acts_on_embedding() ? T * 3 * d : 0);
  ws.dtables.assign(tab.tables.size(), S(0));
  ws.row_grads = true;
}

template <class S>
void CueHead<S>::add_table_grads(CueWorkspace<S>& into, const CueWorkspace<S>& from) const {
  auto add = [](std::vector<S>& a, const std::vector<S>& b) {
    if (a.size() != b.size()) throw Error("CueHead: the chunks' table gradients have other shapes");
    add_to(a.data(), b.data(), int(a.size()));
  };
  add(into.dVW, from.dVW);
  add(into.dST, from.dST);
  if (!from.row_grads) return;  // a chunk that looked its scores up has no row gradients
  const auto rows = {&CueWorkspace<S>::dKT, &CueWorkspace<S>::dVT, &CueWorkspace<S>::dET, &CueWorkspace<S>::dPT,
                     &CueWorkspace<S>::dtables};
  if (!into.row_grads)
    for (auto m : rows) into.*m = from.*m;
  else
    for (auto m : rows) add(into.*m, from.*m);
  into.row_grads = true;
}

template <class S>
void CueHead<S>::shared_tables_backward(CueWorkspace<S>& ws, S* grad) const {
  const CueTables<S>& tab = ws.tables();
  const int T = tab.T, d = cfg_.d_model, d3 = 3 * d, V = cfg_.task.vocab();
  const auto P = cview();
  const ParamView<S> G = view(grad);
  const bool emb = scheme_->acts_on_embedding();
  if (!ws.row_grads) zero_row_grads(ws);  // no chunk computed its scores: nothing but the tables' own terms
  if (tab.lookup_token >= 0) {
    const int C = cfg_.task.alphabet;
    // undoes VW[t*V + x] = EW[x] + PW[t]: dEW[x] = sum_t dVW[t*V + x], dPW[t] = sum_x dVW[t*V + x]
    RowMat<S> dEWr = RowMat<S>::Zero(V, C), dPWr = RowMat<S>::Zero(emb ? T : 0, C);  // a row's classes side by side
    for (int t = 0; t < T; ++t)
      for (int x = 0; x < V; ++x) {
        const S* g = &ws.dVW[(size_t(t) * V + x) * C];
        add_to(dEWr.data() + size_t(x) * C, g, C);
        if (emb) add_to(dPWr.data() + size_t(t) * C, g, C);
      }
    const Mat<S> dEW = dEWr, dPW = dPWr;
    // undoes EW = ET[:, 2d:3d] W_out and PW = PT[:, 2d:3d] W_out
    G(wout_).noalias() += value_columns(tab.ET.data(), V, d).transpose().lazyProduct(dEW);
    value_columns(ws.dET.data(), V, d).noalias() += dEW.lazyProduct(P(wout_).transpose());
    if (emb) {
      G(wout_).noalias() += value_columns(tab.PT.data(), T, d).transpose().lazyProduct(dPW);
      value_columns(ws.dPT.data(), T, d).noalias() += dPW.lazyProduct(P(wout_).transpose());
    }
    // undoes ST = the scores of V copies of q against each token's keys: dQV [V, d], dq = sum_x dQV[x],
    // then q = qk(ET[query, 0:d] (+ PT[T-1, 0:d]))
    resize(ws.dSV, size_t(V) * T);
    for (int x = 0; x < V; ++x)
      for (int t = 0; t < T; ++t) ws.dSV[size_t(x) * T + t] = ws.dST[size_t(t) * V + x];
    zero(ws.dQV, size_t(V) * d);
    attention_scores_backward(AttnShape{V, 1, T, 1, d}, tab.QV.data(), tab.KT.data(),
                              Coordinates{tab.qpos.data(), tab.kpos.data(), visibility()}, *scheme_, P, G,
                              ws.dSV.data(), ws.dQV.data(), ws.dKT.data(), tab.table_index.data(),
                              AttnTables<S>{tab.tables.data(), ws.dtables.data(), T});
    for (int x = 1; x < V; ++x)
      for (int c = 0; c < d; ++c) ws.dQV[c] += ws.dQV[size_t(x) * d + c];
    if (scheme_->acts_on_qk()) scheme_->qk_backward(Qk::Query, tab.qpos.data(), 1, ws.dQV.data());
    S* det = &ws.dET[size_t(tab.lookup_token) * d3];
    for (int c = 0; c < d; ++c) det[c] += ws.dQV[c];
    if (emb)
      for (int c = 0; c < d; ++c) ws.dPT[size_t(T - 1) * d3 + c] += ws.dQV[c];
  }
  if (!ws.dtables.empty()) scheme_->tables_backward(P, G, 0, T, tab.tables.data(), ws.dtables.data());
  // undoes KT = qk(ET[x, d:2d] + PT[t, d:2d]) and VT = ET[x, 2d:3d] + PT[t, 2d:3d]
  if (scheme_->acts_on_qk()) scheme_->qk_backward(Qk::Key, tab.kt_pos.data(), T * V, ws.dKT.data());
  for (int t = 0; t < T; ++t)
    for (int x = 0; x < V; ++x) {
      const size_t r = size_t(t) * V + x;
      const S *dkt = &ws.dKT[r * d], *dvt = &ws.dVT[r * d];
      S* det = &ws.dET[size_t(x) * d3];
      add_to(det + d, dkt, d);
      add_to(det + 2 * d, dvt, d);
      if (emb) {
        S* dpt = &ws.dPT[size_t(t) * d3];
        add_to(dpt + d, dkt, d);
        add_to(dpt + 2 * d, dvt, d);
      }
    }
  // undoes ET = E W_qkv
  const CMatMap<S> dET(ws.dET.data(), V, d3);
  G(wqkv_).noalias() += P(emb_).transpose() * dET;
  G(emb_).noalias() += dET * P(wqkv_).transpose();
  // undoes PT = PS W_qkv, then PS = embedding state
  if (emb) {
    const CMatMap<S> dPT(ws.dPT.data(), T, d3);
    G(wqkv_).noalias() += CMatMap<S>(tab.PS.data(), T, d).transpose() * dPT;
    resize(ws.dPS, size_t(T) * d);
    MatMap<S>(ws.dPS.data(), T, d).noalias() = dPT * P(wqkv_).transpose();
    scheme_->embed_backward(P, G, tab.kpos.data(), T, ws.dPS.data());
  }
}

template class CueHead<float>;
template class CueHead<double>;

}  // namespace pe
