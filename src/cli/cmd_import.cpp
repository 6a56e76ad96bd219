// pe-bench import: model.safetensors and config.json (an export, or a PyTorch model saved under the
// same names) back into a pe-bench checkpoint (harness/interop.h, docs/interop.md).
#include <fmt/format.h>

#include "cli/common.h"
#include "core/files.h"
#include "harness/interop.h"

namespace pe::cli {

void register_import(CLI::App& app) {
  struct Opts {
    std::string from, out;
  };
  auto o = std::make_shared<Opts>();
  auto* sub = app.add_subcommand(
      "import",
      "Read <from>/model.safetensors and <from>/config.json (written by `pe-bench export`, or by PyTorch with the "
      "same tensor names and shapes) into a pe-bench checkpoint; an export imports back to the original bytes");
  sub->add_option("--from", o->from, "the directory holding model.safetensors and config.json")->required();
  sub->add_option("--out", o->out, "the checkpoint.json to write (atomically)")->required();
  sub->callback([o] {
    import_checkpoint(o->from, o->out);
    fmt::print("wrote {}\n", o->out);
  });
}

}  // namespace pe::cli
