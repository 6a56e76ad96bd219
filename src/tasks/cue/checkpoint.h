// The cue head's checkpoint: the shared envelope (harness/checkpoint.h) with task "cue" and the
// model section {model, alphabet, mark_prob, vocab, classes, d_model, embed_init_std} (and
// "query_token": false for a head without a query token, the filings task's).
#pragma once
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "harness/checkpoint.h"
#include "harness/doctor.h"
#include "models/check_batch.h"
#include "models/cue_head.h"
#include "schemes/frequency_maps.h"

namespace pe {

struct LoadedCheckpoint {
  std::unique_ptr<CueHead<float>> model;
  nlohmann::json meta;  // the whole file minus the parameters
  std::string path;
  int random_positions = 0;  // training.random_positions: trained at positions drawn from [0, this) (0: 0 .. n-1)
};
// What the reader feeds the head: with or without the query token, and an alphabet (0: the
// checkpoint's own). A head fed tokens its vocabulary lacks would read past its embedding table.
struct HeadInput {
  bool query_token = true;
  int alphabet = 0;
};
// Throws CheckpointError (missing, not JSON, wrong format/version/task, names or shapes that differ,
// or a head that cannot read `input`).
LoadedCheckpoint load_checkpoint(const std::string& path, const std::string& task = "cue", HeadInput input = {});

// UsageError when cp was trained with randomised positions and a test sequence of length n cannot draw its
// positions from their range (eval, compare).
void check_positions_hold(const LoadedCheckpoint& cp, int n);

// A note on stderr when cp was trained with randomised positions and `what` (an analysis) reads it at positions
// 0 .. n-1 instead of drawing them (once per checkpoint and reader in a process).
void note_positions_read(const LoadedCheckpoint& cp, const std::string& what);

// A check batch (models/check_batch.h) of a head's checkpoint loaded as load_checkpoint does, read with
// `map` at kappa = length / its training length (length 0: the training length); every_position: the
// filings head's reading, an answer at every position. The head reads the default batch, or one sequence's
// row each under a mode with query rows (models/check_batch.h check_modes: query-rows; not with
// every_position); any other batch mode is a UsageError.
CheckBatch check_head_checkpoint(const std::string& path, const std::string& task, HeadInput input, const MapSpec& map,
                                 int length, uint64_t seed, bool every_position, const std::string& mode);

// The head of a loaded checkpoint as `pe-bench doctor` reads it (harness/doctor.h): random sequences of its
// content tokens, the query token at the query row when it has one.
std::unique_ptr<DoctorModel> doctor_head(LoadedCheckpoint cp);

}  // namespace pe
