// A scheme that passes every hook to another one (the scheme it wraps, whose parameters it declares as
// its own): the base of a scheme changed in one place, the failure lab's faults injected into a trained
// model (harness/faults.h). A subclass overrides the hooks it changes and calls inner() for the rest.
#pragma once
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "schemes/scheme.h"

namespace pe {

template <class S>
class ForwardingScheme : public Scheme<S> {
 public:
  explicit ForwardingScheme(std::unique_ptr<Scheme<S>> inner) : Scheme<S>(inner->config()), in_(std::move(inner)) {}
  Scheme<S>& inner() { return *in_; }
  const Scheme<S>& inner() const { return *in_; }

  std::string name() const override { return in_->name(); }
  void declare(ParamLayout& layout) override { in_->declare(layout); }
  void init(ParamView<S> params, Rng& rng) const override { in_->init(params, rng); }
  int max_position() const override { return in_->max_position(); }
  bool acts_on_embedding() const override { return in_->acts_on_embedding(); }
  bool acts_on_qk() const override { return in_->acts_on_qk(); }
  bool acts_on_scores() const override { return in_->acts_on_scores(); }
  bool acts_on_values() const override { return in_->acts_on_values(); }
  bool contextual_scores() const override { return in_->contextual_scores(); }
  PositionGeometry geometry() const override { return in_->geometry(); }
  bool offsets_only() const override { return in_->offsets_only(); }
  std::string later_keys() const override { return in_->later_keys(); }
  int window(int layer) const override { return in_->window(layer); }
  void embed_forward(CParamView<S> P, const int* pos, int n, S* out) const override {
    in_->embed_forward(P, pos, n, out);
  }
  void embed_backward(CParamView<S> P, ParamView<S> G, const int* pos, int n, const S* dout) const override {
    in_->embed_backward(P, G, pos, n, dout);
  }
  void prepare(int max_pos) override { in_->prepare(max_pos); }
  void prepare_range(int lo, int hi) override { in_->prepare_range(lo, hi); }
  void qk_forward(int layer, Qk side, const int* pos, int n, S* x) const override {
    in_->qk_forward(layer, side, pos, n, x);
  }
  void qk_backward(int layer, Qk side, const int* pos, int n, S* dx) const override {
    in_->qk_backward(layer, side, pos, n, dx);
  }
  S content_scale(int layer) const override { return in_->content_scale(layer); }
  bool accepts_frequency_plan() const override { return in_->accepts_frequency_plan(); }
  FrequencyPlan plan_for(const MapSpec& map, int train_len, int read_len, int pass_len = 0) const override {
    return in_->plan_for(map, train_len, read_len, pass_len);
  }
  void set_frequency_plan(FrequencyPlan plan) override { in_->set_frequency_plan(std::move(plan)); }
  std::vector<FrequencyPlan> frequency_plans() const override { return in_->frequency_plans(); }
  size_t tables_size(int layer, int span) const override { return in_->tables_size(layer, span); }
  void tables_forward(CParamView<S> P, int layer, int span, S* tables) const override {
    in_->tables_forward(P, layer, span, tables);
  }
  void tables_backward(CParamView<S> P, ParamView<S> G, int layer, int span, const S* tables,
                       const S* dtables) const override {
    in_->tables_backward(P, G, layer, span, tables, dtables);
  }
  void score_forward(CParamView<S> P, const AttnRow<S>& r, S* scores) const override {
    in_->score_forward(P, r, scores);
  }
  void score_backward(CParamView<S> P, ParamView<S> G, const AttnRow<S>& r, const S* dscores, S* dq,
                      const KeyRows<S>& dkeys, S* dtables) const override {
    in_->score_backward(P, G, r, dscores, dq, dkeys, dtables);
  }
  bool block_scores(int layer) const override { return in_->block_scores(layer); }
  void score_block_forward(CParamView<S> P, const AttnBlock<S>& b, S* scores) const override {
    in_->score_block_forward(P, b, scores);
  }
  void score_block_backward(CParamView<S> P, ParamView<S> G, const AttnBlock<S>& b, const S* ds, S* dq, S* dk,
                            S* dtables) const override {
    in_->score_block_backward(P, G, b, ds, dq, dk, dtables);
  }
  bool block_values(int layer) const override { return in_->block_values(layer); }
  void value_block_forward(CParamView<S> P, const AttnBlock<S>& b, const S* p, size_t ldp, S* out) const override {
    in_->value_block_forward(P, b, p, ldp, out);
  }
  void value_block_backward(CParamView<S> P, ParamView<S> G, const AttnBlock<S>& b, const S* p, size_t ldp,
                            const S* dout, S* dp) const override {
    in_->value_block_backward(P, G, b, p, ldp, dout, dp);
  }
  void value_forward(CParamView<S> P, const AttnRow<S>& r, const S* p, S* out) const override {
    in_->value_forward(P, r, p, out);
  }
  void value_backward(CParamView<S> P, ParamView<S> G, const AttnRow<S>& r, const S* p, const S* dout,
                      S* dp) const override {
    in_->value_backward(P, G, r, p, dout, dp);
  }

 private:
  std::unique_ptr<Scheme<S>> in_;
};

}  // namespace pe
