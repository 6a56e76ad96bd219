// A check batch (pe-bench export --check, docs/interop.md): a fixed batch of random tokens and
// targets read by a trained model in float32, the model's logits and its hand-written gradient of the
// mean loss, for a converted model (the PyTorch twin, python/pebench_torch) to check itself against.
// The tokens are uniform over the model's vocabulary (the cue head's last token is its query token),
// drawn from `seed`: the check is of the arithmetic, not of the task.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/safetensors.h"
#include "models/block_stack.h"
#include "models/cue_head.h"
#include "schemes/frequency_maps.h"

namespace pe {

struct CheckBatch {
  int B = 0, T = 0;
  std::vector<int> tokens;            // [B, T], positions 0..T-1
  std::vector<int> targets;           // [B, T] (a block stack, a head read at every position) or [B]
  std::vector<int64_t> logits_shape;  // [B, T, V] or [B, classes]
  std::vector<float> logits;
  double loss = 0;                 // the mean cross-entropy over the targets
  std::vector<NamedTensor> grads;  // dLoss/dparam: pe-bench names and [rows, cols], layout order
  nlohmann::json reading;          // what read it: map, frequency plan (set by the task)
};

// B sequences of T tokens through a block stack (the char LM, the passkey model), every position scored.
CheckBatch check_block_stack(BlockStack<float>& model, int B, int T, uint64_t seed,
                             const Visibility& vis = Visibility{});
// B sequences of T tokens through a cue head: the last position's answer, or every position's.
CheckBatch check_cue_head(CueHead<float>& model, int B, int T, bool every_position, uint64_t seed);

// The plan a RoPE-family scheme reads with, as check.json and config.json state it.
nlohmann::json frequency_plan_json(const FrequencyPlan& plan);
// Sets the scheme's reading for a check batch of `length` tokens: the plan of `map` for train_len ->
// plan_len (Scheme::read_with; a fine-tuned model's plan keeps the lengths it was tuned for); returns the reading as
// check.json states it (map, lengths, the plan of a scheme with frequencies). UsageError for a map the scheme cannot
// take or a length past its table.
nlohmann::json read_for_check(Scheme<float>& scheme, const MapSpec& map, int train_len, int plan_len, int length);

}  // namespace pe
