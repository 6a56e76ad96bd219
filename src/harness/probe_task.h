// A probe task: synthetic sequences with answer rows (a target below 0 is not scored) read by the block stack
// (models/block_stack.h), trained at one length and read on a grid of lengths x cells, RoPE (and the hybrid's
// RoPE layers) also through the maps. The probes of docs/tasks.md, "Probes" (multi-needle, distractors, relative
// order, code with distant declarations) are each a task folder that gives only its sequences (a ProbeSource) and
// the keys that shape them; training, checkpoints, reading, tables, compare, the doctor, the check batch and
// `analyze attention` are shared here, so every probe is read as every other.
//
// Results (docs/results-format.md, "Probes"): per reader (scheme, map) and seed, at each length, each cell's
// whole accuracy (the share of its test sequences whose every answer row is right, greedy) and each answer slot's
// accuracy (e.g. the i-th needle's); the mean over cells per length with its 95% interval over seeds and test items.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/rng.h"
#include "harness/task.h"

namespace pe {

// One probe's sequences for one shape (the values of its shape keys).
class ProbeSource {
 public:
  virtual ~ProbeSource() = default;
  virtual std::vector<std::string> token_names() const = 0;   // the vocabulary, id order
  virtual int min_length() const = 0;                         // the shortest sequence every cell can hold
  virtual std::vector<std::string> cells() const = 0;         // the test grid's cells, as the tables label them
  virtual int slots() const = 0;                              // answer slots scored apart (1: one kind of answer)
  virtual std::string slot_name() const { return "answer"; }  // what a slot is ("needle": needle 1, 2, ...)
  // One sequence of n tokens from the stream `key`: x [n] the tokens read, y [n] the targets (-1 except the
  // answer rows), slot [n] each answer row's slot in [0, slots) (-1 elsewhere). cell < 0: a training sequence
  // (its cell, or whatever it varies, drawn from the stream too).
  virtual void sequence(uint64_t key, int n, int cell, int* x, int* y, int* slot) const = 0;
};

// What a probe's folder gives: its identity, the keys that shape its sequences (each recorded in the
// checkpoint's "probe" section), and the source of a shape (ConfigError naming the key for an impossible one).
struct ProbeKind {
  std::string name, description;
  std::string title;      // the table's heading ("Multi-needle retrieval")
  std::string cell_axis;  // what the cells are ("needles and question")
  std::vector<KeySpec> shape_keys;
  std::function<std::unique_ptr<ProbeSource>(const nlohmann::json& shape)> make;
  std::function<std::string(const nlohmann::json& shape)> describe;  // one sentence for the table
  nlohmann::json gradcheck_shape;  // a small shape for the gradient check (every key of shape_keys)
  int gradcheck_length = 12;
};

// The task of a probe: the shared keys (the block stack's, cell_sequences, test_seed, lr_floor) and the probe's.
std::unique_ptr<Task> make_probe_task(ProbeKind kind);

// k items spread over F filler words: item j sits in the j-th of k near-equal segments of the filler
// (F (j+1) / k - F j / k words), at an offset drawn uniformly in its segment. gaps [k + 1]: the filler words
// before item 0, between items j-1 and j, and after the last (they sum to F).
std::vector<int> spread_gaps(Rng& rng, int F, int k);
// k distinct values of [0, n) in draw order (a partial Fisher-Yates draw); n >= k.
std::vector<int> distinct_draw(Rng& rng, int n, int k);

}  // namespace pe
