// `hybrid`: each layer names its own scheme and visibility (hybrid_layers, one "scheme[:window]"
// per layer). Default: layer 1 `rope` with a sliding window of 64 keys (ages < 64 only), layer 2
// `none` with full causal attention: local order from rotations, global retrieval without
// positions. The window is visibility (a band on the causal mask), never a bias; a `none` layer's
// queries and keys are really unrotated. A layer's scheme sees itself as a one-layer scheme: its
// parameters are named "layerL.pos....", and its settings take their defaults (the five published
// schemes' settings — base, rotary_fraction, ... — come from the experiment). Layer schemes may not
// act on the embedding state (that is added once, before the first layer).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/errors.h"
#include "schemes/scheme.h"

namespace pe {

template <class S>
class HybridScheme final : public Scheme<S> {
 public:
  explicit HybridScheme(SchemeConfig cfg) : Scheme<S>(std::move(cfg)) {
    const auto spec = this->cfg_.template setting<std::vector<std::string>>("hybrid_layers");
    if (int(spec.size()) != this->cfg_.n_layers)
      throw ConfigError(fmt::format("hybrid_layers lists {} layers but the model has {} (n_layers); give one "
                                    "scheme[:window] per layer",
                                    spec.size(), this->cfg_.n_layers));
    for (auto& entry : spec) {
      const auto colon = entry.find(':');
      const std::string name = entry.substr(0, colon);
      int w = 0;
      if (colon != std::string::npos) {
        const std::string num = entry.substr(colon + 1);
        size_t used = 0;
        try {
          w = std::stoi(num, &used);
        } catch (...) {
          used = 0;
        }
        if (used != num.size() || num.empty() || w < 0)
          throw ConfigError(fmt::format("hybrid_layers: '{}' has a bad window '{}' (write e.g. rope:64)", entry, num));
      }
      if (name == "hybrid") throw ConfigError("hybrid_layers: a layer cannot itself be a hybrid");
      SchemeConfig sub = this->cfg_;
      sub.name = name;
      sub.n_layers = 1;
      sub.settings = nlohmann::json::object();
      try {
        layers_.push_back(make_scheme<S>(sub));
      } catch (const UsageError& e) {
        throw ConfigError(fmt::format("hybrid_layers: '{}': {}", entry, e.what()));
      }
      if (layers_.back()->acts_on_embedding())
        throw ConfigError(fmt::format("hybrid_layers: '{}' acts on the embedding state, which is shared by the "
                                      "layers; choose a scheme that acts inside attention",
                                      entry));
      windows_.push_back(w);
    }
  }
  std::string name() const override { return "hybrid"; }
  const Scheme<S>& layer(int l) const { return *layers_.at(l); }

  void declare(ParamLayout& layout) override {
    for (size_t l = 0; l < layers_.size(); ++l) {
      layout.set_layer_scope(int(l));  // its tables: pos.layer<l>.*
      layers_[l]->declare(layout);
    }
    layout.set_layer_scope(-1);
  }
  void init(ParamView<S> P, Rng& rng) const override {
    for (auto& s : layers_) s->init(P, rng);
  }
  int max_position() const override {
    int m = -1;
    for (auto& s : layers_)
      if (s->max_position() >= 0) m = m < 0 ? s->max_position() : std::min(m, s->max_position());
    return m;
  }
  bool acts_on_qk() const override { return any([](auto& s) { return s.acts_on_qk(); }); }
  bool acts_on_scores() const override { return any([](auto& s) { return s.acts_on_scores(); }); }
  bool acts_on_values() const override { return any([](auto& s) { return s.acts_on_values(); }); }
  int window(int l) const override {
    const int own = layers_.at(l)->window(0), w = windows_.at(l);
    return own > 0 && w > 0 ? std::min(own, w) : std::max(own, w);
  }

  void prepare(int max_pos) override {
    for (auto& s : layers_) s->prepare(max_pos);
  }
  void prepare_range(int lo, int hi) override {
    for (auto& s : layers_) s->prepare_range(lo, hi);
  }
  void qk_forward(int l, const int* pos, int n, S* x) const override { layers_.at(l)->qk_forward(0, pos, n, x); }
  void qk_backward(int l, const int* pos, int n, S* dx) const override { layers_.at(l)->qk_backward(0, pos, n, dx); }
  S content_scale(int l) const override { return layers_.at(l)->content_scale(0); }

  bool accepts_frequency_plan() const override { return any([](auto& s) { return s.accepts_frequency_plan(); }); }
  FrequencyPlan plan_for(const std::string& map, int train_len, int read_len, int pass_len = 0) const override {
    for (auto& s : layers_)
      if (s->accepts_frequency_plan()) return s->plan_for(map, train_len, read_len, pass_len);
    return Scheme<S>::plan_for(map, train_len, read_len, pass_len);
  }
  void set_frequency_plan(FrequencyPlan plan) override {
    if (!accepts_frequency_plan()) Scheme<S>::set_frequency_plan(plan);
    for (auto& s : layers_)
      if (s->accepts_frequency_plan()) s->set_frequency_plan(plan);
  }

  size_t tables_size(int l, int span) const override { return layers_.at(l)->tables_size(0, span); }
  void tables_forward(CParamView<S> P, int l, int span, S* tables) const override {
    layers_.at(l)->tables_forward(P, 0, span, tables);
  }
  void tables_backward(CParamView<S> P, ParamView<S> G, int l, int span, const S* tables,
                       const S* dtables) const override {
    layers_.at(l)->tables_backward(P, G, 0, span, tables, dtables);
  }
  void score_forward(CParamView<S> P, const AttnRow<S>& r, S* scores) const override {
    const Scheme<S>& s = *layers_.at(r.layer);
    if (s.acts_on_scores()) s.score_forward(P, as_own(r), scores);
  }
  void score_backward(CParamView<S> P, ParamView<S> G, const AttnRow<S>& r, const S* ds, S* dq,
                      const KeyRows<S>& dkeys, S* dtables) const override {
    const Scheme<S>& s = *layers_.at(r.layer);
    if (s.acts_on_scores()) s.score_backward(P, G, as_own(r), ds, dq, dkeys, dtables);
  }
  bool block_scores(int l) const override {
    return layers_.at(l)->acts_on_scores() && layers_.at(l)->block_scores(0);
  }
  void score_block_forward(CParamView<S> P, const AttnBlock<S>& b, S* scores) const override {
    AttnBlock<S> own = b;
    own.layer = 0;
    layers_.at(b.layer)->score_block_forward(P, own, scores);
  }
  void score_block_backward(CParamView<S> P, ParamView<S> G, const AttnBlock<S>& b, const S* ds, S* dq, S* dk,
                            S* dtables) const override {
    AttnBlock<S> own = b;
    own.layer = 0;
    layers_.at(b.layer)->score_block_backward(P, G, own, ds, dq, dk, dtables);
  }
  bool block_values(int l) const override {
    return layers_.at(l)->acts_on_values() && layers_.at(l)->block_values(0);
  }
  void value_block_forward(CParamView<S> P, const AttnBlock<S>& b, const S* p, size_t ldp, S* out) const override {
    AttnBlock<S> own = b;
    own.layer = 0;
    layers_.at(b.layer)->value_block_forward(P, own, p, ldp, out);
  }
  void value_block_backward(CParamView<S> P, ParamView<S> G, const AttnBlock<S>& b, const S* p, size_t ldp,
                            const S* dout, S* dp) const override {
    AttnBlock<S> own = b;
    own.layer = 0;
    layers_.at(b.layer)->value_block_backward(P, G, own, p, ldp, dout, dp);
  }
  void value_forward(CParamView<S> P, const AttnRow<S>& r, const S* p, S* out) const override {
    const Scheme<S>& s = *layers_.at(r.layer);
    if (s.acts_on_values()) s.value_forward(P, as_own(r), p, out);
  }
  void value_backward(CParamView<S> P, ParamView<S> G, const AttnRow<S>& r, const S* p, const S* dout,
                      S* dp) const override {
    const Scheme<S>& s = *layers_.at(r.layer);
    if (s.acts_on_values()) s.value_backward(P, G, as_own(r), p, dout, dp);
  }

 private:
  template <class F>
  bool any(F f) const {
    for (auto& s : layers_)
      if (f(*s)) return true;
    return false;
  }
  // The row as the layer's own (one-layer) scheme sees it.
  static AttnRow<S> as_own(const AttnRow<S>& r) {
    AttnRow<S> own = r;
    own.layer = 0;
    return own;
  }

  std::vector<std::unique_ptr<Scheme<S>>> layers_;
  std::vector<int> windows_;
};

}  // namespace pe
