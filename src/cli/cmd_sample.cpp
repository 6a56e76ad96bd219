// pe-bench sample: continue a prompt with a trained character LM (d2l's predict).
#include <fmt/format.h>

#include "cli/common.h"
#include "core/errors.h"
#include "tasks/charlm/training.h"
#include "tasks/charlm/checkpoint.h"

namespace pe::cli {

void register_sample(CLI::App& app) {
  struct Opts {
    std::string checkpoint, prompt = "the time traveller";
    int chars = 200, context = 0;
    double temperature = 0;
    uint64_t seed = 0;
  };
  auto o = std::make_shared<Opts>();
  auto* sub = app.add_subcommand("sample", "Continue a prompt with a trained character LM: greedy (temperature 0) "
                                           "or drawn from softmax(logits / temperature)");
  sub->add_option("--checkpoint", o->checkpoint, "checkpoint.json of a character LM (pe-bench train --task charlm)")
      ->required();
  sub->add_option("--prompt", o->prompt, "text to continue (lower-cased; non-letters become one space)")
      ->capture_default_str();
  sub->add_option("--chars", o->chars, "characters to generate")->capture_default_str()->check(CLI::Range(1, 100000));
  sub->add_option("--temperature", o->temperature, "0: the most likely character each time")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 100.0));
  sub->add_option("--seed", o->seed, "seed of the draws when temperature > 0")->capture_default_str();
  sub->add_option("--length", o->context, "characters the model sees (default: its training length)");
  sub->callback([o] {
    LoadedCharLM cp = load_charlm_checkpoint(o->checkpoint);
    const int train_len = cp.meta.at("training").at("train_length");
    const int context = o->context > 0 ? o->context : train_len;
    if (!cp.model->scheme().can_read(context - 1))
      throw UsageError(fmt::format("--length {}: the model has positions for only {} characters", context,
                                   cp.model->scheme().max_position() + 1));
    fmt::print("{}\n", charlm_sample(*cp.model, cp.vocab, o->prompt, o->chars, context, o->temperature, o->seed));
  });
}

}  // namespace pe::cli
