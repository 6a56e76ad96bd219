// A check batch (pe-bench export --check, docs/interop.md): a fixed batch of random tokens and
// targets read by a trained model in float32, the model's logits and its hand-written gradient of the
// mean loss, for a converted model (the PyTorch twin, python/pebench_torch) to check itself against.
// The tokens are uniform over the model's vocabulary (the cue head's last token is its query token),
// drawn from `seed`: the check is of the arithmetic, not of the task. A block stack's batch may also be
// read under a batch mode (docs/architecture.md, "The batch model"): each token's position and
// document given (packed documents, PAD tokens, an offset) and the visibility; a head's, at a query row of
// each sequence's own (the mode query-rows: CueWorkspace::query_rows, the query token there).
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/safetensors.h"
#include "models/attention.h"
#include "models/block_stack.h"
#include "models/cue_head.h"
#include "schemes/frequency_maps.h"

namespace pe {

// The batch modes a check batch can be read under (pe-bench export --coordinates, docs/interop.md): the
// modes of models/coordinate_cases.h a whole block-stack batch takes (all but decode); "offset",
// each sequence at its own first position p0 > 0 (decode's cache position, over a whole batch); and
// "query-rows", a head read at a row of each sequence's own (CueWorkspace::query_rows). One table: the
// option's help and check, the check batches and the tests read it.
struct CheckMode {
  const char* name;
  const char* what;  // the batch, in one line
  // The visibility: the model's own (causal, or bidirectional for a model made so), or this mode's.
  enum class Sight { Model, Bidirectional, Prefix } sight;
  // Sequence b's positions and documents (-1: PAD), T of each; nullptr: the default batch (0..T-1, one
  // document, nothing given to the model).
  void (*row)(int b, int T, int* pos, int* doc);
  // Sequence b's query row (0 .. T-1), where a head reads it (its query token there); nullptr: the last row
  // (a head), every row (a block stack, which takes no mode with query rows).
  int (*query_row)(int b, int T);
};
const std::vector<CheckMode>& check_modes();
// "causal, bidirectional, ...": the modes' names, in the table's order.
std::string check_mode_names();
// The mode named `name`; UsageError naming the modes for any other.
const CheckMode& check_mode(const std::string& name);

// A check batch's coordinates (B sequences of T tokens) under a mode.
struct CheckCoordinates {
  std::string mode = "causal";
  std::vector<int> pos, doc;    // [B, T], each token's position and document (-1: PAD); empty: the default batch
  std::vector<int> query_rows;  // [B], each sequence's query row (a mode's query_row); empty: the last row
  Visibility vis;
  // The visibility as check.json states it (the twin's visibility argument): "causal", "bidirectional"
  // or ["prefix", k].
  nlohmann::json visibility_json() const;
};
// The coordinates of `mode` for B sequences of T tokens, read by a model made for visibility that sees
// later keys (`bidirectional`) or not; a mode with query rows is read with the model's visibility. UsageError
// for a mode the model cannot be read under (a causal model under bidirectional or prefix visibility; a
// bidirectional model under causal).
CheckCoordinates check_coordinates(const std::string& mode, int B, int T, bool bidirectional);

struct CheckBatch {
  int B = 0, T = 0;
  std::vector<int> tokens;            // [B, T]
  CheckCoordinates at;                // positions 0..T-1, one document, causal; or a batch mode's
  std::vector<int> targets;           // [B, T] (a block stack, a head read at every position) or [B]
  std::vector<int64_t> logits_shape;  // [B, T, V] or [B, classes]
  std::vector<float> logits;
  double loss = 0;                 // the mean cross-entropy over the targets
  std::vector<NamedTensor> grads;  // dLoss/dparam: pe-bench names and [rows, cols], layout order
  nlohmann::json reading;          // what read it: map, frequency plan (set by the task)
};

// B sequences of T tokens through a block stack (the char LM, the passkey model), every token scored
// but PAD ones, under the batch mode `mode` (check_modes). UsageError for a mode the model cannot be read
// under (one with query rows among them), or a position past its table.
CheckBatch check_block_stack(BlockStack<float>& model, int B, int T, uint64_t seed, const std::string& mode = "causal");
// B sequences of T tokens through a cue head: the last position's answer, or every position's; under a mode
// with query rows (check_modes: query-rows), the answer at each sequence's query row, its query token there
// (the same tokens and targets but where the query token sits), read with the head's visibility. The head
// takes no per-token positions or documents: UsageError for a mode that gives them, and for query rows with
// every_position.
CheckBatch check_cue_head(CueHead<float>& model, int B, int T, bool every_position, uint64_t seed,
                          const std::string& mode = "causal");

// The plan a RoPE-family scheme reads with, as check.json and config.json state it.
nlohmann::json frequency_plan_json(const FrequencyPlan& plan);
// Sets the scheme's reading for a check batch of `length` tokens: the plan of `map` for train_len ->
// plan_len (Scheme::read_with; a fine-tuned model's plan keeps the lengths it was tuned for); returns the reading as
// check.json states it (map, lengths, the plan of a scheme with frequencies). UsageError for a map the scheme cannot
// take or a length past its table.
nlohmann::json read_for_check(Scheme<float>& scheme, const MapSpec& map, int train_len, int plan_len, int length);

}  // namespace pe
