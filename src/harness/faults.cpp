// The failure lab's faults (harness/faults.h): one entry each, with the reading or scheme wrapper that
// injects it. docs/failures.md has each fault's measured cost beside these words.
#include "harness/faults.h"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <utility>

#include <fmt/format.h>

#include "core/errors.h"
#include "schemes/forwarding.h"
#include "schemes/frequency_maps.h"

namespace pe {

namespace {

void need_coordinates(DoctorModel& m, const std::string& fault) {
  if (!m.takes_coordinates())
    throw UsageError(fmt::format("the fault {} reads per-token positions, which a {} does not take", fault, m.kind()));
}

// Prepends `pad(T)` tokens to every sequence and drops their rows from the logits: PAD (token 0) or one fixed
// document of the model's tokens, the same whatever the batch holds; positions and documents of the whole as
// `lay` writes them.
class Prepended final : public FaultyReading {
 public:
  // lay(batch with the prefix, prefix length, the original batch): sets pos and doc of the longer batch
  using Lay = std::function<void(DoctorBatch&, int, const DoctorBatch&)>;
  Prepended(std::unique_ptr<DoctorModel> inner, std::function<int(int)> pad, bool pad_token, Lay lay, std::string name)
      : FaultyReading(std::move(inner)),
        pad_(std::move(pad)),
        pad_token_(pad_token),
        lay_(std::move(lay)),
        name_(std::move(name)) {}
  std::vector<float> logits(const DoctorBatch& b) override {
    need_coordinates(*in_, name_);
    if (!b.doc.empty()) {  // a batch laid out already (the doctor's packed and padded cases): relaid only
      DoctorBatch c = b;
      lay_(c, 0, b);
      return in_->logits(c);
    }
    const int P = pad_(b.T), T = b.T + P, V = width();
    DoctorBatch c;
    c.B = b.B, c.T = T, c.p0 = 0;
    c.tokens.assign(size_t(b.B) * T, 0);
    for (int i = 0; i < b.B; ++i) {  // the prefix: token 0 (PAD), or a fixed document of the model's tokens
      for (int t = 0; t < P; ++t) c.tokens[size_t(i) * T + t] = pad_token_ ? 0 : (5 * t + 3) % symbols();
      std::copy_n(b.tokens.data() + size_t(i) * b.T, b.T, c.tokens.data() + size_t(i) * T + P);
    }
    lay_(c, P, b);
    const std::vector<float> all = in_->logits(c);
    std::vector<float> out(size_t(b.B) * b.T * V);
    for (int i = 0; i < b.B; ++i)
      std::memcpy(out.data() + size_t(i) * b.T * V, all.data() + (size_t(i) * T + P) * V, sizeof(float) * b.T * V);
    return out;
  }

 private:
  std::function<int(int)> pad_;
  bool pad_token_;
  Lay lay_;
  std::string name_;
};

// The scheme's added code added a second time (in the model and again in the reading code).
class CodeTwice final : public ForwardingScheme<float> {
 public:
  using ForwardingScheme::ForwardingScheme;
  void embed_forward(CParamView<float> P, const int* pos, int n, float* out) const override {
    inner().embed_forward(P, pos, n, out);
    inner().embed_forward(P, pos, n, out);
  }
};

// Every position hook made a no-op: the trained model read with its explicit positions deleted (what it
// declares, and what the doctor expects of it, unchanged).
class PositionsDeleted final : public ForwardingScheme<float> {
 public:
  using ForwardingScheme::ForwardingScheme;
  void embed_forward(CParamView<float>, const int*, int, float*) const override {}
  void qk_forward(int, Qk, const int*, int, float*) const override {}
  size_t tables_size(int, int) const override { return 0; }
  void tables_forward(CParamView<float>, int, int, float*) const override {}
  void score_forward(CParamView<float>, const AttnRow<float>&, float*) const override {}
  bool block_scores(int) const override { return false; }
  bool block_values(int) const override { return false; }
  void value_forward(CParamView<float>, const AttnRow<float>&, const float*, float*) const override {}
};

// Whether a scheme derives tables in any layer (position terms its hooks read by offset, not by position).
bool has_tables(const Scheme<float>& s) {
  for (int l = 0; l < s.config().n_layers; ++l)
    if (s.tables_size(l, 2) > 0) return true;
  return false;
}

// A scheme's position hooks (embedding, Q/K transform, row scores) handed positions a rule rewrote, the mask still
// reading the true ones: what a reading does whose position ids are wrong while its attention mask is right. A
// rule that can decrease (a wrap, a reset) would put a row's keys out of order, which row score hooks may not be
// given (AttnRow: keys ascending): it is refused for a scheme with score hooks, and so is a scheme with value
// hooks or derived tables in any layer (they would read the true positions).
class PositionsRead final : public ForwardingScheme<float> {
 public:
  using Rule = std::function<int(int pos, int train)>;
  PositionsRead(std::unique_ptr<Scheme<float>> inner, Rule f, bool increasing)
      : ForwardingScheme(std::move(inner)), f_(std::move(f)) {
    if (this->inner().acts_on_values() || has_tables(this->inner()))
      throw UsageError(name() +
                       " reads positions in its value hooks or derived tables; this fault rewrites the "
                       "embedding's, the Q/K transform's and the row scores' only");
    if (this->inner().acts_on_scores() && !increasing)
      throw UsageError(name() +
                       " reads positions in its score hooks, whose keys must stay in order; this fault's "
                       "positions wrap");
  }
  bool block_scores(int) const override { return false; }
  void score_forward(CParamView<float> P, const AttnRow<float>& r, float* scores) const override {
    const std::vector<int> kpos = read(r.kpos, r.nk);
    AttnRow<float> m = r;
    m.qpos = f_(r.qpos, config().train_length), m.kpos = kpos.data();
    inner().score_forward(P, m, scores);
  }
  void embed_forward(CParamView<float> P, const int* pos, int n, float* out) const override {
    inner().embed_forward(P, read(pos, n).data(), n, out);
  }
  void embed_backward(CParamView<float> P, ParamView<float> G, const int* pos, int n, const float* d) const override {
    inner().embed_backward(P, G, read(pos, n).data(), n, d);
  }
  void qk_forward(int layer, Qk side, const int* pos, int n, float* x) const override {
    inner().qk_forward(layer, side, read(pos, n).data(), n, x);
  }
  void qk_backward(int layer, Qk side, const int* pos, int n, float* dx) const override {
    inner().qk_backward(layer, side, read(pos, n).data(), n, dx);
  }
  void prepare(int max_pos) override { inner().prepare(largest(max_pos)); }
  void prepare_range(int, int hi) override { inner().prepare(largest(hi)); }

 private:
  std::vector<int> read(const int* pos, int n) const {
    std::vector<int> out(pos, pos + n);
    for (int& p : out) p = f_(p, config().train_length);
    return out;
  }
  int largest(int max_pos) const {
    int m = 0;
    for (int p = 0; p <= max_pos; ++p) m = std::max(m, f_(p, config().train_length));
    return m;
  }
  Rule f_;
};

// Every offset read with its sign flipped (j - i where training read i - j): each score and value hook sees
// its keys mirrored about the query (key position k read as 2q - k, the keys' order reversed so that their
// positions ascend). For schemes whose row hooks read positions and the query, not the keys (ALiBi, T5, Shaw).
class OffsetsFlipped final : public ForwardingScheme<float> {
 public:
  explicit OffsetsFlipped(std::unique_ptr<Scheme<float>> inner) : ForwardingScheme(std::move(inner)) {
    if (this->inner().acts_on_qk() || this->inner().acts_on_embedding() || has_tables(this->inner()))
      throw UsageError(name() + " reads positions outside its row score hooks; this fault flips those only");
  }
  bool block_scores(int) const override { return false; }
  bool block_values(int) const override { return false; }
  void score_forward(CParamView<float> P, const AttnRow<float>& r, float* scores) const override {
    std::vector<int> kpos;
    const AttnRow<float> m = mirrored(r, kpos);
    std::vector<float> s(size_t(r.nk), 0.0f);
    inner().score_forward(P, m, s.data());
    for (int t = 0; t < r.nk; ++t) scores[t] += s[size_t(r.nk - 1 - t)];
  }
  void value_forward(CParamView<float> P, const AttnRow<float>& r, const float* p, float* out) const override {
    std::vector<int> kpos;
    const AttnRow<float> m = mirrored(r, kpos);
    const std::vector<float> reversed(std::make_reverse_iterator(p + r.nk), std::make_reverse_iterator(p));
    inner().value_forward(P, m, reversed.data(), out);
  }

 private:
  static AttnRow<float> mirrored(const AttnRow<float>& r, std::vector<int>& kpos) {
    kpos.resize(size_t(r.nk));
    for (int t = 0; t < r.nk; ++t) kpos[size_t(t)] = 2 * r.qpos - r.kpos[r.nk - 1 - t];
    AttnRow<float> m = r;
    m.kpos = kpos.data();
    return m;
  }
};

// The scheme's encoder form (made for a visibility that shows later keys: T5's two-sided buckets, ALiBi's
// symmetric bias) read by the causal model it was not trained as: the encoder scheme built from the causal
// one's settings declares the same tensors, and the model still reads causally (what it declares stays causal).
class EncoderForm final : public ForwardingScheme<float> {
 public:
  explicit EncoderForm(std::unique_ptr<Scheme<float>> causal) : ForwardingScheme(encoder_of(*causal)) {
    this->cfg_.bidirectional = false;
  }

 private:
  static std::unique_ptr<Scheme<float>> encoder_of(const Scheme<float>& s) {
    SchemeConfig c = s.config();
    c.bidirectional = true;
    return make_scheme<float>(c);
  }
};

// The causal mask replaced by a finite bias: the kernels are told every key is visible (what an attention call
// without its mask argument computes) and each score of a key after its query gets kFiniteMask added, BERT's
// extended attention mask of -10000. The scheme's own score hooks read every key as they are given them, so it
// must read offsets of both signs: a scheme with derived tables (indexed by age) or value hooks is refused.
class FiniteBiasMask final : public ForwardingScheme<float> {
 public:
  static constexpr float kFiniteMask = -10000.0f;
  explicit FiniteBiasMask(std::unique_ptr<Scheme<float>> inner) : ForwardingScheme(std::move(inner)) {
    if (this->inner().config().bidirectional)
      throw UsageError(name() + " is read with later keys visible already; this fault replaces a causal mask");
    if (this->inner().acts_on_values() || has_tables(this->inner()))
      throw UsageError(name() +
                       " reads offsets in its value hooks or derived tables, which end at the causal ones; this "
                       "fault hands its score hooks later keys");
    this->cfg_.bidirectional = true;  // what the kernels are told
  }
  bool acts_on_scores() const override { return true; }
  bool block_scores(int) const override { return false; }
  // The inner hooks only where the inner scheme acts on scores: a hook is called only then (scheme.h), and RoPE's
  // reads its warp plan, which an unwarped RoPE does not hold (calling it regardless crashes).
  void score_forward(CParamView<float> P, const AttnRow<float>& r, float* scores) const override {
    if (inner().acts_on_scores()) inner().score_forward(P, r, scores);
    for (int t = 0; t < r.nk; ++t)
      if (r.kpos[t] > r.qpos) scores[t] += kFiniteMask;
  }
  void score_backward(CParamView<float> P, ParamView<float> G, const AttnRow<float>& r, const float* dscores, float* dq,
                      const KeyRows<float>& dkeys, float* dtables) const override {
    if (inner().acts_on_scores()) inner().score_backward(P, G, r, dscores, dq, dkeys, dtables);
  }
};

// The model as it declares itself (causal) while its kernels read the scheme wrapper that the fault put in it.
class DeclaredCausal final : public FaultyReading {
 public:
  using FaultyReading::FaultyReading;
  bool bidirectional() override { return false; }
};

// Weights written for RoPE's interleaved pairs (2j, 2j+1) read with Transformers' split-half convention
// (rotate_half: the pairs (j, j + d_head/2)): each head's dimensions gathered so that the split-half pair j
// becomes the interleaved pair j, turned, and scattered back.
class SplitHalfPairs final : public ForwardingScheme<float> {
 public:
  using ForwardingScheme::ForwardingScheme;
  void qk_forward(int layer, Qk side, const int* pos, int n, float* x) const override {
    std::vector<float> y = gathered(x, n);
    inner().qk_forward(layer, side, pos, n, y.data());
    scatter(y, n, x);
  }
  void qk_backward(int layer, Qk side, const int* pos, int n, float* dx) const override {
    std::vector<float> y = gathered(dx, n);
    inner().qk_backward(layer, side, pos, n, y.data());
    scatter(y, n, dx);
  }

 private:
  // y[2j] = x[j], y[2j+1] = x[j + dh/2] within each head of each row
  std::vector<float> gathered(const float* x, int n) const {
    const int H = config().n_heads, dh = config().d_head, half = dh / 2;
    std::vector<float> y(size_t(n) * H * dh);
    for (size_t r = 0; r < size_t(n) * H; ++r)
      for (int j = 0; j < half; ++j) y[r * dh + 2 * j] = x[r * dh + j], y[r * dh + 2 * j + 1] = x[r * dh + j + half];
    return y;
  }
  void scatter(const std::vector<float>& y, int n, float* x) const {
    const int H = config().n_heads, dh = config().d_head, half = dh / 2;
    for (size_t r = 0; r < size_t(n) * H; ++r)
      for (int j = 0; j < half; ++j) x[r * dh + j] = y[r * dh + 2 * j], x[r * dh + j + half] = y[r * dh + 2 * j + 1];
  }
};

// Each query and key row turned under the plan `plan_at` gives for its position: what a cache computes whose
// keys keep the plan they entered under while later tokens turn under another (a dynamic map's stale keys, a
// prefix cache reused under another map). A row's query and key are made in the same step, so they share its
// plan, and the later rows of a full forward read the earlier rows' keys as the cache holds them: the full
// forward equals the cache decoding one token at a time (tests/test_faults.cpp). A plan must keep the content
// score's scale (a per-row scale is no Q/K transform), and the scheme must turn queries and keys only.
class PlanByPosition final : public ForwardingScheme<float> {
 public:
  using PlanAt = std::function<FrequencyPlan(const Scheme<float>&, int position)>;
  PlanByPosition(std::unique_ptr<Scheme<float>> inner, PlanAt at) : ForwardingScheme(std::move(inner)), at_(at) {
    if (!this->inner().accepts_frequency_plan() || this->inner().acts_on_scores() || this->inner().acts_on_values() ||
        this->inner().acts_on_embedding())
      throw UsageError(name() + " does not turn queries and keys by a frequency plan alone; this fault re-plans those");
  }
  void qk_forward(int layer, Qk side, const int* pos, int n, float* x) const override {
    turn(layer, side, pos, n, x, false);
  }
  void qk_backward(int layer, Qk side, const int* pos, int n, float* dx) const override {
    turn(layer, side, pos, n, dx, true);
  }

 private:
  // the rows of one position share a plan: one scheme per position of the call (thread-safe: nothing shared)
  void turn(int layer, Qk side, const int* pos, int n, float* x, bool back) const {
    const size_t W = size_t(config().n_heads) * config().d_head;
    std::vector<int> order(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) order[size_t(i)] = i;
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return pos[a] < pos[b]; });
    std::vector<float> rows;
    std::vector<int> at;
    for (size_t i = 0; i < order.size();) {
      const int p = pos[order[i]];
      size_t j = i;
      rows.clear(), at.clear();
      for (; j < order.size() && pos[order[j]] == p; ++j)
        rows.insert(rows.end(), x + size_t(order[j]) * W, x + size_t(order[j] + 1) * W), at.push_back(p);
      const FrequencyPlan plan = at_(inner(), p);
      if (plan.logit_scale != 1.0 || plan.warp_factor > 0)
        throw UsageError(
            fmt::format("the plan at position {} scales or warps the scores; this fault re-plans the "
                        "rotation only",
                        p));
      const auto s = make_scheme<float>(config());
      s->set_frequency_plan(plan);
      s->prepare_range(p, p);
      const int m = int(at.size());
      if (back)
        s->qk_backward(layer, side, at.data(), m, rows.data());
      else
        s->qk_forward(layer, side, at.data(), m, rows.data());
      for (size_t k = i; k < j; ++k) std::copy_n(rows.data() + (k - i) * W, W, x + size_t(order[k]) * W);
      i = j;
    }
  }
  PlanAt at_;
};

// The model read under a context-extension map planned for `factor` times the training length, each batch one
// pass of its own length (its last position + 1; a length-dependent map's plan): the correct reading a fault
// inside a map's reading is measured against.
class ReadUnderMap final : public FaultyReading {
 public:
  ReadUnderMap(std::unique_ptr<DoctorModel> inner, const std::string& map, int factor)
      : FaultyReading(std::move(inner)), map_(parse_map(map)), factor_(factor) {}
  std::vector<float> logits(const DoctorBatch& b) override {
    plan(b);
    return in_->logits(b);
  }
  double later_key_share(const DoctorBatch& b) override {
    plan(b);
    return in_->later_key_share(b);
  }

 private:
  void plan(const DoctorBatch& b) {
    const int n = b.pos.empty() ? b.p0 + b.T : *std::max_element(b.pos.begin(), b.pos.end()) + 1;
    scheme().read_with(map_, train_length(), factor_ * train_length(), n);
  }
  MapSpec map_;
  int factor_;
};

template <class Wrapper, class... Args>
std::function<std::unique_ptr<DoctorModel>(std::unique_ptr<DoctorModel>)> in_scheme(Args... args) {
  return [args...](std::unique_ptr<DoctorModel> m) {
    m->wrap_scheme([&](std::unique_ptr<Scheme<float>> s) { return std::make_unique<Wrapper>(std::move(s), args...); });
    return m;
  };
}

// increasing: the rule never maps a later position before an earlier one (a shift, a clamp, a rounding)
std::function<std::unique_ptr<DoctorModel>(std::unique_ptr<DoctorModel>)> positions_read(PositionsRead::Rule f,
                                                                                         bool increasing) {
  return in_scheme<PositionsRead>(std::move(f), increasing);
}

// The integer a 16-bit float holds nearest to p: bfloat16 (8 significant bits) or float16 (11), ties to even.
int rounded_to(int p, int bits) {
  if (p < (1 << bits)) return p;
  int e = 0;
  while ((p >> e) >= (1 << bits)) ++e;
  const int q = p >> e, rem = p - (q << e), half = 1 << (e - 1);
  const int up = rem > half || (rem == half && (q & 1));
  return (q + up) << e;
}

std::vector<FaultInfo> make_faults() {
  using Model = std::unique_ptr<DoctorModel>;
  std::vector<FaultInfo> f;
  f.push_back({1, "code-twice",
               "absolute position added twice: the model adds its code and the reading code adds it again",
               "scheme: the embedding hook adds the code twice", "twin",
               "add the code in one place, with a test that a zero token's embedding is the code once",
               in_scheme<CodeTwice>()});
  f.push_back({2, "positions-deleted",
               "explicit positions removed from a trained model (\"NoPE can work, so delete it\")",
               "scheme: every position hook a no-op (what the checkpoint declares unchanged)", "shift",
               "a model trained with positions is read with them; NoPE is a model trained without",
               in_scheme<PositionsDeleted>()});
  f.push_back({3, "bos-off-by-one",
               "positions off by one after an inserted BOS token: every content token read one position later",
               "scheme: the embedding and Q/K hooks read position p + 1 (the mask reads p)", "twin",
               "count positions the way training counted them, BOS or not, the same on both sides",
               positions_read([](int p, int) { return p + 1; }, true)});
  f.push_back({4, "pad-left-storage",
               "left padding with positions counted over PAD where the model expects content positions",
               "reading: T/4 PAD rows before each sequence (hidden), positions over storage", "pad-left-content",
               "positions over the content (the cumulative sum of the attention mask, minus one)", [](Model m) {
                 return Model(std::make_unique<Prepended>(
                     std::move(m), [](int T) { return T / 4; }, true,
                     [](DoctorBatch& c, int P, const DoctorBatch& b) {
                       c.pos.clear(), c.p0 = b.p0;  // over storage
                       if (P == 0) return;          // a padded batch of the doctor's: its PAD as it marked them
                       c.doc.assign(size_t(c.B) * c.T, 0);
                       for (int i = 0; i < c.B; ++i) std::fill_n(c.doc.data() + size_t(i) * c.T, P, -1);
                     },
                     "pad-left-storage"));
               }});
  f.push_back({5, "mask-positions-disagree",
               "attention mask and positions that disagree: documents packed in a row with positions reset per "
               "document and the mask built from the positions alone (key position <= query position, no "
               "document ids), so each row also sees the other documents' rows at positions up to its own",
               "reading: a fixed document of T/2 tokens before each sequence, positions reset, one document id",
               "packed-reset", "one coordinate record drives both: document ids in the mask wherever positions restart",
               [](Model m) {
                 return Model(std::make_unique<Prepended>(
                     std::move(m), [](int T) { return T / 2; }, false,
                     [](DoctorBatch& c, int P, const DoctorBatch& b) {
                       if (P == 0) {  // the doctor's packed or padded batch: its document ids dropped
                         for (auto& d : c.doc) d = 0;
                         return;
                       }
                       c.doc.assign(size_t(c.B) * c.T, 0);
                       c.pos.resize(size_t(c.B) * c.T);
                       for (int i = 0; i < c.B; ++i)
                         for (int t = 0; t < c.T; ++t) c.pos[size_t(i) * c.T + t] = t < P ? t : b.p0 + t - P;
                     },
                     "mask-positions-disagree"));
               }});
  f.push_back({6, "offset-sign", "i - j in training and j - i in reading: every offset's sign flipped",
               "scheme: the score and value hooks read each key mirrored about its query (k as 2q - k)", "twin",
               "one helper computes the offset for training, reading and the cache, with a test of its sign",
               in_scheme<OffsetsFlipped>()});
  f.push_back(
      {7, "finite-mask",
       "a finite bias used as a visibility mask: the attention is called without its causal mask and every "
       "key after its query gets a large negative bias (BERT's -10000) instead of -infinity",
       "scheme: the kernels told every key is visible, a later key's score given -10000 (what the model "
       "declares unchanged: causal)",
       "later-keys",
       "hide keys with the mask (-infinity, or skip them), never with a bias: a finite bias is a score the "
       "softmax still reads, exactly 0 here only because exp(-10000) underflows in float32",
       [](Model m) { return Model(std::make_unique<DeclaredCausal>(in_scheme<FiniteBiasMask>()(std::move(m)))); }, "",
       nullptr, false});
  f.push_back({8, "local-arange",
               "decode offsets from a local arange(q_len): each chunk of 16 tokens read at positions 0 .. 15, the "
               "earlier chunks' keys kept at theirs",
               "scheme: the embedding and Q/K hooks read p mod 16 (the mask reads p)", "qk-compose",
               "a query's position is the cache's length plus its row in the chunk",
               positions_read([](int p, int) { return p % 16; }, false)});
  f.push_back({9, "encoder-buckets",
               "bidirectional T5 buckets in a causal decoder: the scheme's encoder form (half the buckets per side) "
               "read by a model trained with the causal one",
               "scheme: the encoder form built from the same settings and tensors, the model still causal", "twin",
               "build the scheme for the visibility the model is read with (SchemeConfig::bidirectional)",
               in_scheme<EncoderForm>()});
  // 10: the prefix (positions before half the training length) cached while the server read under NTK planned
  // for four times the training length; the request that reuses it is read plainly
  f.push_back({10, "cache-other-map",
               "a prefix cache reused under another map: the prefix's keys were turned under NTK planned for 4x the "
               "training length when the cache was filled, and the request that reuses it is read plainly",
               "scheme: positions before half the training length turned under ntk planned for 4x the training "
               "length (the prefix as the cache holds it), the rest under the model's own frequencies",
               "qk-compose",
               "a cache remembers the reading its keys were made under and is refused under another (pe-bench's "
               "decoder does, models/block_stack_decoder.h)",
               in_scheme<PlanByPosition>(PlanByPosition::PlanAt([](const Scheme<float>& s, int p) {
                 const int train = s.config().train_length;
                 const MapSpec map = parse_map(p < train / 2 ? "ntk" : identity_map());
                 return s.plan_for(map, train, 4 * train, 4 * train);
               }))});
  f.push_back({11, "table-clamp",
               "a learned table read past its rows with a clamp: every later position reads the last row",
               "scheme: the embedding hook reads min(p, the table's last row)", "range",
               "refuse to read past the table (or train the rows first); never clamp silently", [](Model m) {
                 const int last = m->last_position();
                 return positions_read([last](int p, int) { return std::min(p, last); }, true)(std::move(m));
               }});
  f.push_back({12, "chunk-reset",
               "a long document read in chunks whose positions reset where global order was trained: windows of "
               "the training length, each from position 0, the earlier windows still seen",
               "scheme: the embedding and Q/K hooks read p mod the training length (the mask reads p)", "qk-compose",
               "global positions across the windows of one document (or hide the earlier windows)",
               positions_read([](int p, int train) { return p % train; }, false)});
  f.push_back({13, "rope-split-half",
               "RoPE pairing: weights written for interleaved pairs (2j, 2j+1) read with Transformers' split-half "
               "rotate_half pairs (j, j + d_head/2)",
               "scheme: the Q/K transform turns the split-half pairs", "angles",
               "read with the pairing the weights were written for, or export for the other pairing (pe-bench export "
               "--rope-layout split-half permutes the query and key rows)",
               in_scheme<SplitHalfPairs>()});
  f.push_back({14, "positions-bf16", "positions held in bfloat16: integers past 256 alias (8 significant bits)",
               "scheme: every position hook reads each position rounded to the nearest bfloat16", "twin",
               "positions and angles in float32 (or integers), the rotation in float32",
               positions_read([](int p, int) { return rounded_to(p, 8); }, true)});
  f.push_back({14, "positions-fp16", "positions held in float16: integers past 2048 alias (11 significant bits)",
               "scheme: every position hook reads each position rounded to the nearest float16", "twin",
               "positions and angles in float32 (or integers), the rotation in float32",
               positions_read([](int p, int) { return rounded_to(p, 11); }, true)});
  // 14: the committed context-extension table's "dynamic (cached)" row (README: +11.6 perplexity at 512 against
  // turning the cached keys again), dynamic NTK planned for 16x the training length as there, measured against
  // the same map read whole
  f.push_back({14, "dynamic-cached",
               "the cached dynamic NTK (factor 16, planned for 16x the training length): each key keeps the base of "
               "the length at which it entered the cache, while every later query turns under the base of its own, "
               "larger length",
               "scheme: each position turned under dynamic NTK for the length at which it entered the cache "
               "(position + 1), as the decoder's `dynamic` does one token at a time",
               "qk-compose",
               "turn the cached keys again under each step's plan (dynamic-recompute), or plan once for the whole "
               "context",
               in_scheme<PlanByPosition>(PlanByPosition::PlanAt([](const Scheme<float>& s, int p) {
                 const int train = s.config().train_length;
                 return s.plan_for(parse_map("dynamic"), train, 16 * train, p + 1);
               })),
               "dynamic NTK (factor 16) for each window's length: every key and query of a window under one base",
               [](Model m) { return Model(std::make_unique<ReadUnderMap>(std::move(m), "dynamic", 16)); }});
  return f;
}

}  // namespace

const std::vector<FaultInfo>& fault_list() {
  static const std::vector<FaultInfo> list = make_faults();
  return list;
}

const FaultInfo& find_fault(const std::string& name) {
  std::string names;
  for (auto& f : fault_list()) {
    if (f.name == name) return f;
    names += (names.empty() ? "" : ", ") + f.name;
  }
  throw UsageError(fmt::format("no fault named '{}' (the faults: {})", name, names));
}

}  // namespace pe
