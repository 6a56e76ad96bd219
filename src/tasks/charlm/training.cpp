#include "tasks/charlm/training.h"

#include "core/keys.h"
#include "core/memory.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "core/errors.h"
#include "core/files.h"
#include "core/fpenv.h"
#include "core/interrupt.h"
#include "core/math.h"
#include "core/parallel.h"
#include "core/rng.h"
#include "core/sha1.h"
#include "harness/key_table.h"
#include "harness/random_positions.h"
#include "harness/run.h"
#include "harness/run_dir.h"
#include "harness/token_loop.h"
#include "harness/training_state.h"
#include "models/block_stack_decoder.h"
#include "models/block_stack_keys.h"
#include "models/cross_entropy.h"
#include "tasks/charlm/checkpoint.h"
#include "tasks/charlm/documents.h"

namespace pe {

using nlohmann::json;

// Each key of the char LM once, with the field of CharLMSettings it fills (decode and the cached
// keys are read where the readings are made).
const KeyTable<CharLMSettings>& charlm_table() {
  static const KeyTable<CharLMSettings> table =
      KeyTable<CharLMSettings>()
          .keys(block_stack_keys(1, 1))  // the char LM's defaults: Task::defaults
          .bind("n_heads", &CharLMSettings::n_heads)
          .bind("n_layers", &CharLMSettings::n_layers)
          .bind("weight_decay", &CharLMSettings::weight_decay)
          .field({"corpus", KeyType::String, "data/timemachine.txt",
                  "plain-text corpus (the shipped one is sha1-checked)", 1},
                 &CharLMSettings::corpus)
          .field({"train_windows", KeyType::Int, 100000, "training windows start at 0 .. train_windows-1 (shuffled)", 1,
                  100000000},
                 &CharLMSettings::train_windows)
          .field(for_reading({"val_start", KeyType::Int, 100000, "first validation window start", 0, 100000000}),
                 &CharLMSettings::val_start)
          .field(for_reading({"val_windows", KeyType::Int, 3000,
                              "validation windows (starts val_start ..), read in order", 1, 10000000}),
                 &CharLMSettings::val_windows)
          .field(for_reading({"eval_batch", KeyType::Int, 16, "validation windows per batch", 1, kMaxBatch}),
                 &CharLMSettings::eval_batch)
          .field({"finetune_steps", KeyType::Int, 0,
                  "fine-tune RoPE at finetune_length with each map of maps for this many steps (0: no)", 0, kMaxSteps},
                 &CharLMSettings::finetune_steps)
          .field({"finetune_length", KeyType::Int, 512, "fine-tuning context", 2, kMaxLength},
                 &CharLMSettings::finetune_length)
          .field({"finetune_batch", KeyType::Int, 16, "fine-tuning batch", 1, kMaxBatch},
                 &CharLMSettings::finetune_batch)
          .field({"finetune_lr", KeyType::Float, 1e-3, "fine-tuning learning rate", 0, 1, true},
                 &CharLMSettings::finetune_lr)
          .field(for_reading({"band", KeyType::Int, 0,
                              "also read RoPE at the longest length with only this many recent keys visible (0: no)", 0,
                              kMaxLength}),
                 &CharLMSettings::band)
          .field(for_reading({"position_window", KeyType::Int, 16,
                              "positions per bin of the per-position loss at the longest length", 1, kMaxLength}),
                 &CharLMSettings::position_window)
          .key(for_reading({"decode", KeyType::String, "full",
                            "how readings run: full (a forward over each window) or cached (token by token through a "
                            "key/value cache)",
                            1}))
          .key(for_reading({"cached_windows", KeyType::Int, 0,
                            "validation windows a cached-decoding reading takes (the first of val_windows; 0: all of "
                            "them): token by "
                            "token costs far more than a forward",
                            0, 10000000}))
          .key(for_reading({"cached_maps", KeyType::StringList, nlohmann::json::array(),
                            "maps RoPE is also read with through cached decoding (e.g. dynamic, dynamic-recompute: "
                            "cached keys kept or "
                            "turned again); none reads plainly"}))
          .field({"mem_len", KeyType::Int, 0,
                  "Transformer-XL's segment memory: train on batch_size streams of consecutive segments, each "
                  "attending to the "
                  "last mem_len states of its stream before it (no gradient into them), and also read every window in "
                  "segments "
                  "of the training length with this memory (0: no memory). Base runs only; not with a scheme that adds "
                  "positions to the embedding",
                  0, kMaxLength},
                 &CharLMSettings::mem_len)
          .field({"train_order", KeyType::String, "",
                  "a JSON file with the window starts of every training step ([[s, ...], ...], e.g. another "
                  "implementation's "
                  "loader; a partial batch is kept); empty: pe-bench's seeded shuffle. Base runs only, not fine-tunes",
                  0},
                 &CharLMSettings::train_order)
          .field({"packing", KeyType::String, "none",
                  "how the paragraphs of the text fill the training windows (docs/tasks.md, Packing): " +
                      packing_help() + " (none and packed: the running text, the same windows)",
                  1},
                 &CharLMSettings::packing)
          .field(for_reading({"read_layouts", KeyType::StringList, nlohmann::json::array(),
                              "readings each plain one adds: isolated-reset and isolated-global (the validation "
                              "windows, each paragraph's piece seeing only itself, positions reset or global), "
                              "documents (each validation paragraph read alone, from position 0)"}),
                 &CharLMSettings::read_layouts)
          .field(for_reading({"val_stride", KeyType::Int, 1,
                              "validation window w starts at val_start + w * val_stride (1: d2l's overlapping windows)",
                              1, 1000000}),
                 &CharLMSettings::val_stride)
          .field(random_positions_key(), &CharLMSettings::random_positions);
  return table;
}

const std::vector<std::string>& charlm_read_layouts() {
  static const std::vector<std::string> list = {"isolated-reset", "isolated-global", "documents"};
  return list;
}

std::vector<KeySpec> charlm_keys() { return charlm_table().specs(); }

CharLMSettings charlm_settings(const ExperimentConfig& e) { return charlm_table().read(e); }

BlockStackConfig charlm_model_config(const ExperimentConfig& e, const std::string& scheme, int vocab) {
  BlockStackConfig c;
  c.vocab = vocab;
  c.d_model = e.d_model;
  c.n_heads = charlm_settings(e).n_heads;
  c.n_layers = charlm_settings(e).n_layers;
  c.embed_init_std = e.embed_init_std;
  c.scheme = scheme_config(e, scheme);
  return c;
}

CharCorpus load_experiment_corpus(const ExperimentConfig& e) {
  const bool shipped = charlm_settings(e).corpus == kTimeMachinePath;
  return load_char_corpus(charlm_settings(e).corpus, shipped ? kTimeMachineSha1 : "");
}

// ---- training windows

WindowStream::WindowStream(int n_windows, uint64_t seed) : n_(n_windows), seed_(seed) { shuffle(); }

void WindowStream::shuffle() {
  order_.resize(n_);
  for (int i = 0; i < n_; ++i) order_[i] = i;
  Rng rng(stream_key({kTagTrain, seed_, 0xC4A5, uint64_t(epoch_)}));
  for (int i = n_ - 1; i > 0; --i) std::swap(order_[i], order_[rng.below(i + 1)]);  // Fisher-Yates
  at_ = 0;
}

void WindowStream::seek(const json& position, const std::string& path) {
  int epoch = 0, at = 0;
  try {
    epoch = checked_int32(position.value("epoch", json()), "epoch");
    at = checked_int32(position.value("at", json()), "at", 0, n_);
  } catch (const UsageError&) {
    throw CheckpointError(
        fmt::format("{}: loop.stream {} is not a position in the window stream of {} windows; "
                    "remove the file to train that run from scratch",
                    path, position.dump(), n_));
  }
  epoch_ = epoch;
  shuffle();
  at_ = size_t(at);
}

void WindowStream::next(int B, std::vector<int>& starts) {
  starts.resize(B);
  for (int b = 0; b < B; ++b) {
    if (at_ == order_.size()) ++epoch_, shuffle();
    starts[b] = order_[at_++];
  }
}

WindowOrder load_window_order(const std::string& path, int steps, int batch, int n_windows) {
  std::string text;
  try {
    text = read_file(path);
  } catch (const std::exception& err) {
    throw ConfigError(fmt::format("train_order: {}; give a file of window starts, [[start, ...], ...]", err.what()));
  }
  json doc;
  try {
    doc = parse_json(text);
  } catch (const std::exception&) {
    throw ConfigError(
        fmt::format("train_order: cannot read {} as JSON; give a file written as [[start, ...], ...]", path));
  }
  if (!doc.is_array() || int(doc.size()) < steps)
    throw ConfigError(
        fmt::format("train_order: {} holds {} steps of window starts but the run takes {}; give one list "
                    "per step",
                    path, doc.is_array() ? doc.size() : 0, steps));
  WindowOrder order{std::vector<std::vector<int>>(steps), sha1_hex(text)};
  for (int s = 0; s < steps; ++s) {
    const json& b = doc[size_t(s)];
    if (!b.is_array() || b.empty() || int(b.size()) > batch)
      throw ConfigError(fmt::format("train_order: step {} of {} is not a list of 1 to {} window starts (batch_size)",
                                    s + 1, path, batch));
    for (const json& v : b) {
      if (!v.is_number_integer() || v.get<long long>() < 0 || v.get<long long>() >= n_windows)
        throw ConfigError(fmt::format("train_order: step {} of {} has start {}, not one of 0 .. {} (train_windows)",
                                      s + 1, path, v.dump(), n_windows - 1));
      order.steps[s].push_back(v.get<int>());
    }
  }
  return order;
}

std::vector<std::vector<int>> window_stream_order(int n_windows, uint64_t seed, int steps, int batch) {
  WindowStream stream(n_windows, seed);
  std::vector<std::vector<int>> order(steps);
  for (auto& b : order) stream.next(batch, b);
  return order;
}

double charlm_step_flops(const BlockStackConfig& c, int B, int T, bool train) {
  const double N = double(B) * T, D = c.d_model, dh = double(c.d_model) / c.n_heads;
  const double linear = 2 * N * D * (3 * D) + 2 * N * D * D;                       // qkv and proj
  const double attention = 2 * (2 * double(B) * c.n_heads * T * T * dh);           // q k^T and p v
  const double forward = c.n_layers * (linear + attention) + 2 * N * D * c.vocab;  // + tied output head
  return train ? 3 * forward : forward;
}

double charlm_memory_bytes(const BlockStackConfig& c, int B, int T, int threads, bool train) {
  const double D = c.d_model, V = c.vocab, L = c.n_layers, H = c.n_heads;
  // parameters: embedding, fused qkv and proj per block, and a margin for a scheme's tables
  const double n = V * D + L * 4 * D * D + double(kMaxLength) * D;
  const int per_chunk = std::max(1, kBlockStackChunkTokens / T), nb = std::min(per_chunk, std::max(B, 1));
  const double chunks = std::ceil(double(B) / per_chunk), N = double(nb) * T;
  // a cache: the state before each block and after the last, Q K V O per block, the logits (and
  // their gradient and the backward scratch when training, with the probabilities of every block)
  double cache = (L + 1) * N * D + 4 * L * N * D + N * V;
  if (train) cache += L * nb * H * double(T) * T + N * V + 5 * N * D;
  double floats = threads * cache + n * (train ? 4 + chunks : 1);
  double bytes = 4 * floats;
  if (train)
    bytes += 3 * n * 40;  // a training state as JSON (a value and its text per float)
  else
    bytes += n * 40;  // the checkpoint read as JSON
  return bytes;
}

void check_charlm_fits(const BlockStackConfig& c, int B, int T, bool train, const std::string& what) {
  check_memory(charlm_memory_bytes(c, B, T, std::max(1, max_threads()), train),
               fmt::format("{} (d_model {}, n_layers {}, n_heads {}, batch {} at {})", what, c.d_model, c.n_layers,
                           c.n_heads, B, T),
               "lower d_model, n_layers, n_heads, the batch or the length");
}

void check_charlm_random_positions_readings(int L, const json& cfg, const std::string& what) {
  auto refuse = [&](const std::string& key, const std::string& why, const std::string& fix) {
    throw ConfigError(fmt::format("{} ({}) and key '{}': {}; {}", what, L, key, why, fix));
  };
  if (cfg.value("mem_len", 0) > 0)
    refuse("mem_len", "a segment memory reads consecutive segments at consecutive positions", "give mem_len 0");
  if (!cfg.value("read_layouts", json::array()).empty())
    refuse("read_layouts", "each layout lays out positions of its own", "give read_layouts []");
  if (cfg.value("decode", "full") == "cached")
    refuse("decode", "cached decoding reads position t at step t", "give decode full");
  if (!cfg.value("cached_maps", json::array()).empty())
    refuse("cached_maps", "cached decoding reads position t at step t", "give cached_maps []");
  for (auto& n : cfg.value("eval_lengths", json::array()))
    if (n.get<int>() > L)
      refuse("eval_lengths",
             fmt::format("a window of {} draws its positions from [0, {}) without repeats", n.get<int>(), L),
             fmt::format("read at {} or shorter", L));
}

// ---- training runs

long validation_end(const CharLMSettings& s, int longest) {
  return long(s.val_start) + long(s.val_windows - 1) * s.val_stride + longest + 1;
}

namespace {

void check_windows_fit(const ExperimentConfig& e, const CharCorpus& corpus, int longest) {
  const long need_train =
      long(charlm_settings(e).train_windows) + std::max(e.train_length, charlm_settings(e).finetune_length) + 1;
  const long need_val = validation_end(charlm_settings(e), longest);
  const long have = long(corpus.ids.size());
  if (need_train > have || need_val > have)
    throw DataError(fmt::format(
        "corpus {} has {} characters after preprocessing, but the windows need {} (training) "
        "and {} (validation); lower train_windows / val_start / val_windows / val_stride or use a longer text",
        corpus.path, have, need_train, need_val));
}

}  // namespace

void check_validation_fits(const ExperimentConfig& e, const CharCorpus& corpus) {
  const int longest = *std::max_element(e.eval_lengths.begin(), e.eval_lengths.end());
  const long need = validation_end(charlm_settings(e), longest), have = long(corpus.ids.size());
  if (need > have)
    throw DataError(
        fmt::format("corpus {} has {} characters after preprocessing, but {} validation windows from start "
                    "{} read at length {} need {}; lower val_start, val_windows or val_stride, or read a longer text",
                    corpus.path, have, charlm_settings(e).val_windows, charlm_settings(e).val_start, longest, need));
}

namespace {

// x, y ([starts.size(), T]): the windows at `starts`, the batch of one step.
void fill_windows(const CharCorpus& corpus, const std::vector<int>& starts, int T, std::vector<int>& x,
                  std::vector<int>& y) {
  const size_t B = starts.size();
  x.resize(B * T), y.resize(B * T);
  for (size_t b = 0; b < B; ++b) char_window(corpus, starts[b], T, &x[b * T], &y[b * T]);
}

// The char LM's constant in the streams of its randomised training positions (draw_batch_positions).
constexpr uint64_t kCharLMPositions = 0xC4A5;

// The corpus's training windows as the loop's batches: B windows of T tokens per step from the
// shuffled stream (its position is part of a saved state), laid out under a packing policy
// (tasks/charlm/documents.h; none: the windows at starts 0 .. n-1, as always). random_positions L > 0:
// each window reads a sorted draw of [0, L) as its positions (a function of the seed and step).
class WindowBatches final : public TokenBatches {
 public:
  WindowBatches(const CharCorpus& corpus, Packing packing, int n_windows, uint64_t seed, int B, int T,
                int random_positions)
      : corpus_(corpus),
        packing_(packing),
        windows_(charlm_training_windows(corpus, packing, n_windows, T)),
        stream_(windows_.size(), seed),
        seed_(seed),
        B_(B),
        T_(T),
        range_(random_positions) {}
  void next(int step, std::vector<int>& x, std::vector<int>& y) override {
    stream_.next(B_, picks_);
    x.resize(size_t(B_) * T_), y.resize(size_t(B_) * T_);
    at_.clear();
    for (int b = 0; b < B_; ++b) {
      const size_t w = size_t(picks_[size_t(b)]);
      charlm_window(corpus_, packing_, windows_.start[w], windows_.content[w], T_, &x[size_t(b) * T_],
                    &y[size_t(b) * T_], at_);
    }
    if (range_ > 0) draw_batch_positions(seed_, kCharLMPositions, step, B_, T_, range_, at_.pos);
  }
  const TokenCoordinates* coordinates() override { return at_.view(); }
  json position() const override { return stream_.position(); }
  void seek(const json& position, const std::string& path) override { stream_.seek(position, path); }

 private:
  const CharCorpus& corpus_;
  Packing packing_;
  TrainingWindows windows_;
  WindowStream stream_;
  std::vector<int> picks_;
  BatchCoordinates at_;
  uint64_t seed_;
  int B_, T_, range_;
};

// The windows of an order read from a file: step s takes order[s - 1] (a function of the step, so a
// resumed run needs no stream position), at positions drawn as WindowBatches draws them.
class OrderedWindowBatches final : public TokenBatches {
 public:
  OrderedWindowBatches(const CharCorpus& corpus, std::vector<std::vector<int>> order, int T, uint64_t seed,
                       int random_positions)
      : corpus_(corpus), order_(std::move(order)), seed_(seed), T_(T), range_(random_positions) {}
  void next(int step, std::vector<int>& x, std::vector<int>& y) override {
    const std::vector<int>& starts = order_.at(size_t(step) - 1);
    fill_windows(corpus_, starts, T_, x, y);
    if (range_ > 0) draw_batch_positions(seed_, kCharLMPositions, step, int(starts.size()), T_, range_, at_.pos);
  }
  const TokenCoordinates* coordinates() override { return at_.view(); }

 private:
  const CharCorpus& corpus_;
  std::vector<std::vector<int>> order_;
  BatchCoordinates at_;
  uint64_t seed_;
  int T_, range_;
};

// Transformer-XL's training stream (segment recurrence): the training text (the tokens of windows
// 0 .. n_windows-1) cut into B streams of consecutive segments of T tokens, batch k of an epoch holding
// segment k of every stream; each epoch starts at a seeded offset below T, so segment boundaries move
// from epoch to epoch, and its first batch starts the streams afresh (an empty memory). A function of
// the step: a resumed run needs no stream position.
class SegmentStreamBatches final : public TokenBatches {
 public:
  SegmentStreamBatches(const CharCorpus& corpus, int n_windows, uint64_t seed, int B, int T)
      : corpus_(corpus), seed_(seed), B_(B), T_(T), segments_(n_windows / (B * T)) {
    if (segments_ < 1)
      throw ConfigError(
          fmt::format("mem_len: {} training windows cannot hold batch_size {} streams of a segment of "
                      "{} tokens; raise train_windows or lower batch_size",
                      n_windows, B, T));
  }
  void next(int step, std::vector<int>& x, std::vector<int>& y) override {
    const int epoch = (step - 1) / segments_, k = (step - 1) % segments_;
    Rng rng(stream_key({kTagTrain, seed_, 0x7E6, uint64_t(epoch)}));
    const int offset = int(rng.below(T_));
    starts_.resize(B_);
    for (int b = 0; b < B_; ++b) starts_[b] = offset + (b * segments_ + k) * T_;
    fill_windows(corpus_, starts_, T_, x, y);
    fresh_ = k == 0;
  }
  bool starts_streams() const override { return fresh_; }

 private:
  const CharCorpus& corpus_;
  uint64_t seed_;
  int B_, T_, segments_;
  bool fresh_ = true;
  std::vector<int> starts_;
};

// Trains `model` for `steps` at context T and writes the run directory (harness/run.h).
TrainedRun train_and_write(BlockStack<float>& model, const CharCorpus& corpus, const ExperimentConfig& e, json cfg,
                           const std::string& run_dir, int seed, int steps, int B, int T, double lr, const json& plan,
                           const StepFn& progress) {
  const std::string what = fmt::format("charlm {} seed {}{}", model.scheme().name(), seed,
                                       plan.is_null() ? "" : " fine-tuned with " + plan.at("map").get<std::string>());
  const CharLMSettings cs = charlm_settings(e);
  TokenLoopSettings settings;
  settings.steps = steps, settings.batch = B, settings.length = T, settings.log_every = e.log_every;
  settings.adam = AdamConfig{lr, e.beta1, e.beta2, e.eps, cs.weight_decay};
  settings.progress = progress;
  settings.training = {
      {"seed", seed}, {"batch_size", B}, {"lr", lr}, {"train_length", T}, {"corpus_sha1", corpus.sha1}};
  // randomised positions: base runs (the task's check refuses them beside fine-tunes and a segment memory)
  const int range = plan.is_null() ? cs.random_positions : 0;
  if (range > 0) settings.training["random_positions"] = range;
  std::unique_ptr<TokenBatches> batches;
  if (plan.is_null() && cs.mem_len > 0) {  // a base run with Transformer-XL's memory
    if (!cs.train_order.empty())
      throw ConfigError(
          "mem_len: a run with a segment memory trains on consecutive segments, not on windows from "
          "train_order; give one of the two");
    if (model.scheme().acts_on_embedding())
      throw ConfigError(
          fmt::format("mem_len: {} adds absolute positions to the embedding, so a segment's positions "
                      "would restart where its memory ends; give mem_len 0 or a relative scheme",
                      model.scheme().name()));
    settings.mem_len = cs.mem_len;
    settings.training["mem_len"] = cs.mem_len;
    batches = std::make_unique<SegmentStreamBatches>(corpus, cs.train_windows, uint64_t(seed), B, T);
  } else if (plan.is_null() && !cs.train_order.empty()) {  // a base run on an order read from a file
    WindowOrder order = load_window_order(cs.train_order, steps, B, cs.train_windows);
    settings.training["train_order_sha1"] = order.sha1;  // which order the run took, by its content
    batches = std::make_unique<OrderedWindowBatches>(corpus, std::move(order.steps), T, uint64_t(seed), range);
  } else {
    const Packing packing = packing_from_name(cs.packing);
    if (packing != Packing::None)  // (a run on the running text has the record it always had)
      settings.training["packing"] = {{"policy", cs.packing}, {"documents", "paragraphs"}};
    batches = std::make_unique<WindowBatches>(corpus, packing, cs.train_windows,
                                              uint64_t(seed) + (plan.is_null() ? 0 : 0x5EED), B, T, range);
  }
  settings.checkpoint = [&](const BlockStack<float>& m, const json& training) {
    return checkpoint_text(make_charlm_checkpoint(m, corpus.vocab, training, plan));
  };
  return train_run(RunSpec{run_dir, cfg, steps, e.checkpoint_every, what, e.resume},
                   [&] { return std::make_unique<TokenLoop>(model, *batches, settings); });
}

}  // namespace

TrainedRun train_charlm(const ExperimentConfig& e, const json& resolved, const std::string& scheme, int seed,
                        const StepFn& progress) {
  const CharCorpus corpus = load_experiment_corpus(e);
  check_windows_fit(e, corpus, *std::max_element(e.eval_lengths.begin(), e.eval_lengths.end()));
  const BlockStackConfig config = charlm_model_config(e, scheme, int(corpus.vocab.size()));
  // before any work: this run, and the fine-tunes the experiment asks of it (each checks again)
  check_charlm_fits(config, e.batch_size, e.train_length, true, "training this char LM");
  if (charlm_settings(e).finetune_steps > 0)
    check_charlm_fits(config, charlm_settings(e).finetune_batch, charlm_settings(e).finetune_length, true,
                      "fine-tuning it");
  BlockStack<float> model(config);
  if (!model.scheme().can_read(e.train_length - 1))
    throw ConfigError(fmt::format("{}: the learned table has {} rows, fewer than train_length {}", scheme,
                                  model.scheme().max_position() + 1, e.train_length));
  if (const int L = charlm_settings(e).random_positions; L > 0 && !model.scheme().can_read(L - 1))
    throw ConfigError(
        fmt::format("{}: the table has {} rows, but random_positions {} draws positions up to {} "
                    "(set learned_rows to {})",
                    scheme, model.scheme().max_position() + 1, L, L - 1, L));
  model.init(uint64_t(seed));
  const std::string dir = run_dir_path(e.runs_dir, "charlm", scheme, seed);
  return train_and_write(model, corpus, e, run_config(resolved, scheme, seed), dir, seed, e.steps, e.batch_size,
                         e.train_length, e.lr, nullptr, progress);
}

TrainedRun finetune_charlm(const ExperimentConfig& e, const json& resolved, const std::string& checkpoint,
                           const MapSpec& map, const StepFn& progress) {
  LoadedCharLM loaded = load_charlm_checkpoint(checkpoint);
  if (loaded.plan_map)
    throw UsageError(fmt::format("{} was already fine-tuned with {}; fine-tune the original checkpoint", checkpoint,
                                 loaded.plan_map->written));
  BlockStack<float>& model = *loaded.model;
  check_charlm_fits(model.config(), charlm_settings(e).finetune_batch, charlm_settings(e).finetune_length, true,
                    "fine-tuning " + checkpoint);
  if (!model.scheme().accepts_frequency_plan())
    throw UsageError(fmt::format("fine-tuning with a context-extension map needs a RoPE model; {} holds {}", checkpoint,
                                 model.scheme().name()));
  if (map.is_identity())
    throw UsageError("map: fine-tuning with " + map.written + " would be plain training; choose a map");
  if (map.scales_by_length())
    throw UsageError("map: " + map.written +
                     " scales logits at read time and leaves the frequencies as trained, so a fine-tune has no plan "
                     "to keep; choose a map that rescales frequencies");
  const int train_len = loaded.meta.at("training").at("train_length");
  const int seed = loaded.meta.at("training").at("seed");
  const CharCorpus corpus = load_experiment_corpus(e);
  if (corpus.vocab != loaded.vocab)
    throw DataError(
        fmt::format("corpus {} has a different vocabulary from the one {} was trained on", corpus.path, checkpoint));
  check_windows_fit(e, corpus, charlm_settings(e).finetune_length);
  FrequencyPlan tuned = model.scheme().plan_for(map, train_len, charlm_settings(e).finetune_length);
  // The checkpoint keeps the frequencies themselves, not only the map that made them.
  auto frequencies = [](const FrequencyPlan& p) {
    json f = {{"theta", p.theta}, {"logit_scale", p.logit_scale}};
    if (p.warp_factor > 0) f["warp"] = {p.warp_window, p.warp_factor};
    return f;
  };
  json plan = {{"map", map}, {"train_length", train_len}, {"read_length", charlm_settings(e).finetune_length}};
  plan.update(frequencies(tuned));
  if (!tuned.layers.empty()) {  // a hybrid whose RoPE layers turn differently: each layer's (null: none)
    plan["layers"] = json::array();
    for (auto& l : tuned.layers) plan["layers"].push_back(l.theta.empty() ? json() : frequencies(l));
  }
  model.scheme().set_frequency_plan(std::move(tuned));
  json cfg = run_config(resolved, model.scheme().name(), seed);
  cfg["finetune_from"] = checkpoint;
  cfg["finetune_map"] = map;
  const std::string parent = checkpoint.substr(0, checkpoint.find_last_of('/'));
  return train_and_write(model, corpus, e, cfg, parent + "-ft-" + map.slug(), seed, charlm_settings(e).finetune_steps,
                         charlm_settings(e).finetune_batch, charlm_settings(e).finetune_length,
                         charlm_settings(e).finetune_lr, plan, progress);
}

// ---- sampling

std::string charlm_sample(BlockStack<float>& model, const std::vector<std::string>& vocab, const std::string& prompt,
                          int chars, int context, double temperature, uint64_t seed, const std::optional<MapSpec>& map,
                          int train_len) {
  auto id_of = [&](char ch) {
    const std::string s(1, ch);
    for (size_t i = 0; i < vocab.size(); ++i)
      if (vocab[i] == s) return int(i);
    for (size_t i = 0; i < vocab.size(); ++i)
      if (vocab[i] == "<unk>") return int(i);
    return 0;
  };
  const std::string pre = d2l_preprocess(prompt);
  if (pre.empty()) throw UsageError("--prompt: give at least one character");
  // positions 0 .. |prompt| + chars - 2 are read (the last character drawn is not fed back)
  const int last = int(pre.size()) + chars - 2;
  if (!model.scheme().can_read(last))
    throw UsageError(
        fmt::format("{} has positions 0..{} only: a {}-character prompt and {} characters need positions up "
                    "to {} (give --chars at most {})",
                    model.scheme().name(), model.scheme().max_position(), pre.size(), chars, last,
                    std::max(0, model.scheme().max_position() + 2 - int(pre.size()))));
  Rng rng(stream_key({kTagTest, seed, 0x5A3}));
  const int V = model.config().vocab;
  BlockStackDecoder<float> decoder(model, context, map, train_len > 0 ? train_len : context,
                                   std::max(context, last + 1));
  std::string text = pre;
  const float* logits = nullptr;
  for (char ch : pre) logits = decoder.step(id_of(ch));
  for (int k = 0; k < chars; ++k) {
    int next = int(std::max_element(logits, logits + V) - logits);
    if (temperature > 0) {
      std::vector<double> p(V);
      double sum = 0;
      for (int v = 0; v < V; ++v) sum += (p[v] = math::exp((logits[v] - logits[next]) / temperature));
      double u = rng.uniform() * sum;
      for (int v = 0; v < V; ++v)
        if ((u -= p[v]) <= 0 || v == V - 1) {
          next = v;
          break;
        }
    }
    text += vocab[next] == "<unk>" ? "?" : vocab[next];
    if (k + 1 < chars) logits = decoder.step(next);
  }
  return text;
}

}  // namespace pe
