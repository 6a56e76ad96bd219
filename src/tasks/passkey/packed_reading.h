// Reading passkey models on packed windows (docs/tasks.md, "Packing"): windows of the training
// length holding whole passkey problems one after another (passkey_test_window), each read under
// three layouts (harness/packing.h): across documents with global positions (packed), isolated with
// positions reset, and isolated with global positions. Per document: whole-passkey accuracy (all its
// answer rows right), and, for a document after another whose passkey starts with another symbol,
// whether its first answer is that other document's first symbol (a distractor taken).
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/packing.h"
#include "models/block_stack.h"
#include "tasks/passkey/data.h"

namespace pe {

struct PackedCount {
  long docs = 0, whole = 0;
  long later = 0, later_whole = 0;  // documents after the first of their window, and of them all right
  long exposed = 0;                 // documents after one whose passkey starts with another symbol
  long distracted = 0;              // of them, first answer another document's first symbol
};

// The layouts every model is read under, in table order.
const std::vector<Packing>& packed_reading_layouts();

// `windows` windows of T tokens (documents of min_length .. T) read with `model` under `layout`.
PackedCount read_packed_windows(const BlockStack<float>& model, const PasskeySpec& spec, int T, int min_length,
                                int windows, uint64_t test_seed, Packing layout);

// The "packed" section of passkey results: one row per scheme (its seeds in checkpoint order), per
// layout the whole-passkey accuracy and distractor rate of each seed, their means, and the 95%
// interval of the accuracy (stats::proportion_interval over the seeds and the documents read).
struct PackedReading {
  std::string scheme;
  int seed = 0;
  std::vector<PackedCount> counts;  // per layout
};
nlohmann::json packed_section(const std::vector<PackedReading>& readings, int windows, int min_length);
// The section as plain text, and as Markdown (a table per layout column pair); "" when the results have none.
std::string format_packed_table(const nlohmann::json& results);
std::string format_packed_markdown(const nlohmann::json& results);

}  // namespace pe
