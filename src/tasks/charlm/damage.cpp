// Perplexity as the failure lab's measure of damage (tasks/charlm/damage.h).
#include "tasks/charlm/damage.h"

#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "core/errors.h"
#include "core/math.h"
#include "tasks/charlm/corpus.h"

namespace pe {

namespace {

// Window w of length n starts at kFirst + w n: the char LM's held-out text (its validation windows start at
// 100,000, the default val_start), laid end to end so that no two windows share a character.
constexpr long kFirst = 100000;

class CharLMProbe final : public DamageProbe {
 public:
  CharLMProbe(CharCorpus corpus, int windows) : corpus_(std::move(corpus)), windows_(windows > 0 ? windows : 8) {}
  std::string metric() const override { return "perplexity"; }
  bool higher_is_better() const override { return false; }
  std::vector<int> lengths() const override { return {128, 256, 512, 1024, 2048}; }  // trained at 128
  // exp of the mean next-character loss over every row of every window (core/math: the same bits on every CPU);
  // NaN where the model cannot be read
  double measure(DoctorModel& model, int n) override {
    if (kFirst + long(windows_) * n + 1 > long(corpus_.ids.size()))
      throw UsageError(fmt::format("{} windows of {} characters from {} run past the corpus ({} characters)", windows_,
                                   n, kFirst, corpus_.ids.size()));
    DoctorBatch b;
    b.B = windows_, b.T = n;
    b.tokens.resize(size_t(windows_) * n);
    std::vector<int> y(size_t(windows_) * n);
    for (int w = 0; w < windows_; ++w)
      char_window(corpus_, int(kFirst + long(w) * n), n, b.tokens.data() + size_t(w) * n, y.data() + size_t(w) * n);
    std::vector<float> logits;
    try {
      logits = model.logits(b);
    } catch (const UsageError&) {  // a position the model has no row for
      return std::numeric_limits<double>::quiet_NaN();
    }
    const int V = model.width();
    double loss = 0;
    for (size_t r = 0; r < y.size(); ++r) {
      const float* row = logits.data() + r * V;
      double top = row[0];
      for (int v = 1; v < V; ++v) top = std::max(top, double(row[v]));
      double sum = 0;
      for (int v = 0; v < V; ++v) sum += math::exp(double(row[v]) - top);
      loss += top + math::log(sum) - double(row[y[r]]);
    }
    return math::exp(loss / double(y.size()));
  }

 private:
  CharCorpus corpus_;
  int windows_;
};

}  // namespace

// The committed char LMs of charlm-3seeds (alibi, learned, none, rope, sinusoidal; 3 seeds, trained at 128) and
// the faults they are read with.
FaultHosting charlm_fault_hosting() {
  return {"charlm-3seeds",
          "charlm-quick",
          {
              {"cache-other-map", {"rope"}, {}, 0},
              {"positions-bf16", {"alibi", "rope", "sinusoidal"}, {}, 512},
              {"positions-fp16", {"alibi", "rope"}, {}, 4096},
              {"dynamic-cached", {"rope"}, {}, 512},
          }};
}

std::unique_ptr<DamageProbe> charlm_damage_probe(const std::vector<std::string>& vocab, int windows) {
  CharCorpus corpus = load_char_corpus(kTimeMachinePath, kTimeMachineSha1);
  if (corpus.vocab != vocab)
    throw UsageError("the failure lab reads the char LM on The Time Machine; this model has another vocabulary");
  return std::make_unique<CharLMProbe>(std::move(corpus), windows);
}

}  // namespace pe
