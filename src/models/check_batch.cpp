#include "models/check_batch.h"

#include <fmt/format.h>

#include "core/errors.h"
#include "core/memory.h"
#include "core/rng.h"

namespace pe {

namespace {

constexpr uint64_t kCheckBatchStream = 28;  // the check batch's own stream under kTagCheck

std::vector<NamedTensor> split_grads(const ParamLayout& layout, const std::vector<float>& grad) {
  std::vector<NamedTensor> out;
  for (auto& t : layout.tensors())
    out.push_back({t.name,
                   {t.rows, t.cols},
                   std::vector<float>(grad.begin() + long(t.offset), grad.begin() + long(t.offset + t.size()))});
  return out;
}

}  // namespace

CheckBatch check_block_stack(BlockStack<float>& model, int B, int T, uint64_t seed, const Visibility& vis) {
  const int V = model.config().vocab;
  {  // the batch runs whole: every block keeps its B x heads x T x T probabilities (measured: 8.9 GB for
     // the char LM's 2 blocks of 4 heads, 4 sequences of 8,192 tokens, against 8.6 GB of probabilities)
    const BlockStackConfig& c = model.config();
    const double N = double(B) * T, L = c.n_layers, D = c.d_model;
    const double floats = L * B * c.n_heads * double(T) * T + 12 * (L + 1) * N * D + 3 * N * V;
    check_memory(4 * floats, fmt::format("a check batch of {} sequences of {} tokens", B, T), "lower --length");
  }
  CheckBatch c;
  c.B = B, c.T = T;
  Rng rng(stream_key({kTagCheck, kCheckBatchStream, seed}));
  c.tokens.resize(size_t(B) * T), c.targets.resize(size_t(B) * T);
  for (size_t i = 0; i < c.tokens.size(); ++i) c.tokens[i] = rng.below(V), c.targets[i] = rng.below(V);
  model.prepare(T);
  std::vector<float> grad(model.layout().total(), 0.0f);
  BlockStackCache<float> cache;
  c.loss = model.forward_backward(c.tokens.data(), c.targets.data(), B, T, grad.data(), cache, 0, vis);
  c.logits = cache.logits;
  c.logits_shape = {B, T, V};
  c.grads = split_grads(model.layout(), grad);
  return c;
}

CheckBatch check_cue_head(CueHead<float>& model, int B, int T, bool every_position, uint64_t seed) {
  const CueTaskConfig& task = model.config().task;
  const int content = 2 * task.alphabet, classes = task.alphabet;
  {  // a head answering at every position keeps B x T x T probabilities (and their gradient)
    const double N = double(B) * T, D = model.config().d_model;
    const double floats = (every_position ? 2 * N * T : 2 * N) + 12 * N * D + 3 * N * classes;
    check_memory(4 * floats, fmt::format("a check batch of {} sequences of {} tokens", B, T), "lower --length");
  }
  CheckBatch c;
  c.B = B, c.T = T;
  Rng rng(stream_key({kTagCheck, kCheckBatchStream, seed}));
  c.tokens.resize(size_t(B) * T);
  for (size_t i = 0; i < c.tokens.size(); ++i) c.tokens[i] = rng.below(content);
  if (task.query_token)
    for (int b = 0; b < B; ++b) c.tokens[size_t(b) * T + T - 1] = task.query_token_id();
  c.targets.resize(every_position ? size_t(B) * T : size_t(B));
  for (auto& t : c.targets) t = rng.below(classes);
  model.prepare(T);
  std::vector<float> grad(model.layout().total(), 0.0f);
  CueWorkspace<float> ws;
  const BatchStats st = model.forward_backward(c.tokens.data(), c.targets.data(), B, T, long(c.targets.size()),
                                               grad.data(), ws, 0, every_position);
  c.loss = st.loss_sum / double(st.queries);
  c.logits = ws.logits;
  c.logits_shape = every_position ? std::vector<int64_t>{B, T, classes} : std::vector<int64_t>{B, classes};
  c.grads = split_grads(model.layout(), grad);
  return c;
}

nlohmann::json frequency_plan_json(const FrequencyPlan& plan) {
  nlohmann::json j = {
      {"map", plan.name}, {"kappa", plan.kappa}, {"theta", plan.theta}, {"logit_scale", plan.logit_scale}};
  if (plan.warp_factor > 0) j["warp_window"] = plan.warp_window, j["warp_factor"] = plan.warp_factor;
  if (!plan.layers.empty()) {  // a hybrid whose RoPE layers turn differently: each layer's own (null: none)
    j["layers"] = nlohmann::json::array();
    for (auto& l : plan.layers) j["layers"].push_back(l.theta.empty() ? nlohmann::json() : frequency_plan_json(l));
  }
  return j;
}

nlohmann::json read_for_check(Scheme<float>& scheme, const MapSpec& map, int train_len, int plan_len, int length) {
  if (!scheme.can_read(length - 1))
    throw UsageError(fmt::format("--length {}: the {} model has no position past {} (its table's last row)", length,
                                 scheme.name(), scheme.max_position()));
  nlohmann::json j = {{"map", map}, {"length", length}, {"train_length", train_len}};
  if (!scheme.accepts_frequency_plan())
    scheme.read_with(map, train_len, plan_len);  // refuses any map but none
  else {
    FrequencyPlan plan = scheme.plan_for(map, train_len, plan_len);  // made once: set, and stated
    j["frequency_plan"] = frequency_plan_json(plan);
    scheme.set_frequency_plan(std::move(plan));
    j["frequency_plan"]["read_length"] = plan_len;
    j["head_dim"] = scheme.config().d_head;
    j["base"] = scheme.config().settings.value("base", 10000.0);
  }
  return j;
}

}  // namespace pe
