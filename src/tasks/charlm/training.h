// The character-LM experiment (tasks.md section 3): training TinyCharLM on The Time Machine,
// validation perplexity at several contexts, RoPE re-read with a context-extension map, fine-tuning at
// a longer context with the map fixed, the per-position loss, and sampling.
// Run directories: <runs_dir>/charlm/<scheme>/seed<N>[-ft-<map>]/{config.json, metrics.jsonl, checkpoint.json}
#pragma once
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/adam.h"
#include "harness/config.h"
#include "harness/packing.h"
#include "harness/run.h"
#include "models/block_stack.h"
#include "models/block_stack_trainer.h"
#include "tasks/charlm/corpus.h"

namespace pe {

// The char LM's own keys (Task::keys) and their values in an experiment.
std::vector<KeySpec> charlm_keys();
struct CharLMSettings {
  int n_heads = 4, n_layers = 2, train_windows = 0, val_start = 0, val_windows = 0, eval_batch = 0;
  int finetune_steps = 0, finetune_length = 0, finetune_batch = 0, band = 0, position_window = 0;
  double weight_decay = 0, finetune_lr = 0;
  std::string corpus;
  std::string train_order;                // a window order file for the base runs ("" : the seeded shuffle)
  int mem_len = 0;                        // Transformer-XL's segment memory (0: none)
  std::string packing;                    // how the paragraphs fill the training windows (tasks/charlm/documents.h)
  std::vector<std::string> read_layouts;  // the readings each plain one adds (charlm_read_layouts)
  int val_stride = 1;                     // validation window w starts at val_start + w * val_stride
  int random_positions = 0;               // harness/random_positions.h (0: positions 0 .. n-1)
};
// The layouts a plain reading can add (read_layouts): the validation windows with each piece of a
// paragraph isolated (positions reset or global), and each validation paragraph read alone.
const std::vector<std::string>& charlm_read_layouts();
CharLMSettings charlm_settings(const ExperimentConfig& e);

BlockStackConfig charlm_model_config(const ExperimentConfig& e, const std::string& scheme, int vocab);
// The corpus of an experiment: the shipped Time Machine is sha1-checked, another path is read as is.
CharCorpus load_experiment_corpus(const ExperimentConfig& e);
// The validation windows (val_start .. + val_windows, at the longest eval length) lie inside the
// corpus; DataError (exit 4) before any reading otherwise.
void check_validation_fits(const ExperimentConfig& e, const CharCorpus& corpus);
// A model trained with random_positions L (`what`: the key, or the checkpoint that records it) reads at
// positions drawn from [0, L) in full forwards only: ConfigError when cfg asks for a reading that lays out
// positions of its own (mem_len's segments, read_layouts, cached decoding: decode cached or cached_maps) or a
// length past L (eval_lengths).
void check_charlm_random_positions_readings(int L, const nlohmann::json& cfg, const std::string& what);
// One past the last character the validation windows read at `longest` (their last target).
long validation_end(const CharLMSettings& s, int longest);

// A window order read from a file (the train_order key): a JSON list with one list of window starts
// per step, e.g. another implementation's data loader (a last partial batch of an epoch is kept as it
// is). ConfigError naming train_order when the file is unreadable, shorter than `steps`, or holds a
// batch that is empty, longer than `batch` or a start outside 0 .. n_windows-1.
struct WindowOrder {
  std::vector<std::vector<int>> steps;  // [step - 1]: that step's window starts
  std::string sha1;                     // of the file's bytes, for the checkpoint's training record
};
WindowOrder load_window_order(const std::string& path, int steps, int batch, int n_windows);
// The window order pe-bench's own stream gives (WindowStream with seed, B per step), in the same form.
std::vector<std::vector<int>> window_stream_order(int n_windows, uint64_t seed, int steps, int batch);

// Training windows: the starts 0 .. n-1 in a fresh shuffled order each epoch (seeded), B per step.
class WindowStream {
 public:
  WindowStream(int n_windows, uint64_t seed);
  void next(int B, std::vector<int>& starts);
  // Where the stream stands (epoch, windows taken in it), to continue it after a stop.
  nlohmann::json position() const { return {{"epoch", epoch_}, {"at", at_}}; }
  void seek(const nlohmann::json& position, const std::string& path);  // CheckpointError naming path if out of range

 private:
  void shuffle();
  int n_;
  uint64_t seed_;
  int epoch_ = 0;
  size_t at_ = 0;
  std::vector<int> order_;
};

// Validation at context T: windows val_start .. val_start+n-1, `batch` per batch, in order.
struct PerplexityResult {
  int length = 0;
  double loss = 0;                    // mean over batches of the batch's mean token cross-entropy
  double perplexity = 0;              // exp(loss)
  std::vector<double> position_loss;  // [T]: mean cross-entropy at each position over all windows
};
// Window w starts at val_start + w * stride (every reading below).
// random_positions L > 0: every window reads a sorted draw of T positions of [0, L)
// (charlm_validation_positions), as a model trained with random_positions L was trained.
PerplexityResult charlm_perplexity(BlockStack<float>& model, const CharCorpus& corpus, int T, int val_start,
                                   int n_windows, int batch, const Visibility& vis = Visibility{}, int stride = 1,
                                   int random_positions = 0);
// The positions the validation window at `start` reads at length T drawing from [0, range), pos [T]: named by
// (start, T, range), so every reader of that window at that length reads the same ones.
void charlm_validation_positions(long start, int T, int range, int* pos);
// The same at several lengths from one pass at the longest. Every length reads the windows that start
// at val_start, ..., and attention is causal: the losses at positions 0..L-1 of a window are those of
// its first L tokens read alone, bit for bit (every row sees the same keys through the same products;
// a key inside a block's span but invisible to a row adds an exact zero). Each length's batch sums
// run over the same tokens in the same order, so every figure equals the one charlm_perplexity(L)
// gives (tested), at the cost of the longest pass alone. `layout`: the windows laid out as that
// packing policy lays them (tasks/charlm/documents.h); isolation and positions reset at a paragraph
// keep causality's prefixes, so the same holds. With random_positions L > 0 each length draws its own
// positions (charlm_perplexity), so each takes a pass of its own.
std::vector<PerplexityResult> charlm_perplexities(BlockStack<float>& model, const CharCorpus& corpus,
                                                  const std::vector<int>& lengths, int val_start, int n_windows,
                                                  int batch, const Visibility& vis = Visibility{}, int stride = 1,
                                                  Packing layout = Packing::None, int random_positions = 0);
// The same figures through cached decoding (models/block_stack_decoder.h): each window decoded token
// by token with `window` keys visible (0: all), the model read with `map` (train_len -> read_len,
// re-planned per step when length-dependent; no map: the plan the model holds). Decoding is causal, so
// one decode at the longest length gives every length. `load` gives each thread its own model (a
// length-dependent map changes the scheme's plan as it goes). Sums as charlm_perplexities.
std::vector<PerplexityResult> charlm_cached_perplexities(
    const std::function<std::unique_ptr<BlockStack<float>>()>& load, const std::optional<MapSpec>& map, int train_len,
    int read_len, const CharCorpus& corpus, const std::vector<int>& lengths, int val_start, int n_windows, int batch,
    int window, int stride = 1);
// Transformer-XL's reading: each window read in consecutive segments of `segment` tokens, each
// attending to the states of the last mem_len tokens before it (the window's own earlier segments;
// the first segment has none), as the original evaluates. Causal, so one read at the longest length
// gives every length; sums as charlm_perplexities.
std::vector<PerplexityResult> charlm_segment_perplexities(BlockStack<float>& model, const CharCorpus& corpus,
                                                          const std::vector<int>& lengths, int val_start, int n_windows,
                                                          int batch, int segment, int mem_len, int stride = 1);
// One validation batch of nb windows (x, y: [nb, T]). For every prefix length L in `prefixes` (each
// <= T), means[i] is the batch's mean token cross-entropy over positions 0..prefixes[i]-1, summed
// window by window and position by position as a pass at that length sums them. It runs in pieces of
// about kBlockStackChunkTokens tokens; each token's loss does not depend on the piece, so neither does
// the result. Adds each token's loss into position_sum[t] when given ([T]).
void charlm_batch_losses(const BlockStack<float>& model, const int* x, const int* y, int nb, int T,
                         BlockStackCache<float>& cache, const Visibility& vis, const std::vector<int>& prefixes,
                         double* means, double* position_sum = nullptr, const TokenCoordinates* at = nullptr);
// position_loss averaged over consecutive bins of `window` positions.
std::vector<double> bin_positions(const std::vector<double>& position_loss, int window);

using StepFn = std::function<void(int step, int steps, double loss)>;

// Trains from scratch and writes the run directory (each file atomically). With e.resume, keeps a
// complete run directory whose config.json is this run's, and continues a run from the state it
// saved when stopped (harness/training_state.h). SIGINT/SIGTERM stop it at a step boundary with its
// state saved (Interrupted); a state is also saved every e.checkpoint_every steps.
TrainedRun train_charlm(const ExperimentConfig& e, const nlohmann::json& resolved, const std::string& scheme, int seed,
                        const StepFn& progress = {});
// Resumes a RoPE checkpoint with the map's plan for (train_length -> finetune_length) fixed and trains
// finetune_steps at finetune_length; writes <run_dir>-ft-<map>/ whose checkpoint records the plan.
TrainedRun finetune_charlm(const ExperimentConfig& e, const nlohmann::json& resolved, const std::string& checkpoint,
                           const MapSpec& map, const StepFn& progress = {});

// Continues `prompt` by `chars` characters through a key/value cache (models/block_stack_decoder.h):
// every character at its absolute position, the last `context` characters visible (past them the
// window slides and positions keep counting), the next character the argmax (temperature 0) or a
// draw from softmax(logits / temperature). A RoPE model reads with `map` for train_len -> the longest
// position (the identity map: as trained; no map: the plan the model holds, e.g. a fine-tuned one's). A
// learned table too short for the positions is refused before any character is drawn.
std::string charlm_sample(BlockStack<float>& model, const std::vector<std::string>& vocab, const std::string& prompt,
                          int chars, int context, double temperature, uint64_t seed,
                          const std::optional<MapSpec>& map = identity_spec(), int train_len = 0);

// Floating-point operations of one forward (train = false) or forward + backward (train = true) over
// B sequences of T tokens, counted from the shapes: 2 per multiply-add of every matrix product, the
// full T x T score square per head (as the reference count does), backward = 2 x forward.
double charlm_step_flops(const BlockStackConfig& c, int B, int T, bool train);

// Bytes a model of c needs on `threads` threads: training at context T with batch B (parameters,
// gradient, Adam moments, one gradient per chunk, one activation cache per thread with the attention
// probabilities kept, and a saved training state as JSON), or reading (train = false) at T in
// batches of B. An estimate from the shapes, within a few tens of percent.
double charlm_memory_bytes(const BlockStackConfig& c, int B, int T, int threads, bool train);
// ConfigError (exit 2), before any work, when a model of c would not fit this machine training (or
// reading) at T in batches of B on every thread; `what` begins the message ("training this char LM").
void check_charlm_fits(const BlockStackConfig& c, int B, int T, bool train, const std::string& what);

// Reads checkpoints at e.eval_lengths on e's validation windows: each plainly; a RoPE checkpoint
// also with charlm_settings(e).band and with each map of e.maps; a fine-tuned one under its own plan (right after
// that map's reading of the checkpoint it started from, when that one is read too). Per-position
// loss at the longest length. (The whole experiment: harness/experiment.h.)
nlohmann::json evaluate_charlm(const std::vector<std::string>& checkpoints, const ExperimentConfig& e,
                               bool show_progress);

// One entry per reading over its seeds (rows with the same label): the seeds, and per length the
// mean perplexity, its sd and the half-width of its 95% Student t interval.
nlohmann::json charlm_summary(const nlohmann::json& rows);
// A results row's reading as the tables label it: "rope", "rope+pi", "rope+pi (fine-tuned)",
// "rope (band 128)", "rope (cached)", "txl (memory 64)", "rope [documents]", "rope (random 2048)".
std::string charlm_reading_label(const nlohmann::json& row);
// Two readings (labels as the table prints them) at one length: the paired t over their seeds.
std::string compare_charlm_readers(const nlohmann::json& results, const std::string& a, const std::string& b,
                                   int length);

// The Markdown table (published figures beside ours when the results carry a reference).
std::string format_charlm_markdown(const nlohmann::json& results);
std::string format_charlm_table(const nlohmann::json& results);

}  // namespace pe
