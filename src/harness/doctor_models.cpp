// The models the doctor reads (harness/doctor.h): a block stack and a cue head behind DoctorModel.
#include <algorithm>
#include <limits>
#include <optional>
#include <utility>

#include "core/errors.h"
#include "harness/doctor.h"
#include "models/block_stack_decoder.h"

namespace pe {

int DoctorModel::last_position() const { return -1; }

std::vector<float> DoctorModel::decode(const std::vector<int>&, const std::vector<int>&) {
  throw UsageError("this model has no cache to decode with");
}

void DoctorModel::wrap_scheme(const SchemeWrap&) { throw UsageError("this model's scheme cannot be replaced"); }

namespace {

// The largest position a batch reads.
int batch_end(const DoctorBatch& b) {
  if (b.pos.empty()) return b.p0 + b.T - 1;
  return *std::max_element(b.pos.begin(), b.pos.end());
}

class StackModel final : public DoctorModel {
 public:
  StackModel(std::unique_ptr<BlockStack<float>> m, int train_length) : m_(std::move(m)), train_(train_length) {}
  std::string kind() const override { return "block stack"; }
  Scheme<float>& scheme() override { return m_->scheme(); }
  int train_length() const override { return train_; }
  int symbols() const override { return m_->config().vocab; }
  bool every_row() const override { return true; }
  int width() const override { return m_->config().vocab; }
  bool takes_coordinates() const override { return true; }
  bool decodes() const override { return !m_->scheme().config().bidirectional; }
  int last_position() const override { return m_->scheme().max_position(); }
  std::vector<float> logits(const DoctorBatch& b) override {
    m_->prepare(batch_end(b) + 1);
    BlockStackCache<float> c;
    const Visibility vis = m_->scheme().config().bidirectional ? Visibility::bidirectional() : Visibility{};
    const TokenCoordinates at{b.pos.empty() ? nullptr : b.pos.data(), b.doc.empty() ? nullptr : b.doc.data()};
    const bool any = at.pos || at.doc;
    m_->forward(b.tokens.data(), b.tokens.data(), b.B, b.T, c, b.p0, vis, nullptr, any ? &at : nullptr);
    return c.logits;
  }
  double later_key_share(const DoctorBatch& b) override {
    if (!b.pos.empty() || !b.doc.empty()) throw UsageError("later_key_share reads the default batch");
    m_->prepare(batch_end(b) + 1);
    BlockStackCache<float> c;
    const Visibility vis = m_->scheme().config().bidirectional ? Visibility::bidirectional() : Visibility{};
    m_->forward(b.tokens.data(), b.tokens.data(), b.B, b.T, c, b.p0, vis);
    long seen = 0, pairs = 0;
    const int T = b.T;
    std::vector<float> s;  // [B, H, T, T] per block before the softmax: -infinity where the mask hides a key
    for (int l = 0; l < m_->config().n_layers; ++l) {
      m_->scores(c, b.B, b.T, vis, l, s);
      for (size_t bh = 0; bh < s.size() / (size_t(T) * T); ++bh)
        for (int i = 0; i < T; ++i)
          for (int j = i + 1; j < T; ++j)
            ++pairs, seen += s[(bh * T + i) * T + j] > -std::numeric_limits<float>::infinity();
    }
    return pairs ? double(seen) / double(pairs) : 0.0;
  }
  std::vector<float> decode(const std::vector<int>& tokens, const std::vector<int>& chunks) override {
    const int T = int(tokens.size()), V = width();
    m_->prepare(T);
    BlockStackDecoder<float> dec(*m_, T, std::nullopt, train_);
    std::vector<float> out;
    out.reserve(size_t(T) * V);
    int at = 0;
    for (int n : chunks) {
      const float* l = dec.feed(tokens.data() + at, n);
      out.insert(out.end(), l, l + size_t(n) * V);
      at += n;
    }
    return out;
  }
  std::vector<float> embedding_code(const std::vector<int>& positions) override {
    if (!m_->scheme().acts_on_embedding()) return {};
    const int n = int(positions.size()), D = m_->config().d_model;
    m_->prepare(*std::max_element(positions.begin(), positions.end()) + 1);
    std::vector<float> out(size_t(n) * D, 0.0f);
    m_->scheme().embed_forward({m_->params().data(), &m_->layout()}, positions.data(), n, out.data());
    return out;
  }
  void wrap_scheme(const SchemeWrap& f) override { m_->wrap_scheme(f); }

 private:
  std::unique_ptr<BlockStack<float>> m_;
  int train_;
};

class HeadModel final : public DoctorModel {
 public:
  HeadModel(std::unique_ptr<CueHead<float>> m, int train_length, int symbols, int query_token)
      : m_(std::move(m)), train_(train_length), symbols_(symbols), query_(query_token) {}
  std::string kind() const override { return "cue head"; }
  Scheme<float>& scheme() override { return m_->scheme(); }
  int train_length() const override { return train_; }
  int symbols() const override { return symbols_; }
  int query_token() const override { return query_; }
  bool every_row() const override { return false; }
  int width() const override { return m_->config().task.alphabet; }
  bool takes_coordinates() const override { return false; }
  bool decodes() const override { return false; }
  int last_position() const override { return m_->scheme().max_position(); }
  std::vector<float> logits(const DoctorBatch& b) override {
    if (!b.pos.empty() || !b.doc.empty()) throw UsageError("a cue head takes no per-token positions or documents");
    m_->prepare(batch_end(b) + 1);
    CueWorkspace<float> ws;
    ws.query_rows = b.query_rows.empty() ? nullptr : b.query_rows.data();
    const std::vector<int> targets(size_t(b.B), 0);
    m_->forward(b.tokens.data(), targets.data(), b.B, b.T, ws, nullptr, b.p0);
    return ws.logits;
  }
  double later_key_share(const DoctorBatch& b) override {
    m_->prepare(batch_end(b) + 1);
    CueWorkspace<float> ws;
    ws.query_rows = b.query_rows.empty() ? nullptr : b.query_rows.data();
    std::vector<float> scores;  // [B, 1, T] before the softmax: -infinity where the mask hides a key
    m_->scores(b.tokens.data(), b.B, b.T, ws, scores, b.p0);
    long seen = 0, pairs = 0;
    for (int i = 0; i < b.B; ++i)
      for (int j = (b.query_rows.empty() ? b.T - 1 : b.query_rows[i]) + 1; j < b.T; ++j)
        ++pairs, seen += scores[size_t(i) * b.T + j] > -std::numeric_limits<float>::infinity();
    return pairs ? double(seen) / double(pairs) : 0.0;
  }
  std::vector<float> embedding_code(const std::vector<int>& positions) override {
    if (!m_->scheme().acts_on_embedding()) return {};
    const int n = int(positions.size()), D = m_->config().d_model;
    m_->prepare(*std::max_element(positions.begin(), positions.end()) + 1);
    std::vector<float> out(size_t(n) * D, 0.0f);
    m_->scheme().embed_forward(m_->cview(), positions.data(), n, out.data());
    return out;
  }
  void wrap_scheme(const SchemeWrap& f) override { m_->wrap_scheme(f); }

 private:
  std::unique_ptr<CueHead<float>> m_;
  int train_, symbols_, query_;
};

}  // namespace

std::unique_ptr<DoctorModel> doctor_block_stack(std::unique_ptr<BlockStack<float>> model, int train_length) {
  return std::make_unique<StackModel>(std::move(model), train_length);
}
std::unique_ptr<DoctorModel> doctor_cue_head(std::unique_ptr<CueHead<float>> model, int train_length, int symbols,
                                             int query_token) {
  return std::make_unique<HeadModel>(std::move(model), train_length, symbols, query_token);
}

}  // namespace pe
