// Whole-passkey accuracy as the failure lab's measure of damage (tasks/passkey/damage.h).
#include "tasks/passkey/damage.h"

#include <cmath>
#include <limits>
#include <vector>

#include "core/errors.h"
#include "tasks/passkey/evaluation.h"

namespace pe {

namespace {

class PasskeyProbe final : public DamageProbe {
 public:
  PasskeyProbe(const PasskeySpec& spec, int items, uint64_t test_seed)
      : spec_(spec), items_(items > 0 ? items : kItems), seed_(test_seed) {}
  std::string metric() const override { return "whole-passkey accuracy"; }
  std::vector<int> lengths() const override { return {64, 128, 256, 512, 1024}; }  // trained at 64
  // Item i: depth index i mod 11, the (i / 11)-th test sequence of that cell; batches of 16 sequences.
  double measure(DoctorModel& model, int n) override {
    if (n < spec_.min_length())
      throw UsageError("a passkey needs sequences of at least " + std::to_string(spec_.min_length()) + " tokens");
    const std::vector<double> depths = passkey_depths(kDepths);
    const int V = model.width();
    long right = 0;
    for (int first = 0; first < items_; first += kBatch) {
      const int B = std::min(kBatch, items_ - first);
      DoctorBatch b;
      b.B = B, b.T = n;
      b.tokens.resize(size_t(B) * n);
      std::vector<int> y(size_t(B) * n);
      for (int i = 0; i < B; ++i) {
        const int item = first + i, d = item % kDepths;
        passkey_test_sequence(spec_, seed_, n, d, depths[size_t(d)], item / kDepths, b.tokens.data() + size_t(i) * n,
                              y.data() + size_t(i) * n);
      }
      std::vector<float> logits;
      try {
        logits = model.logits(b);
      } catch (const UsageError&) {  // a position the model has no row for
        return std::numeric_limits<double>::quiet_NaN();
      }
      for (int i = 0; i < B; ++i) {
        bool all = true;
        for (int t = 0; t < n && all; ++t) {
          const int target = y[size_t(i) * n + t];
          if (target < 0) continue;
          const float* row = logits.data() + (size_t(i) * n + t) * V;
          int best = 0;
          for (int v = 1; v < V; ++v)
            if (row[v] > row[best]) best = v;
          all = best == target;
        }
        right += all;
      }
    }
    return double(right) / items_;
  }

 private:
  static constexpr int kDepths = 11, kBatch = 16, kItems = 220;  // 20 sequences per depth by default
  PasskeySpec spec_;
  int items_;
  uint64_t seed_;
};

}  // namespace

// The committed passkey models (3 seeds of every scheme, trained at 64) and the faults they are read with.
FaultHosting passkey_fault_hosting() {
  return {"passkey",
          "passkey-quick",
          {
              {"code-twice", {"sinusoidal", "learned"}, {}, 0},
              {"positions-deleted", {"sinusoidal", "learned", "rope", "alibi", "t5"}, {}, 0},
              {"bos-off-by-one", {"sinusoidal", "learned"}, {"rope"}, 0},
              {"pad-left-storage", {"sinusoidal", "learned"}, {"rope"}, 0},
              {"mask-positions-disagree", {"sinusoidal", "rope", "alibi"}, {}, 0},
              {"offset-sign", {"t5", "shaw", "alibi"}, {}, 0},
              {"finite-mask", {"rope", "alibi", "t5"}, {}, 0},
              {"local-arange", {"rope", "sinusoidal"}, {}, 0},
              {"encoder-buckets", {"t5"}, {"alibi"}, 0},
              {"table-clamp", {"learned"}, {}, 128},
              {"chunk-reset", {"rope", "sinusoidal", "learned"}, {}, 128},
              {"rope-split-half", {"rope"}, {}, 0},
          }};
}

std::unique_ptr<DamageProbe> passkey_damage_probe(const PasskeySpec& spec, int items, uint64_t test_seed) {
  return std::make_unique<PasskeyProbe>(spec, items, test_seed);
}

}  // namespace pe
