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
  }  // (a map this scheme cannot read: read_with, below, says so)
  // the reading, set here (a length-dependent map is re-planned at every step) and remembered
  if (map_) scheme.read_with(*map_, train_len_, read_len_);
  plans_ = scheme.frequency_plans();
  reading_ = fmt::format("{} {}{}, read with {} (trained at {}, read at {})", scheme.name(),
                         scheme.config().settings.dump(), scheme.config().bidirectional ? " (bidirectional)" : "",
                         map_ ? map_->written : std::string("the plan it held"), train_len_, read_len_);
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
void BlockStackDecoder<S>::check_reading() const {
  const auto now = m_.scheme().frequency_plans();
  bool same = now.size() == plans_.size();
  for (size_t l = 0; same && l < now.size(); ++l) same = same_rotation(now[l], plans_[l]);
  if (!same)
    throw UsageError(
        fmt::format("this cache's keys were made under {}, and the model now reads with another plan (its reading was "
                    "changed between steps): keys turned under one plan read by queries under another give neither "
                    "reading's scores; start a new decoder for the new reading",
                    reading_));
}

template <class S>
void BlockStackDecoder<S>::check_tokens(const int* tokens, int n) const {
  const int V = m_.config().vocab;
  for (int i = 0; i < n; ++i)
    if (tokens[i] < 0 || tokens[i] >= V)
      throw UsageError(fmt::format("token {} is outside the vocabulary of {}", tokens[i], V));
  const Scheme<S>& scheme = m_.scheme();
  if (!scheme.can_read(next_ + n - 1)) {
    int t = next_;
    while (scheme.can_read(t)) ++t;
    throw UsageError(
        fmt::format("{} has positions 0..{} only: cached decoding stops before position {} (a learned "
                    "table has no row there, and pe-bench does not clamp)",
                    scheme.name(), scheme.max_position(), t));
  }
}

template <class S>
const S* BlockStackDecoder<S>::step(int token) {
  const BlockStackConfig& c = m_.config();
  Scheme<S>& scheme = m_.scheme();
  const int D = c.d_model, L = c.n_layers, t = next_;
  check_tokens(&token, 1);
  check_reading();
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
      scheme.qk_forward(l, Qk::Query, &t, 1, q_.data());
      if (recompute_) {  // every cached key turned again under this step's plan
        std::copy(Kraw_[l].begin(), Kraw_[l].end(), K_[l].begin());
        for (int s = 0; s < window_; ++s)
          if (slot_pos_[s] >= 0) scheme.qk_forward(l, Qk::Key, &slot_pos_[s], 1, &K_[l][size_t(s) * D]);
      } else {
        scheme.qk_forward(l, Qk::Key, &t, 1, k_.data());
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
  if (length_dependent_) plans_ = scheme.frequency_plans();
  return logits_.data();
}

template <class S>
const S* BlockStackDecoder<S>::feed(const int* tokens, int n) {
  if (n < 1) throw UsageError("a chunk to feed needs at least one token");
  const BlockStackConfig& c = m_.config();
  Scheme<S>& scheme = m_.scheme();
  const int D = c.d_model, L = c.n_layers, t0 = next_, last = t0 + n - 1, held = count_;
  check_tokens(tokens, n);
  check_reading();
  if (length_dependent_) {
    replan_for(last + 1);  // the chunk reads the plan of its end, as a full forward of that length
    scheme.prepare_range(recompute_ ? t0 - held : t0, last);
  } else {
    scheme.prepare(std::max(last, window_));
  }
  const CParamView<S> P{m_.params().data(), &m_.layout()};
  // the keys read: the `held` cached ones (positions t0-held .. t0-1), then the chunk's n
  const int Tk = held + n;
  chunk_pos_.resize(n), all_pos_.resize(Tk);
  for (int i = 0; i < n; ++i) chunk_pos_[i] = t0 + i;
  for (int j = 0; j < Tk; ++j) all_pos_[j] = t0 - held + j;
  H_.resize(size_t(n) * D), Q_.resize(size_t(n) * D), Kraw_chunk_.resize(size_t(n) * D);
  Kall_.resize(size_t(Tk) * D), Vall_.resize(size_t(Tk) * D);
  if (logits_.size() < size_t(n) * c.vocab) logits_.resize(size_t(n) * c.vocab);
  O_.resize(size_t(n) * D);
  // H = E[tokens] (+ p(positions)): [n, D]
  const auto E = P(m_.emb_);
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < D; ++k) H_[size_t(i) * D + k] = E(tokens[i], k);
  if (scheme.acts_on_embedding()) scheme.embed_forward(P, chunk_pos_.data(), n, H_.data());
  S* Kc = &Kall_[size_t(held) * D];
  S* Vc = &Vall_[size_t(held) * D];
  for (int l = 0; l < L; ++l) {
    // Q, K, V = H W_qkv: [n, D] each, the chunk's keys and values after the cached ones
    const S* W = P.data(m_.wqkv_[l]);
    gemm(Op::N, Op::N, n, D, D, H_.data(), D, W, 3 * D, Q_.data(), D, false);
    gemm(Op::N, Op::N, n, D, D, H_.data(), D, W + D, 3 * D, Kc, D, false);
    gemm(Op::N, Op::N, n, D, D, H_.data(), D, W + 2 * D, 3 * D, Vc, D, false);
    if (recompute_) std::copy(Kc, Kc + size_t(n) * D, Kraw_chunk_.begin());
    // the cached keys and values in ascending position (turned again under this plan: dynamic-recompute)
    for (int j = 0; j < held; ++j) {
      const int slot = all_pos_[j] % window_;
      S* kj = &Kall_[size_t(j) * D];
      std::copy_n(&V_[l][size_t(slot) * D], D, &Vall_[size_t(j) * D]);
      std::copy_n(recompute_ ? &Kraw_[l][size_t(slot) * D] : &K_[l][size_t(slot) * D], D, kj);
    }
    if (scheme.acts_on_qk()) {
      scheme.qk_forward(l, Qk::Query, chunk_pos_.data(), n, Q_.data());
      // the chunk's keys, and the cached ones again when the map recomputes them: Kall_ from that row on
      const int from = recompute_ ? 0 : held;
      scheme.qk_forward(l, Qk::Key, &all_pos_[from], Tk - from, &Kall_[size_t(from) * D]);
    }
    // O = attention(Q; cached and chunk keys, causal within the window): [n, D]
    const AttnShape sh{1, n, Tk, c.n_heads, D / c.n_heads, l};
    attention_forward(
        sh, Q_.data(), Kall_.data(), Vall_.data(),
        Coordinates{chunk_pos_.data(), all_pos_.data(), Visibility{true, window_}.with_window(scheme.window(l))},
        scheme, P, static_cast<S*>(nullptr), O_.data(), nullptr,
        AttnTables<S>{tables_[l].empty() ? nullptr : tables_[l].data(), nullptr, window_});
    // H += O W_proj
    gemm(Op::N, Op::N, n, D, D, O_.data(), D, P.data(m_.wproj_[l]), D, H_.data(), D, true);
    // the chunk's last `window` keys and values enter the cache
    for (int i = std::max(0, n - window_); i < n; ++i) {
      const int slot = (t0 + i) % window_;
      std::copy_n(Kc + size_t(i) * D, D, &K_[l][size_t(slot) * D]);
      std::copy_n(Vc + size_t(i) * D, D, &V_[l][size_t(slot) * D]);
      if (recompute_) std::copy_n(&Kraw_chunk_[size_t(i) * D], D, &Kraw_[l][size_t(slot) * D]);
    }
  }
  for (int i = std::max(0, n - window_); i < n; ++i) slot_pos_[(t0 + i) % window_] = t0 + i;
  count_ = std::min(held + n, window_);
  // logits = H E^T: [n, V]
  gemm(Op::N, Op::T, n, c.vocab, D, H_.data(), D, E.data(), D, logits_.data(), c.vocab, false);
  next_ += n;
  if (length_dependent_) plans_ = scheme.frequency_plans();
  return logits_.data();
}

template class BlockStackDecoder<float>;
template class BlockStackDecoder<double>;

}  // namespace pe
