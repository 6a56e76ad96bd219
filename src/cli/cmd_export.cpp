// pe-bench export: a checkpoint as model.safetensors and config.json in PyTorch's conventions
// (harness/interop.h, docs/interop.md).
#include <fmt/format.h>

#include "cli/common.h"
#include "core/files.h"
#include "harness/interop.h"

namespace pe::cli {

void register_export(CLI::App& app) {
  struct Opts {
    std::string checkpoint, out;
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
  sub->callback([o] {
    const ExportedModel m = export_checkpoint(o->checkpoint);
    write_file_set(o->out, {{"model.safetensors", m.safetensors}, {"config.json", m.config}});
    fmt::print("wrote {}/model.safetensors ({} bytes) and {}/config.json\n", o->out, m.safetensors.size(), o->out);
  });
}

}  // namespace pe::cli
