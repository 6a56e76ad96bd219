// pe-bench export: a checkpoint as model.safetensors and config.json in PyTorch's conventions
// (harness/interop.h, docs/interop.md), and optionally a check batch to test a converted model with.
#include <fmt/format.h>

#include "cli/common.h"
#include "core/files.h"
#include "core/safetensors.h"
#include "harness/checkpoint.h"
#include "harness/interop.h"
#include "harness/task.h"
#include "models/check_batch.h"
#include "schemes/frequency_maps.h"

namespace pe::cli {

namespace {

// Whether `path` (check.safetensors or check.json) is what `pe-bench export --check` writes: the
// safetensors file names it as its producer; check.json has its fields.
bool written_by_export_check(const std::string& path) {
  try {
    const std::string bytes = read_file(path, 1u << 30);
    if (path.ends_with(".safetensors")) {
      const auto meta = parse_safetensors(bytes, path).metadata;
      return meta.count("producer") && meta.at("producer") == "pe-bench export --check";
    }
    const nlohmann::json j = parse_json(bytes);
    return j.is_object() && j.contains("loss_is") && j.contains("logits_shape") && j.contains("reading");
  } catch (const std::exception&) {
    return false;
  }
}

}  // namespace

void register_export(CLI::App& app) {
  struct Opts {
    std::string checkpoint, out, map = identity_map(), coordinates = "causal", rope_layout = "interleaved";
    bool check = false;
    int length = 0;
  };
  auto o = std::make_shared<Opts>();
  auto* sub = app.add_subcommand(
      "export",
      "Write a checkpoint (any task, any scheme) as <out>/model.safetensors (F32, PyTorch names and [out, in] "
      "linear weights) and <out>/config.json (the architecture, the scheme and its settings, the frequency plan, "
      "every tensor's conversion); `pe-bench import` reads them back to the same bytes (docs/interop.md)");
  sub->add_option("--checkpoint", o->checkpoint, "the checkpoint.json to export")->required();
  sub->add_option("--out", o->out, "directory to write model.safetensors and config.json into (together, atomically)")
      ->required();
  sub->add_flag("--check", o->check,
                "also write check.safetensors and check.json: 4 sequences of random tokens read by the model in "
                "float32, its logits and the hand-written gradient of the mean loss for every tensor, for a "
                "converted model to check itself against (python/pebench_torch does)");
  sub->add_option("--rope-layout", o->rope_layout,
                  "how RoPE's query/key pairs are laid out: interleaved, channels (2j, 2j+1) of a head (pe-bench's "
                  "own), or split-half, channels (j, j + head_dim/2) as Transformers' rotate_half reads them (each "
                  "head's query and key rows of qkv.weight permuted to [0, 2, 4, ..., 1, 3, 5, ...]; config.json's "
                  "rope_layout says which, and import permutes them back)")
      ->capture_default_str();
  sub->add_option("--map", o->map, "with --check: read the batch with this context-extension map (RoPE schemes)")
      ->capture_default_str();
  sub->add_option("--length", o->length, "with --check: tokens per sequence (0: the training length)")
      ->check(CLI::Range(0, 1 << 16))
      ->capture_default_str();
  std::string modes;  // the table's modes, one line each (models/check_batch.h)
  for (const CheckMode& m : check_modes()) modes += fmt::format("\n  {}: {}", m.name, m.what);
  sub->add_option("--coordinates", o->coordinates,
                  "with --check: the batch mode the block stack reads the batch under (docs/interop.md); its "
                  "positions, documents and visibility go into the check files. The heads take causal and "
                  "query-rows (a head answering at every position, causal only), the block stack every mode but "
                  "query-rows; bidirectional and prefix need a model made for them:" +
                      modes)
      ->capture_default_str();
  sub->callback([o] {
    if (!o->check && (!is_identity_map(o->map) || o->length != 0))
      throw UsageError("--map and --length describe the check batch: add --check");
    if (!o->check && o->coordinates != "causal")
      throw UsageError("--coordinates describes the check batch: add --check");
    check_mode(o->coordinates);  // an unknown mode is named before the model is read
    const RopeLayout layout = parse_rope_layout(o->rope_layout);
    const ExportedModel m = export_checkpoint(o->checkpoint, layout);
    std::vector<std::pair<std::string, std::string>> files{{"model.safetensors", m.safetensors},
                                                           {"config.json", m.config}};
    if (o->check) {
      const MapSpec map = parse_map(o->map);  // a malformed map is named before the model is read
      const CheckpointReader reader(o->checkpoint, "");
      const std::string task = reader.json_().at("task");
      const SplitHalfRows pairs = split_half_rows(reader.json_());
      const ExportedCheck c =
          export_check(find_task(task).reader().check_batch(o->checkpoint, map, o->length, 0, o->coordinates),
                       layout == RopeLayout::SplitHalf ? &pairs : nullptr);
      files.push_back({"check.safetensors", c.safetensors});
      files.push_back({"check.json", c.json});
    }
    // without --check, an earlier export's check files describe another model and are removed; a
    // file of those names that pe-bench export did not write is the user's, and stays
    std::vector<std::string> obsolete;
    if (!o->check)
      for (const char* name : {"check.safetensors", "check.json"}) {
        const std::string path = o->out + "/" + name;
        if (!file_exists(path)) continue;
        if (written_by_export_check(path))
          obsolete.push_back(name);
        else
          fmt::print("left {} as it is: pe-bench export --check did not write it\n", path);
      }
    write_file_set(o->out, files, obsolete);
    for (auto& [name, bytes] : files) fmt::print("wrote {}/{} ({} bytes)\n", o->out, name, bytes.size());
    for (auto& name : obsolete)
      fmt::print("removed {}/{} (an earlier export's check batch: add --check to write one for this model)\n", o->out,
                 name);
  });
}

}  // namespace pe::cli
