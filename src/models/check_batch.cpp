#include "models/check_batch.h"

#include <fmt/format.h>

#include <algorithm>

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

// The rows of the modes. Each sequence differs from the others (where its documents split, how much of it
// is PAD, where it starts), so per-sequence coordinates are exercised; at least one token of each is content.

// Where sequence b's second document starts (packed): T/2, T/3, 3T/4, T/5; T = 1: no second document.
int split_at(int b, int T) {
  static const int num[] = {1, 1, 3, 1}, den[] = {2, 3, 4, 5};
  return std::clamp(T * num[b % 4] / den[b % 4], 1, std::max(1, T - 1));
}
// How many of sequence b's tokens are PAD: T/4, none, T/2, 1 (at most T - 1).
int pads_of(int b, int T) {
  const int n[] = {T / 4, 0, T / 2, 1};
  return std::clamp(n[b % 4], 0, T - 1);
}

void whole(int, int T, int* pos, int* doc) {
  for (int t = 0; t < T; ++t) pos[t] = t, doc[t] = 0;
}
void packed_reset(int b, int T, int* pos, int* doc) {
  const int s = split_at(b, T);
  for (int t = 0; t < T; ++t) pos[t] = t < s ? t : t - s, doc[t] = t < s ? 0 : 1;
}
void packed_global(int b, int T, int* pos, int* doc) {
  const int s = split_at(b, T);
  for (int t = 0; t < T; ++t) pos[t] = t, doc[t] = t < s ? 0 : 1;
}
// PAD tokens first (left) or last, positions counted over the content (PAD tokens at 0) or over storage.
template <bool left, bool content>
void padded(int b, int T, int* pos, int* doc) {
  const int P = pads_of(b, T), first = left ? P : 0;  // the content's first row
  for (int t = 0; t < T; ++t) {
    const bool pad = left ? t < P : t >= T - P;
    doc[t] = pad ? kPadDocument : 0;
    pos[t] = !content ? t : pad ? 0 : t - first;
  }
}
void offset(int b, int T, int* pos, int* doc) {
  static const int p0[] = {3, 1, 8, 5};
  for (int t = 0; t < T; ++t) pos[t] = p0[b % 4] + t, doc[t] = 0;
}

// Sequence b's query row: T/2, 1, 3T/4, T/3 (mid-sequence, and one with a single key before it); T = 1: row 0.
int query_row(int b, int T) {
  const int r[] = {T / 2, 1, 3 * T / 4, T / 3};
  return std::clamp(r[b % 4], 0, T - 1);
}

using Sight = CheckMode::Sight;
const std::vector<CheckMode> kCheckModes = {
    {"causal", "positions 0 .. T-1, one document, causal (the default batch)", Sight::Model, nullptr, nullptr},
    {"bidirectional", "positions 0 .. T-1, one document, every key visible (a model made bidirectional)",
     Sight::Bidirectional, whole, nullptr},
    {"prefix", "positions 0 .. T-1, one document, keys below T/4 seen by every query (a model made bidirectional)",
     Sight::Prefix, whole, nullptr},
    {"packed-reset", "two documents per sequence (split at T/2, T/3, 3T/4, T/5), positions restarting at each",
     Sight::Model, packed_reset, nullptr},
    {"packed-global", "two documents per sequence (split as packed-reset), positions 0 .. T-1 across them",
     Sight::Model, packed_global, nullptr},
    {"pad-left-content", "T/4, 0, T/2, 1 PAD tokens before the content; positions count content (PAD at 0)",
     Sight::Model, padded<true, true>, nullptr},
    {"pad-left-storage", "T/4, 0, T/2, 1 PAD tokens before the content; positions count storage rows", Sight::Model,
     padded<true, false>, nullptr},
    {"pad-right-content", "T/4, 0, T/2, 1 PAD tokens after the content; positions count content (PAD at 0)",
     Sight::Model, padded<false, true>, nullptr},
    {"pad-right-storage", "T/4, 0, T/2, 1 PAD tokens after the content; positions count storage rows", Sight::Model,
     padded<false, false>, nullptr},
    {"offset", "each sequence at its own first position p0 = 3, 1, 8, 5 (a decode step's cache position)", Sight::Model,
     offset, nullptr},
    {"query-rows",
     "positions 0 .. T-1, one document; a head read at a row of each sequence's own, T/2, 1, 3T/4, T/3 (its query "
     "token there), with the keys its visibility shows",
     Sight::Model, nullptr, query_row},
};

}  // namespace

const std::vector<CheckMode>& check_modes() { return kCheckModes; }

std::string check_mode_names() {
  std::string s;
  for (auto& m : kCheckModes) s += (s.empty() ? "" : ", ") + std::string(m.name);
  return s;
}

const CheckMode& check_mode(const std::string& name) {
  for (auto& m : kCheckModes)
    if (name == m.name) return m;
  throw UsageError(fmt::format("--coordinates {}: not a batch mode (one of {})", name, check_mode_names()));
}

nlohmann::json CheckCoordinates::visibility_json() const {
  if (!vis.causal) return "bidirectional";
  if (vis.prefix > 0) return nlohmann::json::array({"prefix", vis.prefix});
  return "causal";
}

CheckCoordinates check_coordinates(const std::string& name, int B, int T, bool bidirectional) {
  const CheckMode& m = check_mode(name);
  CheckCoordinates c;
  c.mode = m.name;
  c.vis = m.sight == Sight::Bidirectional ? Visibility::bidirectional()
          : m.sight == Sight::Prefix      ? Visibility::prefix_lm(std::max(1, T / 4))
          : bidirectional                 ? Visibility::bidirectional()
                                          : Visibility{};
  if (m.sight == Sight::Model && !m.row && !m.query_row && bidirectional)
    throw UsageError(
        fmt::format("--coordinates {}: this model was made for bidirectional or prefix visibility; read "
                    "it with --coordinates bidirectional or prefix",
                    name));
  if (m.sight != Sight::Model && !bidirectional)
    throw UsageError(
        fmt::format("--coordinates {}: this model was made for causal visibility; a batch that shows a "
                    "query later keys needs a model made for bidirectional or prefix visibility",
                    name));
  if (m.row) {
    c.pos.resize(size_t(B) * T), c.doc.resize(size_t(B) * T);
    for (int b = 0; b < B; ++b) m.row(b, T, c.pos.data() + size_t(b) * T, c.doc.data() + size_t(b) * T);
  }
  if (m.query_row)
    for (int b = 0; b < B; ++b) c.query_rows.push_back(m.query_row(b, T));
  return c;
}

CheckBatch check_block_stack(BlockStack<float>& model, int B, int T, uint64_t seed, const std::string& mode) {
  if (check_mode(mode).query_row)
    throw UsageError(
        fmt::format("--coordinates {}: a block stack answers at every row; a query row of each "
                    "sequence's own is a head's reading",
                    mode));
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
  c.at = check_coordinates(mode, B, T, model.scheme().config().bidirectional);
  int last = T - 1;  // the largest position read
  if (!c.at.pos.empty()) last = *std::max_element(c.at.pos.begin(), c.at.pos.end());
  if (!model.scheme().can_read(last))
    throw UsageError(
        fmt::format("--coordinates {} at --length {}: position {} is past the {} model's table (positions "
                    "0 .. {}); lower --length to {}",
                    mode, T, last, model.scheme().name(), model.scheme().max_position(),
                    T - (last - model.scheme().max_position())));
  Rng rng(stream_key({kTagCheck, kCheckBatchStream, seed}));
  c.tokens.resize(size_t(B) * T), c.targets.resize(size_t(B) * T);
  for (size_t i = 0; i < c.tokens.size(); ++i) c.tokens[i] = rng.below(V), c.targets[i] = rng.below(V);
  model.prepare(std::max(T, last + 1));  // ages up to T - 1 (storage rows) and every position
  std::vector<float> grad(model.layout().total(), 0.0f);
  BlockStackCache<float> cache;
  const TokenCoordinates at{c.at.pos.empty() ? nullptr : c.at.pos.data(), c.at.doc.empty() ? nullptr : c.at.doc.data()};
  c.loss =
      model.forward_backward(c.tokens.data(), c.targets.data(), B, T, grad.data(), cache, 0, c.at.vis, 0, nullptr, &at);
  c.logits = cache.logits;
  c.logits_shape = {B, T, V};
  c.grads = split_grads(model.layout(), grad);
  return c;
}

CheckBatch check_cue_head(CueHead<float>& model, int B, int T, bool every_position, uint64_t seed,
                          const std::string& mode) {
  const CheckMode& m = check_mode(mode);
  if (m.row)
    throw UsageError(
        fmt::format("--coordinates {}: a head's check batch takes no per-token positions or documents", mode));
  if (m.query_row && every_position)
    throw UsageError(
        fmt::format("--coordinates {}: this head answers at every position, not at one row per sequence", mode));
  const CueTaskConfig& task = model.config().task;
  const int content = 2 * task.alphabet, classes = task.alphabet;
  {  // a head answering at every position keeps B x T x T probabilities (and their gradient)
    const double N = double(B) * T, D = model.config().d_model;
    const double floats = (every_position ? 2 * N * T : 2 * N) + 12 * N * D + 3 * N * classes;
    check_memory(4 * floats, fmt::format("a check batch of {} sequences of {} tokens", B, T), "lower --length");
  }
  CheckBatch c;
  c.B = B, c.T = T;
  if (m.query_row) c.at = check_coordinates(mode, B, T, model.scheme().config().bidirectional);
  Rng rng(stream_key({kTagCheck, kCheckBatchStream, seed}));
  c.tokens.resize(size_t(B) * T);
  for (size_t i = 0; i < c.tokens.size(); ++i) c.tokens[i] = rng.below(content);
  if (task.query_token)
    for (int b = 0; b < B; ++b)
      c.tokens[size_t(b) * T + (c.at.query_rows.empty() ? T - 1 : c.at.query_rows[b])] = task.query_token_id();
  c.targets.resize(every_position ? size_t(B) * T : size_t(B));
  for (auto& t : c.targets) t = rng.below(classes);
  model.prepare(T);
  std::vector<float> grad(model.layout().total(), 0.0f);
  CueWorkspace<float> ws;
  ws.query_rows = c.at.query_rows.empty() ? nullptr : c.at.query_rows.data();
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
