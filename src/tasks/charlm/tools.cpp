// The char LM's tools (TaskTools::add_tools):
//   pe-bench finetune: resume a RoPE character-LM checkpoint with a context-extension map's plan fixed
//     and train a few hundred steps at the longer context;
//   pe-bench sample: continue a prompt with a trained character LM (d2l's predict).
#include <fmt/format.h>

#include "core/errors.h"
#include "core/memory.h"
#include "core/parallel.h"
#include "harness/cli_options.h"
#include "harness/config.h"
#include "harness/random_positions.h"
#include "harness/task.h"
#include "schemes/frequency_maps.h"
#include "schemes/rope_scaling.h"
#include "tasks/charlm/checkpoint.h"
#include "tasks/charlm/tools.h"
#include "tasks/charlm/training.h"

namespace pe::cli {

namespace {

// The longest --context: a window of 2^24 characters is far past any model here (trained at most at
// kMaxLength), and below the point where the decoder's int positions and its sizes would overflow.
constexpr int kMaxContext = 1 << 24;

// Bytes the cached decoder (models/block_stack_decoder.h) allocates for a window of `context` keys:
// per block the keys, values and (dynamic-recompute) unrotated keys, each context x d_model floats;
// the scheme's derived tables for the window (tables_size); its per-position codes (RoPE's cos and
// sin, a sinusoidal code: at most d_model floats a position); three ints a slot. An upper bound of
// BlockStackDecoder::cache_bytes() and what prepare() adds.
double decoder_bytes(BlockStack<float>& model, int context) {
  const BlockStackConfig& c = model.config();
  double floats = 3.0 * c.n_layers * double(context) * c.d_model + double(context + 1) * c.d_model;
  for (int l = 0; l < c.n_layers; ++l) floats += double(model.scheme().tables_size(l, context));
  return 4 * floats + 16.0 * context;
}

void add_finetune(CLI::App& app) {
  struct Opts {
    std::string checkpoint, maps = "pi", experiment, corpus, rope_scaling;
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
      "(the plan for training length -> --finetune-length); one fine-tune per map of --maps, each writing "
      "<its run dir>-ft-<map>/ whose checkpoint records the plan");
  sub->add_option("--checkpoint", o->checkpoint,
                  "checkpoint.json of a RoPE character LM (pe-bench train --task charlm)")
      ->required();
  sub->add_option("--maps", o->maps, "context-extension maps, comma-separated: " + known_maps())->capture_default_str();
  sub->add_option("--rope-scaling", o->rope_scaling,
                  "fine-tune with the map a Transformers config gives (a config.json path or JSON; alone, instead of "
                  "--maps' default)");
  sub->add_option("--finetune-steps", o->steps, "fine-tuning steps (key finetune_steps; default 300)");
  sub->add_option("--finetune-length", o->length, "fine-tuning context (key finetune_length; default 512)");
  sub->add_option("--finetune-batch", o->batch, "windows per step (key finetune_batch; default 16)");
  sub->add_option("--finetune-lr", o->lr, "AdamW learning rate (key finetune_lr; default 1e-3)");
  add_renamed_option(sub, "--steps", "--finetune-steps");
  add_renamed_option(sub, "--train-length", "--finetune-length");
  add_renamed_option(sub, "--batch", "--finetune-batch");
  add_renamed_option(sub, "--lr", "--finetune-lr");
  sub->add_option("--corpus", o->corpus, "plain-text corpus (default data/timemachine.txt)");
  sub->add_option("--experiment", o->experiment,
                  "experiment JSON file whose settings to use (e.g. experiments/charlm.json)");
  sub->add_option("--set", o->sets, "override an experiment key: --set key=value (repeatable)");
  add_run_options(sub, o->run);
  add_resume_option(sub, o->resume);
  sub->callback([sub, o] {
    std::vector<MapSpec> maps;
    if (o->rope_scaling.empty() || sub->count("--maps")) maps = parse_map_list(o->maps, "--maps");
    if (!o->rope_scaling.empty()) maps.push_back(parse_rope_scaling(o->rope_scaling, "--rope-scaling").map);
    const nlohmann::json cfg = Overrides{{"task=charlm"}}
                                   .add("finetune_steps", o->steps)
                                   .add("finetune_length", o->length)
                                   .add("finetune_batch", o->batch)
                                   .add("finetune_lr", o->lr)
                                   .add("corpus", o->corpus)
                                   .resolve(o->experiment, o->sets);
    ExperimentConfig e = ExperimentConfig::from_json(cfg);
    e.resume = o->resume;
    if (charlm_settings(e).finetune_steps <= 0)
      throw UsageError("--finetune-steps: fine-tuning needs at least one step (finetune_steps is 0)");
    set_threads(o->run.threads);
    for (auto& map : maps) {
      Progress progress(o->run.quiet);
      const auto out = finetune_charlm(e, cfg, o->checkpoint, map, [&](int step, int steps, double loss) {
        progress.update(fmt::format("[finetune {} at {}] step {}/{} loss {:.4f}", map.written,
                                    charlm_settings(e).finetune_length, step, steps, loss));
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

void add_sample(CLI::App& app) {
  struct Opts {
    std::string checkpoint, prompt = "the time traveller", map = identity_map(), rope_scaling;
    int chars = 200;
    std::optional<int> context;
    double temperature = 0;
    int seed = 0;
  };
  auto o = std::make_shared<Opts>();
  auto* sub = app.add_subcommand("sample",
                                 "Continue a prompt with a trained character LM: greedy (temperature 0) "
                                 "or drawn from softmax(logits / temperature)");
  sub->add_option("--checkpoint", o->checkpoint, "checkpoint.json of a character LM (pe-bench train --task charlm)")
      ->required();
  sub->add_option("--prompt", o->prompt, "text to continue (lower-cased; non-letters become one space)")
      ->capture_default_str();
  sub->add_option("--chars", o->chars, "characters to generate")->capture_default_str()->check(CLI::Range(1, 100000));
  sub->add_option("--temperature", o->temperature,
                  "0: the most likely character each time; at most 100 (a finite number)")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 100.0));
  sub->add_option("--sample-seed", o->seed, "seed of the draws when temperature > 0")
      ->capture_default_str()
      ->check(CLI::Range(0, kMaxSeed));
  sub->add_option("--context", o->context,
                  "characters the model sees: past them the window slides and positions keep counting (default: "
                  "its training length); its key/value cache is checked against this machine's memory before any work")
      ->check(CLI::Range(1, kMaxContext));
  sub->add_option("--map", o->map, fmt::format("read a RoPE model with this context-extension map: {}", known_maps()))
      ->capture_default_str();
  sub->add_option("--rope-scaling", o->rope_scaling,
                  "read a RoPE model as a Transformers config says (a config.json path or JSON; instead of --map)");
  add_renamed_option(sub, "--seed", "--sample-seed");
  add_renamed_option(sub, "--length", "--context");
  sub->callback([sub, o] {
    if (!o->rope_scaling.empty() && sub->count("--map")) throw UsageError("give --map or --rope-scaling, not both");
    const MapSpec map = o->rope_scaling.empty() ? parse_maps({o->map}, "--map").front()
                                                : parse_rope_scaling(o->rope_scaling, "--rope-scaling").map;
    LoadedCharLM cp = load_charlm_checkpoint(o->checkpoint);
    const int train_len = cp.meta.at("training").at("train_length");
    const int context = o->context.value_or(train_len);
    if (!cp.model->scheme().can_read(context - 1))
      throw UsageError(fmt::format("--context {}: the model has positions for only {} characters", context,
                                   cp.model->scheme().max_position() + 1));
    check_memory(decoder_bytes(*cp.model, context),
                 fmt::format("--context {}: a key/value cache of {} positions", context, context), "lower --context");
    if (cp.plan_map && !map.is_identity())
      throw UsageError(fmt::format("{} was fine-tuned with {} and reads with that plan; drop --map/--rope-scaling",
                                   o->checkpoint, cp.plan_map->written));
    if (!cp.model->scheme().reads_map(map))
      throw UsageError(
          fmt::format("--map {}: {} has no frequencies to rescale", map.written, cp.model->scheme().name()));
    if (const int L = random_positions_of(cp.meta.at("training")); L > 0)
      fmt::print(stderr,
                 "note: {} was trained at positions drawn from [0, {}); sampling reads positions 0, 1, 2, ... "
                 "(one character after another)\n",
                 o->checkpoint, L);
    // a fine-tuned checkpoint reads with the plan it was tuned with (set when it was loaded)
    fmt::print("{}\n", charlm_sample(*cp.model, cp.vocab, o->prompt, o->chars, context, o->temperature, o->seed,
                                     cp.plan_map ? std::nullopt : std::optional<MapSpec>(map), train_len));
  });
}

}  // namespace

void add_charlm_tools(CLI::App& app) {
  add_finetune(app);
  add_sample(app);
  check_option_values(app);
}

}  // namespace pe::cli
