// The block stack of the token-level tasks (TinyCharLM, tasks.md section 3, and the passkey model):
// token embedding, L residual causal attention blocks (fused qkv and proj, no bias, no MLP, no
// normalisation), H heads of width dh, output head tied to the embedding (logits = h E^T). The scheme
// is the same object the tournament uses, now multi-head: its embedding state is added once at the
// input, its Q/K transform and score bias act in every block. A target below 0 is ignored: no loss
// and no gradient at that row (the passkey task scores only its answer symbols).
#pragma once
#include <memory>
#include <vector>

#include "core/params.h"
#include "models/attention.h"
#include "schemes/scheme.h"

namespace pe {

struct BlockStackConfig {
  int vocab = 28, d_model = 128, n_heads = 4, n_layers = 2;
  double embed_init_std = 0.02;
  SchemeConfig scheme;  // d_model, n_heads, d_head are filled in from the above
};

// Transformer-XL's segment memory (Dai et al. 2019): for each block, the states entering it of the
// M tokens before the segment, M rows per sequence. h[l] points at [B, M, D] (the caller's storage).
// Block l makes its keys and values over [memory; segment] of each sequence, the memory at positions
// p0-M .. p0-1 (so p0 >= M); its queries come from the segment alone. No gradient flows into the
// memory (it is a constant of the step), but W_K and W_V take the gradient of its keys and values.
template <class S>
struct SegmentMemory {
  int M = 0;
  std::vector<const S*> h;  // [n_layers]; empty when M = 0
  // The memory of sequences b0, b0 + 1, ... (a chunk of the batch).
  SegmentMemory from(int b0, int d_model) const {
    SegmentMemory m{M, h};
    for (auto& p : m.h) p += size_t(b0) * M * d_model;
    return m;
  }
};

// A batch's coordinates beyond the default, which is every sequence at positions p0 .. p0+T-1, one
// document, no padding (docs/architecture.md, "The batch model"). Either may be given alone.
struct TokenCoordinates {
  const int* pos = nullptr;  // [B, T]: each token's position (>= 0, within the scheme's table); nullptr: p0 + t
  const int* doc = nullptr;  // [B, T]: each token's document (a query sees keys of its own document only);
                             // -1 a PAD token: invisible as a key, sees nothing, not scored; nullptr: one document
};

template <class S>
struct BlockStackCache {
  std::vector<S> logits;                                // [B*T, V]
  std::vector<double> token_loss;                       // [B*T] cross-entropy of each next-token prediction
  std::vector<std::vector<S>> h_in, Q, K, V, probs, O;  // per block; h_in[L] is the final state;
                                                        // probs only when a backward follows
  std::vector<std::vector<S>> tables, dtables;          // per block: the scheme's derived tables, their gradient
  // The derived tables depend on the parameters and T alone. A caller that keeps the parameters fixed
  // across several calls (the chunks of one training step) sets params_epoch to the same number >= 0
  // for them, and the tables made for that epoch and T are reused; -1: made afresh at every call.
  long params_epoch = -1;
  long tables_epoch = -1;
  int tables_T = -1;
  std::vector<S> dlogits, dh, dO, dQ, dK, dV;  // backward scratch
  std::vector<int> row_pos, pos;               // [B*T] positions per row, [T]
  int span = 0;                                // every |query position - key position| < span (derived tables)
  // with a segment memory of M rows: per block [memory; segment] of each sequence ([B*(M+T), D]), the
  // key positions ([M+T]) and key row positions ([B*(M+T)]); without one, the keys are the queries' rows
  int M = 0;
  std::vector<std::vector<S>> X;
  std::vector<int> key_row_pos, key_pos;
};

template <class S>
class BlockStack {
 public:
  explicit BlockStack(const BlockStackConfig& cfg);
  const BlockStackConfig& config() const { return cfg_; }
  const ParamLayout& layout() const { return layout_; }
  std::vector<S>& params() { return params_; }
  const std::vector<S>& params() const { return params_; }
  Scheme<S>& scheme() { return *scheme_; }
  const Scheme<S>& scheme() const { return *scheme_; }
  void init(uint64_t seed);
  // Replaces the scheme with f(the scheme): a wrapper of it (schemes/forwarding.h, the failure lab's faults)
  // that declares the same parameters. Throws if the parameter layout would change.
  template <class F>
  void wrap_scheme(F&& f) {
    std::unique_ptr<Scheme<S>> next = f(std::move(scheme_));
    ParamLayout layout;  // declared as the constructor declares them: the scheme keeps tensor ids
    declare_weights(layout);
    next->declare(layout);
    if (!same_tensors(layout, layout_)) throw Error("wrap_scheme: the new scheme declares other parameters");
    scheme_ = std::move(next);
  }
  void prepare(int end) { scheme_->prepare(end - 1); }
  // Mean next-token cross-entropy over the scored rows (target >= 0, not PAD) of B sequences of T tokens at
  // positions p0..p0+T-1, or at the coordinates `at` (each token's loss is left in c.token_loss; 0 at an
  // ignored row). x, y: [B, T]. vis: visibility (causal by default; a band limits the age); a visibility
  // that shows a query later keys needs a model made for it (SchemeConfig::bidirectional), and the other
  // way round. Per-token coordinates take no segment memory. The model is read-only here: forward calls
  // may run in parallel.
  double forward(const int* x, const int* y, int B, int T, BlockStackCache<S>& c, int p0 = 0,
                 const Visibility& vis = Visibility{}, const SegmentMemory<S>* mem = nullptr,
                 const TokenCoordinates* at = nullptr) const;
  // The forward, keeping each block's attention probabilities in c.probs[l]: [B, H, T, T] (zero where
  // a key is not visible), for the analyses (models/attention_stats.h).
  double forward_keeping_probs(const int* x, const int* y, int B, int T, BlockStackCache<S>& c, int p0 = 0,
                               const Visibility& vis = Visibility{}) const;
  // Block l's attention scores before the softmax ([B, H, T, T], -infinity at every key the mask hides) for the
  // batch of the last forward over c (the default coordinates, no memory), read with visibility vis: what the
  // doctor reads to tell a mask from a finite bias (a bias underflows to probability 0 as a mask does).
  void scores(const BlockStackCache<S>& c, int B, int T, const Visibility& vis, int l, std::vector<S>& out) const;
  // Forward then backward; adds dLoss/dparam into grad (flat, layout()), where Loss is the summed
  // cross-entropy divided by `norm_rows` (0: the scored rows, the mean; a chunk of a larger batch
  // passes the batch's count). Returns the chunk's mean loss over its scored rows.
  double forward_backward(const int* x, const int* y, int B, int T, S* grad, BlockStackCache<S>& c, int p0 = 0,
                          const Visibility& vis = Visibility{}, long norm_rows = 0,
                          const SegmentMemory<S>* mem = nullptr, const TokenCoordinates* at = nullptr) const;
  // The memory the next segment reads after a forward over B sequences of T tokens with memory `mem`
  // (nullptr: none): per block the last min(mem_len, M + T) rows of [memory; segment] of each sequence,
  // written to out[l] ([B, M', D]); returns M'. out must not hold the memory it reads.
  int next_memory(const BlockStackCache<S>& c, const SegmentMemory<S>* mem, int B, int T, int mem_len,
                  std::vector<std::vector<S>>& out) const;

 private:
  // forward; keep: store the attention probabilities for a backward (else they live in a scratch).
  double run_forward(const int* x, const int* y, int B, int T, BlockStackCache<S>& c, int p0, const Visibility& vis,
                     bool keep, const SegmentMemory<S>* mem, const TokenCoordinates* at) const;
  // The attention coordinates of block l for the batch run_forward set up in c.
  Coordinates coordinates(const BlockStackCache<S>& c, const Visibility& vis, const TokenCoordinates* at, int l) const;
  // The token embedding and each block's weights, declared into `layout` (their ids: emb_, wqkv_, wproj_).
  void declare_weights(ParamLayout& layout);
  template <class>
  friend class BlockStackDecoder;  // reads the parameters by id (models/block_stack_decoder.h)
  BlockStackConfig cfg_;
  ParamLayout layout_;
  std::unique_ptr<Scheme<S>> scheme_;
  std::vector<S> params_;
  int emb_ = -1;
  std::vector<int> wqkv_, wproj_;
};

}  // namespace pe
