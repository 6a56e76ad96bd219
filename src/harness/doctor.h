// `pe-bench doctor` (docs/doctor.md): the invariants that define a correct positional implementation,
// run on one trained model. Each invariant is one entry of a table (harness/doctor_invariants.cpp): what
// it checks, what this model is expected to do (hold, move, or not apply, with why), the measured value
// and the verdict. The model is read through DoctorModel, so a reading with a fault in it (the failure
// lab) meets the same invariants as the correct one.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/block_stack.h"
#include "models/cue_head.h"
#include "schemes/scheme.h"

namespace pe {

// B sequences of T tokens and where they sit: per-token positions and documents ([B, T]; document -1 a
// PAD token) or, when empty, positions p0 .. p0+T-1 and one document; query_rows ([B]) for a model that
// answers at one row per sequence (empty: the last row).
struct DoctorBatch {
  int B = 0, T = 0;
  std::vector<int> tokens;
  std::vector<int> pos, doc;
  int p0 = 0;
  std::vector<int> query_rows;
};

// A trained model as the doctor reads it.
class DoctorModel {
 public:
  virtual ~DoctorModel() = default;
  virtual std::string kind() const = 0;  // "block stack", "cue head"
  virtual Scheme<float>& scheme() = 0;
  virtual int train_length() const = 0;
  // The tokens a random sequence draws from (0 .. symbols-1), and the token a query row holds (-1: none).
  virtual int symbols() const = 0;
  virtual int query_token() const { return -1; }
  // Answers at every row (a language model: [B, T, width]) or at one query row per sequence ([B, 1, width]).
  virtual bool every_row() const = 0;
  virtual int width() const = 0;
  // Takes per-token positions and documents (packing, padding), and decodes with a cache.
  virtual bool takes_coordinates() const = 0;
  virtual bool decodes() const = 0;
  // The largest position the model can represent: its table's last row; -1 when every position is defined
  // (RoPE under any plan: a plan's read length is where it was tuned, not where positions end).
  virtual int last_position() const;
  // The logits of a batch ([B, rows, width]).
  virtual std::vector<float> logits(const DoctorBatch& batch) = 0;
  // The share of (query row, key after it) pairs attention lets through, over every layer and head, read at
  // the scores before the softmax: a masked key's is -infinity whatever the weights, where a finite bias in
  // its place (which underflows to probability 0 as the mask does) leaves a finite score.
  virtual double later_key_share(const DoctorBatch& batch) = 0;
  // One sequence fed to a cache in chunks of these sizes (their sum is its length): [T, width].
  virtual std::vector<float> decode(const std::vector<int>& tokens, const std::vector<int>& chunks);
  // The scheme's position code of each position added to the embedding ([n, d_model]); empty when it adds none.
  virtual std::vector<float> embedding_code(const std::vector<int>& positions) = 0;
  // Made to see later keys (an encoder): what the model declares, which a reading with a fault in its mask
  // may not give its kernels.
  virtual bool bidirectional() { return scheme().config().bidirectional; }
  // Replaces the model's scheme with f(the scheme), a wrapper that declares its parameters (the failure lab's
  // faults in a scheme's hooks, harness/faults.h). UsageError for a model that cannot.
  using SchemeWrap = std::function<std::unique_ptr<Scheme<float>>(std::unique_ptr<Scheme<float>>)>;
  virtual void wrap_scheme(const SchemeWrap& f);
};

// The block stack of a checkpoint (the char LM, the passkey model).
std::unique_ptr<DoctorModel> doctor_block_stack(std::unique_ptr<BlockStack<float>> model, int train_length);
// A cue head (the tournament, direction and filings heads); query_token: the head's query token id (-1: none).
std::unique_ptr<DoctorModel> doctor_cue_head(std::unique_ptr<CueHead<float>> model, int train_length, int symbols,
                                             int query_token);

struct DoctorSettings {
  int length = 0;          // the length the model is read at (0: its training length)
  uint64_t seed = 0;       // the random sequences
  std::string checkpoint;  // the file, for the export round trip and the twin ("" : neither run)
  bool twin = false;       // also read the checkpoint's export with the PyTorch twin (python3-torch)
};

// The start of a row's detail when the model refused the invariant's reading (a cache or table past its last
// position): the row fails without a measurement.
inline constexpr const char* kRefusedReading = "the reading was refused: ";

// One invariant on one model.
struct DoctorRow {
  std::string name, checks;
  std::string expect;  // "holds", "moves" (its opposite is expected: a causal row moved by a later token
                       // in a bidirectional model, an absolute scheme's drift), or "n/a"
  double value = 0, tolerance = 0;
  std::string verdict;  // "ok", "FAIL", "n/a"
  std::string detail;   // why n/a, or what the value is
};

// The table's invariants on `model` (harness/doctor_invariants.cpp), and with them, when settings name the
// checkpoint, the export round trip of its file.
std::vector<DoctorRow> run_doctor_invariants(DoctorModel& model, const DoctorSettings& settings);
std::vector<DoctorRow> run_doctor(DoctorModel& model, const DoctorSettings& settings);
// The rows as a table, and as JSON ({invariants: [...], failed: n}).
std::string doctor_table(const std::vector<DoctorRow>& rows);
nlohmann::json doctor_json(const std::vector<DoctorRow>& rows);
// The invariants the table holds: name and what each checks (docs, --help).
std::vector<std::pair<std::string, std::string>> doctor_invariants();

}  // namespace pe
