// `hybrid`: each layer names its own scheme, visibility and settings (hybrid_layers, one
// "scheme[:window][:key=value]..." per layer). Default: layer 1 `rope` with a sliding window of 64
// keys (ages < 64 only), layer 2 `none` with full causal attention: local order from rotations,
// global retrieval without positions. The window is visibility (a band on the causal mask), never a
// bias; a `none` layer's queries and keys are really unrotated. A layer's scheme sees itself as a
// one-layer scheme: its parameters are named "layerL.pos....", and its settings are the ones its
// entry gives (e.g. rope:64:base=10000, rope:rotary_fraction=0.25:base=1000000), the rest their
// declared defaults (an experiment's own `base`, ... reaches only its non-hybrid schemes). Layer
// schemes may not act on the embedding state (that is added once, before the first layer). RoPE
// layers that turn alike share one frequency plan; layers that differ (their base or rotary
// fraction) each get the plan of the map for their own frequencies (FrequencyPlan::layers).
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/errors.h"
#include "core/keys.h"
#include "core/text.h"
#include "schemes/scheme.h"

namespace pe {

template <class S>
class HybridScheme final : public Scheme<S> {
 public:
  explicit HybridScheme(SchemeConfig cfg) : Scheme<S>(std::move(cfg)) {
    const auto spec = this->cfg_.template setting<std::vector<std::string>>("hybrid_layers");
    if (int(spec.size()) != this->cfg_.n_layers)
      throw ConfigError(
          fmt::format("hybrid_layers lists {} layers but the model has {} (n_layers); give one "
                      "scheme[:window] per layer",
                      spec.size(), this->cfg_.n_layers));
    for (size_t l = 0; l < spec.size(); ++l) {
      const LayerSpec own = parse_layer(spec[l], int(l));
      SchemeConfig sub = this->cfg_;
      sub.name = own.scheme;
      sub.n_layers = 1;
      sub.settings = own.settings;
      try {
        layers_.push_back(make_scheme<S>(sub));
      } catch (const Error& e) {
        throw ConfigError(fmt::format("hybrid_layers: layer {} '{}': {}", l + 1, spec[l], e.what()));
      }
      if (layers_.back()->acts_on_embedding())
        throw ConfigError(
            fmt::format("hybrid_layers: layer {} '{}' acts on the embedding state, which is shared by "
                        "the layers; choose a scheme that acts inside attention",
                        l + 1, spec[l]));
      windows_.push_back(own.window);
    }
  }
  std::string name() const override { return "hybrid"; }
  std::string later_keys() const override { return "each layer's scheme takes its own form"; }
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
  bool offsets_only() const override {
    return !any([](auto& s) { return !s.offsets_only(); });
  }
  bool acts_on_qk() const override {
    return any([](auto& s) { return s.acts_on_qk(); });
  }
  bool acts_on_scores() const override {
    return any([](auto& s) { return s.acts_on_scores(); });
  }
  bool acts_on_values() const override {
    return any([](auto& s) { return s.acts_on_values(); });
  }
  bool contextual_scores() const override {
    return any([](auto& s) { return s.contextual_scores(); });
  }
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
  void qk_forward(int l, Qk side, const int* pos, int n, S* x) const override {
    layers_.at(l)->qk_forward(0, side, pos, n, x);
  }
  void qk_backward(int l, Qk side, const int* pos, int n, S* dx) const override {
    layers_.at(l)->qk_backward(0, side, pos, n, dx);
  }
  S content_scale(int l) const override { return layers_.at(l)->content_scale(0); }

  bool accepts_frequency_plan() const override {
    return any([](auto& s) { return s.accepts_frequency_plan(); });
  }
  FrequencyPlan plan_for(const MapSpec& map, int train_len, int read_len, int pass_len = 0) const override {
    std::vector<FrequencyPlan> own(layers_.size());
    int first = -1;
    bool differ = false;
    for (size_t l = 0; l < layers_.size(); ++l)
      if (layers_[l]->accepts_frequency_plan()) {
        own[l] = layers_[l]->plan_for(map, train_len, read_len, pass_len);
        if (first < 0)
          first = int(l);
        else
          differ = differ || !same_rotation(own[l], own[size_t(first)]);
      }
    if (first < 0) return Scheme<S>::plan_for(map, train_len, read_len, pass_len);
    FrequencyPlan plan = own[size_t(first)];
    if (differ) {
      for (size_t l = 0; l < layers_.size(); ++l)
        if (!layers_[l]->accepts_frequency_plan()) own[l] = FrequencyPlan{}, own[l].name = map;
      plan.layers = std::move(own);
    }
    return plan;
  }
  void set_frequency_plan(FrequencyPlan plan) override {
    if (!accepts_frequency_plan()) Scheme<S>::set_frequency_plan(plan);
    if (!plan.layers.empty() && plan.layers.size() != layers_.size())
      throw Error(
          fmt::format("a frequency plan for {} layers given to a hybrid of {}", plan.layers.size(), layers_.size()));
    for (size_t l = 0; l < layers_.size(); ++l)
      if (layers_[l]->accepts_frequency_plan())
        layers_[l]->set_frequency_plan(plan.layers.empty() ? plan : plan.layers[l]);
  }

  std::vector<FrequencyPlan> frequency_plans() const override {
    if (!accepts_frequency_plan()) return {};
    std::vector<FrequencyPlan> plans;
    for (auto& layer : layers_) {
      const auto own = layer->frequency_plans();
      plans.push_back(own.empty() ? FrequencyPlan{} : own.front());
    }
    return plans;
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
  void score_backward(CParamView<S> P, ParamView<S> G, const AttnRow<S>& r, const S* ds, S* dq, const KeyRows<S>& dkeys,
                      S* dtables) const override {
    const Scheme<S>& s = *layers_.at(r.layer);
    if (s.acts_on_scores()) s.score_backward(P, G, as_own(r), ds, dq, dkeys, dtables);
  }
  bool block_scores(int l) const override { return layers_.at(l)->acts_on_scores() && layers_.at(l)->block_scores(0); }
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
  void score_block_backward_in_place(CParamView<S> P, ParamView<S> G, const AttnBlock<S>& b, S* ds, S* dq, S* dk,
                                     S* dtables) const override {
    AttnBlock<S> own = b;
    own.layer = 0;
    layers_.at(b.layer)->score_block_backward_in_place(P, G, own, ds, dq, dk, dtables);
  }
  bool block_values(int l) const override { return layers_.at(l)->acts_on_values() && layers_.at(l)->block_values(0); }
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
  struct LayerSpec {
    std::string scheme;
    int window = 0;
    nlohmann::json settings = nlohmann::json::object();
  };
  // "scheme[:window][:key=value]...": the window (visible ages < window; 0: full causal) and any
  // single-valued setting the layer's scheme declares, in any order after the name.
  static LayerSpec parse_layer(const std::string& entry, int l) {
    auto fail = [&](const std::string& what) {
      return ConfigError(
          fmt::format("hybrid_layers: layer {} '{}': {} (write e.g. rope:64:base=10000)", l + 1, entry, what));
    };
    const std::vector<std::string> parts = split(entry, ':');
    LayerSpec out;
    out.scheme = parts.empty() ? "" : parts[0];
    if (out.scheme.empty()) throw fail("no scheme named");
    if (out.scheme == "hybrid") throw fail("a layer cannot itself be a hybrid");
    const SchemeInfo* info = nullptr;
    try {
      info = &scheme_info(out.scheme);
    } catch (const UsageError& e) {
      throw fail(e.what());  // names the unknown scheme and lists the known ones
    }
    bool windowed = false;
    for (size_t i = 1; i < parts.size(); ++i) {
      const std::string& part = parts[i];
      const auto eq = part.find('=');
      if (eq == std::string::npos) {
        long long w = 0;
        if (!parse_int(part, w) || w < 0 || w > (1 << 20)) throw fail(fmt::format("bad window '{}'", part));
        if (windowed) throw fail("two windows");
        windowed = true;
        out.window = int(w);
        continue;
      }
      const std::string key = part.substr(0, eq), text = part.substr(eq + 1);
      const KeySpec* spec = nullptr;
      for (auto& k : info->keys)
        if (k.key == key) spec = &k;
      if (!spec) {
        std::string own;
        for (auto& k : info->keys) own += (own.empty() ? "" : ", ") + k.key;
        throw fail(fmt::format("{} has no setting '{}' ({})", out.scheme, key,
                               own.empty() ? "it has no settings" : "its settings: " + own));
      }
      if (spec->type == KeyType::IntList || spec->type == KeyType::FloatList || spec->type == KeyType::StringList)
        throw fail(fmt::format("'{}' is a list, and a layer's setting takes one value", key));
      if (out.settings.contains(key)) throw fail(fmt::format("'{}' given twice", key));
      const std::optional<nlohmann::json> v = parse_key_text(spec->type, text);
      if (!v) throw fail(fmt::format("'{}' is not {}", text, type_name(spec->type)));
      check_key_value(*spec, *v, fmt::format("hybrid_layers layer {}", l + 1));
      out.settings[key] = *v;
    }
    return out;
  }

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
