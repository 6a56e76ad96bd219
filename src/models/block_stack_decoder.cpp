#include "models/block_stack_decoder.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/errors.h"
#include "core/gemm.h"

namespace pe {

template <class S>
BlockStackDecoder<S>::BlockStackDecoder(BlockStack<S>& model, int window, const std::optional<MapSpec>& map,
                                        int train_len, int read_len)
    : m_(model), window_(window), train_len_(train_len), read_len_(read_len > 0 ? read_len : window), map_(map) {
  if (window_ < 1) throw UsageError("cached decoding needs a window of at least one key");
  if (model.scheme().config().bidirectional)
    throw UsageError(
        "cached decoding reads one token after another: it needs a model made for causal visibility, not "
        "bidirectional or prefix");
  Scheme<S>& scheme = m_.scheme();
  if (!map_) {
    // the plan the scheme holds, as it is
  } else if (scheme.accepts_frequency_plan()) {
    const FrequencyPlan p = scheme.plan_for(*map_, train_len_, read_len_, 1);
    length_dependent_ = p.length_dependent;
    recompute_ = p.recompute_cached_keys;
  } else if (!map_->is_identity()) {
    throw UsageError(fmt::format("{} has no frequencies to rescale", scheme.name()));
  }
  const BlockStackConfig& c = m_.config();
  const int D = c.d_model, L = c.n_layers;
  K_.assign(L, std::vector<S>(size_t(window_) * D));
  V_.assign(L, std::vector<S>(size_t(window_) * D));
  if (recompute_) Kraw_.assign(L, std::vector<S>(size_t(window_) * D));
  slot_pos_.assign(window_, -1);
  // the derived tables for every distance the window holds (they depend on the parameters alone)
  scheme.prepare(window_);
  const CParamView<S> P{m_.params().data(), &m_.layout()};
  tables_.resize(L);
  for (int l = 0; l < L; ++l) {
    tables_[l].resize(scheme.tables_size(l, window_));
    if (!tables_[l].empty()) scheme.tables_forward(P, l, window_, tables_[l].data());
  }
  h_.resize(D), q_.resize(D), k_.resize(D), v_.resize(D), o_.resize(D), logits_.resize(c.vocab);
}

template <class S>
size_t BlockStackDecoder<S>::cache_bytes() const {
  const size_t D = m_.config().d_model, L = m_.config().n_layers;
  return L * window_ * D * sizeof(S) * (recompute_ ? 3 : 2) + window_ * sizeof(int) * 3;
}

template <class S>
void BlockStackDecoder<S>::replan_for(int length) {
  Scheme<S>& scheme = m_.scheme();
  scheme.read_with(*map_, train_len_, read_len_, length);
}

template <class S>
const S* BlockStackDecoder<S>::step(int token) {
  const BlockStackConfig& c = m_.config();
  Scheme<S>& scheme = m_.scheme();
  const int D = c.d_model, L = c.n_layers, t = next_;
  if (token < 0 || token >= c.vocab)
    throw UsageError(fmt::format("token {} is outside the vocabulary of {}", token, c.vocab));
  if (!scheme.can_read(t))
    throw UsageError(
        fmt::format("{} has positions 0..{} only: cached decoding stops before position {} (a learned "
                    "table has no row there, and pe-bench does not clamp)",
                    scheme.name(), scheme.max_position(), t));
  if (length_dependent_) {
    replan_for(t + 1);
    // the plan may have changed: the new token's angles, and the cached keys' when they turn again
    scheme.prepare_range(recompute_ ? std::max(0, t - window_ + 1) : t, t);
  } else {
    scheme.prepare(std::max(t, window_));
  }
  const CParamView<S> P{m_.params().data(), &m_.layout()};
  // the ring slot of position t, and the cached keys in ascending position (the oldest leaves first)
  const int slot = t % window_;
  slot_pos_[slot] = t;
  count_ = std::min(count_ + 1, window_);
  order_.clear(), kpos_.clear();
  for (int p = t - count_ + 1; p <= t; ++p) order_.push_back(p % window_), kpos_.push_back(p);
  // h = E[token] (+ p(t)): [1, D]
  const auto E = P(m_.emb_);
  for (int k = 0; k < D; ++k) h_[k] = E(token, k);
  if (scheme.acts_on_embedding()) scheme.embed_forward(P, &t, 1, h_.data());
  for (int l = 0; l < L; ++l) {
    // q, k, v = h W_qkv: [1, D] each
    const S* W = P.data(m_.wqkv_[l]);
    gemm(Op::N, Op::N, 1, D, D, h_.data(), D, W, 3 * D, q_.data(), D, false);
    gemm(Op::N, Op::N, 1, D, D, h_.data(), D, W + D, 3 * D, k_.data(), D, false);
    gemm(Op::N, Op::N, 1, D, D, h_.data(), D, W + 2 * D, 3 * D, v_.data(), D, false);
    S* kslot = &K_[l][size_t(slot) * D];
    std::copy(v_.begin(), v_.end(), &V_[l][size_t(slot) * D]);
    if (recompute_) std::copy(k_.begin(), k_.end(), &Kraw_[l][size_t(slot) * D]);
    if (scheme.acts_on_qk()) {
      scheme.qk_forward(l, &t, 1, q_.data());
      if (recompute_) {  // every cached key turned again under this step's plan
        std::copy(Kraw_[l].begin(), Kraw_[l].end(), K_[l].begin());
        for (int s = 0; s < window_; ++s)
          if (slot_pos_[s] >= 0) scheme.qk_forward(l, &slot_pos_[s], 1, &K_[l][size_t(s) * D]);
      } else {
        scheme.qk_forward(l, &t, 1, k_.data());
      }
    }
    if (!recompute_) std::copy(k_.begin(), k_.end(), kslot);
    // o = attention(q; cached K, V): [1, D]
    const AttnShape sh{1, 1, count_, c.n_heads, D / c.n_heads, l};
    attention_forward(sh, q_.data(), K_[l].data(), V_[l].data(),
                      Coordinates{&t, kpos_.data(), Visibility{true, window_}.with_window(scheme.window(l))}, scheme, P,
                      static_cast<S*>(nullptr), o_.data(), order_.data(),
                      AttnTables<S>{tables_[l].empty() ? nullptr : tables_[l].data(), nullptr, window_});
    // h += o W_proj
    gemm(Op::N, Op::N, 1, D, D, o_.data(), D, P.data(m_.wproj_[l]), D, h_.data(), D, true);
  }
  // logits = h E^T: [V]
  gemm(Op::N, Op::T, 1, c.vocab, D, h_.data(), D, E.data(), D, logits_.data(), c.vocab, false);
  ++next_;
  return logits_.data();
}

template class BlockStackDecoder<float>;
template class BlockStackDecoder<double>;

}  // namespace pe
