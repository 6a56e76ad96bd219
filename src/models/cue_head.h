// The cue-task model: one causal attention head of width d that reads at the query position.
//   h_t = E[x_t] (+ the scheme's embedding state at position t)
//   q = h_{T-1} W_Q, k_t = h_t W_K, v_t = h_t W_V   (W_qkv = [W_Q | W_K | W_V], [d, 3d], no bias)
//   q, k rotated by the scheme's Q/K hook; a = softmax over t <= T-1 of q.k_t/sqrt(d) + bias
//   z = sum_t a_t v_t;  logits = z W_out ([d, classes], no bias); loss = cross-entropy
// The same head in its causal form reads at every position i (every_position): q_i = h_i W_Q attends
// to t <= i, one answer per position (the filings task); a target of -1 marks a position that is not
// a query (no loss, not counted).
// The projections use linearity: h W = (E W)[x] + (P W)[t], so the projected token table [V, 3d]
// and position table [T, 3d] are computed once per batch instead of once per token; and a key
// and value depend only on (position, token), so they are [T*V]-row tables (the Q/K transform runs
// on T*V rows) that the attention layer reads through an index.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/params.h"
#include "models/attention.h"
#include "schemes/scheme.h"

namespace pe {

// The head's input: the cue task's tokens (tasks/cue/data.h draws them), or the filings task's.
struct CueTaskConfig {
  int alphabet = 8;
  double mark_prob = 0.1;
  // The cue stream ends each sequence with a query token; a head that answers at every position
  // (the filings task, tasks/filings/) has none: its vocabulary is the 2A content tokens.
  bool query_token = true;
  // The rule that decides the answer, for a task whose sequences have several (the direction task's);
  // empty for the cue task. Recorded in the checkpoint's model section when set.
  std::string rule;
  int vocab() const { return 2 * alphabet + (query_token ? 1 : 0); }
  int query_token_id() const { return 2 * alphabet; }
};

struct CueBatch {
  int B = 0, T = 0;
  std::vector<int> tokens;   // [B, T]
  std::vector<int> targets;  // [B]; with every_position [B, T], -1 where a position is not a query
  bool every_position = false;
  // Each sequence's query row ([B], 0 .. T-1; CueWorkspace::query_rows), for sequences whose query
  // token sits inside them; empty: the last row (the cue task's query).
  std::vector<int> query_rows;
  // Randomised positions (harness/random_positions.h): each sequence's own positions ([B, T], ascending,
  // each below position_range), read instead of 0 .. T-1; empty (position_range 0): 0 .. T-1.
  std::vector<int> positions;
  int position_range = 0;
  // The positions a model must hold to read the batch: 0 .. position_span() - 1.
  int position_span() const { return position_range > 0 ? position_range : T; }
  // The rows with a target.
  long queries() const {
    long n = 0;
    for (int t : targets) n += (t >= 0);
    return n;
  }
};

struct CueModelConfig {
  CueTaskConfig task;
  int d_model = 16;
  double embed_init_std = 0.3;
  SchemeConfig scheme;
  nlohmann::json to_json() const;
};

// What every sequence of a forward call shares: the projected token table ET, the positional state
// PS and its projection PT, the key and value tables KT, VT with their positions kt_pos, the key and
// query positions and the scheme's tables. They depend on the parameters, T, p0 and every_position
// only, so one set can serve every chunk of a batch (CueHead::prepare_tables): the same bits as each
// chunk making its own.
//
// When each sequence is read at its last position only and every query is the task's query token,
// the query is one row q at one position, so a key's score depends only on its (position, token)
// row: the score table ST (ScoreLookup, models/attention.h) holds them all, made with V copies of q
// (QV) against the T keys of each token (table_index: x*T + t -> key row t*V + x), the same bits as
// the per-sequence scores; and the values are read through the output layer, VW = VT W_out
// ([T*V, classes]), so attention sums the logits directly: logits = sum_t p_t VW[row t]. Not for a
// scheme with a value term, nor for one whose key scores read the other keys (contextual_scores).
// lookup_token is -1 when there is none.
template <class S>
struct CueTables {
  int T = -1, p0 = 0;
  bool every_position = false;
  std::vector<S> ET, PS, PT, KT, VT, tables;
  std::vector<int> qpos, kt_pos, kpos;
  int lookup_token = -1;
  std::vector<S> QV, ST, VW;
  std::vector<int> table_index;
};

// Scratch buffers for one chunk of sequences; reused across steps. A caller that made the call's
// tables once points `shared` at them; otherwise the chunk makes its own in `own`.
template <class S>
struct CueWorkspace {
  CueTables<S> own;
  const CueTables<S>* shared = nullptr;
  const CueTables<S>& tables() const { return shared ? *shared : own; }  // the ones this chunk reads
  // Read scores from the tables' score table when they have one and every query of the chunk is its
  // token (false: always compute them per sequence, as a test comparing the two does).
  bool lookup = true;
  bool looked_up = false;  // whether the last forward did
  // Sum the queries' cross-entropy into BatchStats::loss_sum (a log per query); a training step whose
  // loss is not logged turns it off (loss_sum 0; a diverging step still shows in its gradient).
  bool loss = true;
  std::vector<S> Q, probs, Z, logits, dlogits, dZ, dQ, dKT, dVT, dET, dPT, dPS, dtables, dST, dSV, dQV;
  std::vector<S> dVW;  // with looked-up scores: the gradient of VW (dST: the score table's)
  // dKT, dVT, dET, dPT and dtables hold gradients (a chunk that looked its scores up writes none)
  bool row_grads = false;
  // Each sequence's query row ([B], 0 .. T-1) when the head reads at one row per sequence; nullptr: the
  // last row (the cue task's query). Set by the caller before forward; not with every_position. The
  // query's position is p0 + its row; it sees the keys its visibility allows (CueHead::visibility):
  // rows up to it (causal), or every row (a head made bidirectional). No score table then.
  const int* query_rows = nullptr;
  std::vector<int> qrow_pos, kv_index;
  std::vector<int> krow_pos;  // [B, T]: the keys' positions per sequence, with query_rows or positions
  // Each sequence's positions ([B, T], ascending; CueBatch::positions), read instead of p0 .. p0+T-1: key
  // row t of sequence b is table row positions[b*T + t]*V + x, so the tables span positions 0 .. tab.T-1
  // (made with p0 0 and a length past every position; a chunk making its own makes them so), and the
  // query at row T-1 (or query_rows[b]) reads at its own position. Not with every_position; no score
  // table (the query's position differs per sequence). nullptr: p0 + row.
  const int* positions = nullptr;
};

struct BatchStats {
  double loss_sum = 0;  // summed cross-entropy over the queries
  int correct = 0;
  int queries = 0;  // rows with a target (every sequence when reading at the last position)
};

template <class S>
class CueHead {
 public:
  explicit CueHead(const CueModelConfig& cfg);
  const CueModelConfig& config() const { return cfg_; }
  const ParamLayout& layout() const { return layout_; }
  std::vector<S>& params() { return params_; }
  const std::vector<S>& params() const { return params_; }
  Scheme<S>& scheme() { return *scheme_; }
  const Scheme<S>& scheme() const { return *scheme_; }
  ParamView<S> view(S* base) const { return {base, &layout_}; }
  CParamView<S> cview() const { return {params_.data(), &layout_}; }

  void init(uint64_t seed);
  // Replaces the scheme with one that declares the same parameters (analyses read a trained head
  // through a modified scheme). Throws if the parameter layout would change.
  void swap_scheme(std::unique_ptr<Scheme<S>> scheme);
  // Replaces the scheme with f(the scheme): a wrapper of it (schemes/forwarding.h) that declares its parameters.
  template <class F>
  void wrap_scheme(F&& f) {
    std::unique_ptr<Scheme<S>> inner = std::move(scheme_);
    swap_scheme(f(std::move(inner)));
  }
  // Fill the scheme's caches for positions up to end - 1 (call before parallel work).
  void prepare(int end) { scheme_->prepare(end - 1); }
  // Which keys a query sees: every earlier one (causal), or every one when the head was made
  // bidirectional (SchemeConfig::bidirectional: the schemes' encoder forms), within the scheme's window.
  Visibility visibility() const {
    return (scheme_->config().bidirectional ? Visibility::bidirectional() : Visibility{})
        .with_window(scheme_->window(0));
  }
  // The tables a forward call over sequences of length T at positions p0.. reads (CueTables), made
  // once for the chunks of a batch: set each chunk's workspace.shared to them. They hold until the
  // parameters change. score_table false: without the score table (for sequences read at positions of
  // their own, CueWorkspace::positions, which never look their scores up).
  void prepare_tables(int T, int p0, bool every_position, CueTables<S>& out, bool score_table = true) const;
  // Forward over B sequences of length T whose tokens sit at positions p0 .. p0+T-1 (the query at
  // p0+T-1). targets, predictions (optional): [B]; with every_position, a query at every position
  // and targets, predictions: [B, T] (target -1: not a query).
  BatchStats forward(const int* tokens, const int* targets, int B, int T, CueWorkspace<S>& ws,
                     int* predictions = nullptr, int p0 = 0, bool every_position = false) const;
  // Forward then backward; adds d(loss_sum / norm_rows)/dparam into grad (flat, layout()): norm_rows
  // is the whole batch's number of queries when this call is one chunk of it.
  BatchStats forward_backward(const int* tokens, const int* targets, int B, int T, long norm_rows, S* grad,
                              CueWorkspace<S>& ws, int p0 = 0, bool every_position = false) const;
  // forward_backward in two halves, for a batch cut into chunks that share their tables: each chunk's
  // half (chunk_backward: the same arguments, adds what the chunk alone decides into grad and leaves
  // its share of the tables' gradients in ws), the chunks' table gradients summed into one workspace
  // (add_table_grads, in chunk order), then the tables' half once for the batch (shared_tables_backward, into
  // the batch's grad). The tables' half is linear in the table gradients, so this is the sum of the
  // chunks' forward_backward to float rounding, at a quarter of the table work for four chunks.
  BatchStats chunk_backward(const int* tokens, const int* targets, int B, int T, long norm_rows, S* grad,
                            CueWorkspace<S>& ws, int p0 = 0, bool every_position = false) const;
  void add_table_grads(CueWorkspace<S>& into, const CueWorkspace<S>& from) const;
  void shared_tables_backward(CueWorkspace<S>& ws, S* grad) const;
  // The attention scores of the query row(s) before the softmax, as forward computes them (content,
  // position and the scheme's score terms): scores (out) [B, Tq, T], -infinity where a key is masked;
  // Tq = T with every_position, else 1. For reading a trained head (the laboratory's score curves).
  void scores(const int* tokens, int B, int T, CueWorkspace<S>& ws, std::vector<S>& scores, int p0 = 0,
              bool every_position = false) const;

 private:
  // forward's first half: the tables (ws.shared, checked against T, p0 and every_position, else made
  // into ws.own), the key/value index ws.kv_index, and ws.looked_up (lookup allowed, the tables have
  // a score table and every query is its token), else the query rows ws.Q. Returns the tables used.
  const CueTables<S>& prepare_attention(const int* tokens, int B, int T, CueWorkspace<S>& ws, int p0,
                                        bool every_position, bool lookup) const;
  // The coordinates attention reads: the tables' shared positions, or per sequence with query_rows.
  Coordinates coordinates(const CueWorkspace<S>& ws) const;
  // dKT, dVT, dET, dPT and dtables zeroed at the shapes of ws's tables; sets ws.row_grads.
  void zero_row_grads(CueWorkspace<S>& ws) const;
  // The model's tensors, then the scheme's: the one place the layout is declared.
  void declare_into(ParamLayout& layout, Scheme<S>& scheme);

  CueModelConfig cfg_;
  ParamLayout layout_;
  std::unique_ptr<Scheme<S>> scheme_;
  std::vector<S> params_;
  int emb_ = -1, wqkv_ = -1, wout_ = -1;
};

}  // namespace pe
