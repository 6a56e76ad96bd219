#include "tasks/passkey/training.h"

#include <fmt/format.h>

#include "harness/block_stack_checkpoint.h"
#include "harness/checkpoint.h"
#include "harness/key_table.h"
#include "harness/random_positions.h"
#include "harness/token_loop.h"
#include "models/block_stack_keys.h"

namespace pe {

using nlohmann::json;

// Each key of the passkey task once, with the field of PasskeySettings it fills.
const KeyTable<PasskeySettings>& passkey_table() {
  static const KeyTable<PasskeySettings> table =
      KeyTable<PasskeySettings>()
          .field({"passkey_symbols", KeyType::Int, 4, "symbols in a passkey (k)", 1, 16},
                 [](PasskeySettings& s) -> int& { return s.spec.symbols; })
          .field(
              {"passkey_alphabet", KeyType::Int, 10, "symbols a passkey draws from (distinct, so at least k)", 2, 64},
              [](PasskeySettings& s) -> int& { return s.spec.alphabet; })
          .field({"filler_words", KeyType::Int, 16, "words of the filler vocabulary", 1, 256},
                 [](PasskeySettings& s) -> int& { return s.spec.filler; })
          .field(for_reading(
                     {"depths", KeyType::Int, 11, "depths read per length, evenly from 0 (first) to 1 (last)", 1, 101}),
                 &PasskeySettings::depths)
          .field(
              for_reading({"cell_sequences", KeyType::Int, 100,
                           "test sequences per (length, depth) cell (shared by every reader)", 1, kMaxTestSequences}),
              &PasskeySettings::cell_sequences)
          .field(for_reading({"test_seed", KeyType::Int, 777,
                              "seed of the test stream (shared by every scheme and seed)", 0, kMaxSeed}),
                 &PasskeySettings::test_seed)
          .field({"packing", KeyType::String, "none",
                  "how passkey problems fill the training window (docs/tasks.md, Packing): " + packing_help(), 1},
                 &PasskeySettings::packing)
          .field({"doc_min_length", KeyType::Int, 16,
                  "under a packing policy other than none, documents are drawn uniformly in [doc_min_length, "
                  "train_length] tokens (at least a passkey, its query and one filler word)",
                  1, kMaxLength},
                 &PasskeySettings::doc_min_length)
          .field(for_reading({"packed_windows", KeyType::Int, 0,
                              "packed test windows (whole documents of doc_min_length .. train_length tokens one "
                              "after another) read at the training length across documents, isolated with positions "
                              "reset and isolated with global positions (0: none)",
                              0, kMaxTestSequences}),
                 &PasskeySettings::packed_windows)
          .field(random_positions_key(), &PasskeySettings::random_positions)
          .field({"lr_floor", KeyType::Float, 0.1,
                  "the learning rate falls from lr to lr_floor * lr along a half cosine over the steps (1: constant)",
                  0, 1},
                 &PasskeySettings::lr_floor)
          .keys(block_stack_keys(4, 3))  // 3 blocks: docs/tasks.md, section 4
          .bind("n_heads", &PasskeySettings::n_heads)
          .bind("n_layers", &PasskeySettings::n_layers)
          .bind("weight_decay", &PasskeySettings::weight_decay);
  return table;
}

std::vector<KeySpec> passkey_keys() { return passkey_table().specs(); }

PasskeySettings passkey_settings(const ExperimentConfig& e) { return passkey_table().read(e); }

void check_passkey_config(const json& cfg) {
  const int k = cfg.at("passkey_symbols"), a = cfg.at("passkey_alphabet");
  if (a < k)
    throw ConfigError(
        fmt::format("key 'passkey_alphabet' ({}) must be at least passkey_symbols ({}): a passkey's "
                    "symbols are distinct",
                    a, k));
  const int least = 2 * k + 2;
  auto check = [&](const std::string& key, int n) {
    if (n < least)
      throw ConfigError(
          fmt::format("key '{}': length {} cannot hold a passkey of {} symbols, its query and one filler "
                      "word (at least {})",
                      key, n, k, least));
  };
  check("train_length", cfg.at("train_length"));
  for (auto& n : cfg.at("eval_lengths")) check("eval_lengths", n);
  const Packing packing = packing_from_name(cfg.at("packing").get<std::string>());
  const int doc_min = cfg.at("doc_min_length"), T = cfg.at("train_length");
  if ((packing != Packing::None || cfg.at("packed_windows") > 0) && (doc_min < least || doc_min > T))
    throw ConfigError(
        fmt::format("key 'doc_min_length' ({}) must lie in [{}, train_length {}]: a document holds a "
                    "passkey of {} symbols, its query and one filler word, and fits the window",
                    doc_min, least, T, k));
  check_random_positions(cfg);
  check_block_stack_shape(cfg);
}

BlockStackConfig passkey_model_config(const ExperimentConfig& e, const std::string& scheme) {
  const PasskeySettings s = passkey_settings(e);
  BlockStackConfig c;
  c.vocab = s.spec.vocab();
  c.d_model = e.d_model;
  c.n_heads = s.n_heads;
  c.n_layers = s.n_layers;
  c.embed_init_std = e.embed_init_std;
  c.scheme = scheme_config(e, scheme);
  return c;
}

json make_passkey_checkpoint(const BlockStack<float>& model, const PasskeySpec& spec, const json& training) {
  const json extra = {{"passkey", {{"symbols", spec.symbols}, {"alphabet", spec.alphabet}, {"filler", spec.filler}}},
                      {"vocab", spec.token_names()}};
  return checkpoint_envelope("passkey", block_stack_section(model.config()), model.config().scheme, training,
                             model.layout(), model.params().data(), extra);
}

LoadedPasskey load_passkey_checkpoint(const std::string& path) {
  CheckpointReader r(path, "passkey");
  return r.fields([&] {
    const json& j = r.json_();
    LoadedPasskey out;
    const json& p = j.at("passkey");
    out.spec.symbols = checked_int32(p.at("symbols"), "passkey.symbols", 1, 16);
    out.spec.alphabet = checked_int32(p.at("alphabet"), "passkey.alphabet", out.spec.symbols, 64);
    out.spec.filler = checked_int32(p.at("filler"), "passkey.filler", 1, 256);
    out.train_length = checked_int32(j.at("training").at("train_length"), "training.train_length", 2, kMaxLength);
    out.seed = checked_int32(j.at("training").at("seed"), "training.seed", 0, kMaxSeed);
    out.random_positions = random_positions_of(j.at("training"));
    out.model = read_block_stack(r);
    if (out.model->config().vocab != out.spec.vocab())
      throw r.fail(fmt::format("its model reads {} tokens but a passkey of this shape has {}",
                               out.model->config().vocab, out.spec.vocab()));
    out.path = path;
    return out;
  });
}

namespace {
// The training batches: named by (seed, step), so a resumed run needs no stream position.
class PasskeyBatches final : public TokenBatches {
 public:
  PasskeyBatches(PasskeySpec spec, uint64_t seed, int B, int T, Packing packing, int doc_min, int random_positions)
      : spec_(spec), seed_(seed), B_(B), T_(T), packing_(packing), doc_min_(doc_min), range_(random_positions) {}
  void next(int step, std::vector<int>& x, std::vector<int>& y) override {
    passkey_train_windows(spec_, seed_, step, B_, T_, packing_, doc_min_, x, y, at_);
    if (range_ > 0) passkey_random_positions(seed_, step, B_, T_, range_, at_.pos);
  }
  const TokenCoordinates* coordinates() override { return at_.view(); }

 private:
  PasskeySpec spec_;
  uint64_t seed_;
  int B_, T_;
  Packing packing_;
  int doc_min_, range_;
  BatchCoordinates at_;
};
}  // namespace

TrainedRun train_passkey(const ExperimentConfig& e, const json& resolved, const std::string& scheme, int seed,
                         const std::function<void(int, int, double)>& progress) {
  const PasskeySettings s = passkey_settings(e);
  auto model = std::make_shared<BlockStack<float>>(passkey_model_config(e, scheme));
  if (!model->scheme().can_read(e.train_length - 1))
    throw ConfigError(fmt::format("{}: the learned table has {} rows, fewer than train_length {}", scheme,
                                  model->scheme().max_position() + 1, e.train_length));
  if (s.random_positions > 0 && !model->scheme().can_read(s.random_positions - 1))
    throw ConfigError(fmt::format(
        "{}: the table has {} rows, but random_positions {} draws positions up to {} "
        "(set learned_rows to {})",
        scheme, model->scheme().max_position() + 1, s.random_positions, s.random_positions - 1, s.random_positions));
  model->init(uint64_t(seed));
  const Packing packing = packing_from_name(s.packing);
  auto batches = std::make_shared<PasskeyBatches>(s.spec, uint64_t(seed), e.batch_size, e.train_length, packing,
                                                  s.doc_min_length, s.random_positions);
  TokenLoopSettings settings;
  settings.steps = e.steps, settings.batch = e.batch_size, settings.length = e.train_length;
  settings.log_every = e.log_every;
  settings.adam = AdamConfig{e.lr, e.beta1, e.beta2, e.eps, s.weight_decay};
  settings.progress = progress;
  settings.lr_at = half_cosine_lr(e.lr, s.lr_floor, e.steps);
  settings.training = {{"seed", seed}, {"batch_size", e.batch_size}, {"lr", e.lr}, {"train_length", e.train_length}};
  if (packing != Packing::None)  // (a model trained on whole windows has the record it always had)
    settings.training["packing"] = {{"policy", s.packing}, {"doc_min_length", s.doc_min_length}};
  if (s.random_positions > 0) settings.training["random_positions"] = s.random_positions;
  settings.checkpoint = [spec = s.spec](const BlockStack<float>& m, const json& training) {
    return checkpoint_text(make_passkey_checkpoint(m, spec, training));
  };
  const RunSpec spec = experiment_run(e, resolved, scheme, seed, fmt::format("passkey {} seed {}", scheme, seed));
  return train_run(spec, [&] { return std::make_unique<TokenLoop>(*model, *batches, settings); });
}

}  // namespace pe
