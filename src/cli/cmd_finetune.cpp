// pe-bench finetune: resume a RoPE character-LM checkpoint with a context-extension map's plan fixed
// and train a few hundred steps at the longer context.
#include <fmt/format.h>

#include "cli/common.h"
#include "core/parallel.h"
#include "tasks/charlm/training.h"
#include "harness/config.h"
#include "harness/task.h"
#include "schemes/frequency_plan.h"

namespace pe::cli {

void register_finetune(CLI::App& app) {
  struct Opts {
    std::string checkpoint, maps = "pi", experiment, corpus;
    std::optional<int> steps, length, batch;
    std::optional<double> lr;
    std::vector<std::string> sets;
    bool resume = false;
    RunOptions run;
  };
  auto o = std::make_shared<Opts>();
  auto* sub = app.add_subcommand(
      "finetune",
      "Fine-tune a character-LM RoPE checkpoint at a longer context with a context-extension map's plan fixed "
      "(the plan for training length -> --train-length); one fine-tune per map of --maps, each writing "
      "<its run dir>-ft-<map>/ whose checkpoint records the plan");
  sub->add_option("--checkpoint", o->checkpoint, "checkpoint.json of a RoPE character LM (pe-bench train --task charlm)")
      ->required();
  sub->add_option("--maps", o->maps, "context-extension maps, comma-separated: " + known_maps())->capture_default_str();
  sub->add_option("--steps", o->steps, "fine-tuning steps (default: the charlm task's finetune_steps, 300)");
  sub->add_option("--train-length", o->length, "fine-tuning context (default 512)");
  sub->add_option("--batch", o->batch, "windows per step (default 16)");
  sub->add_option("--lr", o->lr, "AdamW learning rate (default 1e-3)");
  sub->add_option("--corpus", o->corpus, "plain-text corpus (default data/timemachine.txt)");
  sub->add_option("--experiment", o->experiment, "experiment JSON file whose settings to use (e.g. experiments/charlm.json)");
  sub->add_option("--set", o->sets, "override an experiment key: --set key=value (repeatable)");
  add_run_options(sub, o->run);
  add_resume_option(sub, o->resume);
  sub->callback([o] {
    const auto maps = parse_map_list(o->maps, "--maps");
    const nlohmann::json cfg = Overrides{{"task=charlm"}}
                                   .add("finetune_steps", o->steps)
                                   .add("finetune_length", o->length)
                                   .add("finetune_batch", o->batch)
                                   .add("finetune_lr", o->lr)
                                   .add("corpus", o->corpus)
                                   .resolve(o->experiment, o->sets);
    ExperimentConfig e = ExperimentConfig::from_json(cfg);
    e.resume = o->resume;
    if (charlm_settings(e).finetune_steps <= 0) throw UsageError("--steps: fine-tuning needs at least one step (finetune_steps is 0)");
    set_threads(o->run.threads);
    for (auto& map : maps) {
      Progress progress(o->run.quiet);
      const auto out = finetune_charlm(e, cfg, o->checkpoint, map, [&](int step, int steps, double loss) {
        progress.update(fmt::format("[finetune {} at {}] step {}/{} loss {:.4f}", map, charlm_settings(e).finetune_length, step, steps, loss));
      });
      progress.done();
      if (out.kept)
        fmt::print("kept {} (complete, same config): final training loss {:.4f}\n", out.run_dir, out.final_loss());
      else
        fmt::print("fine-tuned with {} at {}: {} steps{} in {:.1f} s, final training loss {:.4f}\n", map,
                   charlm_settings(e).finetune_length, out.trained(), resumed_note(out.resumed_at), out.seconds,
                   out.final_loss());
      fmt::print("run directory: {}\n", out.run_dir);
    }
  });
}

}  // namespace pe::cli
