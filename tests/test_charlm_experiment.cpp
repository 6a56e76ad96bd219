// The character-LM experiment: FLOP counts, windows, determinism of a training step across threads,
// validation perplexity against a direct computation, checkpoints, sampling, causality at 512.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <set>
#include <sstream>

#include "core/errors.h"
#include "core/files.h"
#include "core/parallel.h"
#include "core/rng.h"
#include "harness/config.h"
#include "harness/token_loop.h"
#include "schemes/hybrid.h"
#include "schemes/rope.h"
#include "scratch.h"
#include "tasks/charlm/checkpoint.h"
#include "tasks/charlm/training.h"
#include "tasks/cue/checkpoint.h"

using namespace pe;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {
const std::string kCorpus = std::string(PEBENCH_SOURCE_DIR) + "/data/timemachine.txt";

BlockStackConfig small_model(const std::string& scheme, int d = 32, int heads = 4) {
  BlockStackConfig c;
  c.vocab = 28;
  c.d_model = d;
  c.n_heads = heads;
  c.n_layers = 2;
  c.scheme.name = scheme;
  c.scheme.train_length = 512;  // learned rows (0: the training length)
  return c;
}

std::vector<int> random_tokens(size_t n, uint64_t seed) {
  Rng rng(seed);
  std::vector<int> v(n);
  for (auto& t : v) t = rng.below(28);
  return v;
}

// A char-LM experiment on the shipped corpus writing into dir (runs in dir/runs), with `changes`.
json small_experiment(const std::string& dir, const json& changes) {
  json cfg = default_config("charlm");
  cfg["corpus"] = kCorpus;
  cfg["runs_dir"] = dir + "/runs";
  cfg["out_dir"] = dir;
  for (auto& [k, v] : changes.items()) cfg[k] = v;
  return cfg;
}
}  // namespace

TEST_CASE("the final training loss averages the last 100 steps of the logged intervals") {
  const auto line = [](int step, double avg) {
    return json{{"step", step}, {"loss_avg", avg}, {"loss", 0.0}}.dump() + "\n";
  };
  int covered = -1;
  // every 50 steps: the last two intervals, exactly 100 steps
  std::string lines = line(50, 4.0) + line(100, 3.0) + line(150, 2.0) + line(200, 1.0);
  CHECK(final_loss_of(lines, 100, &covered) == 1.5);
  CHECK(covered == 100);
  // an interval that does not divide 100: whole intervals, at least 100 steps (here 120)
  lines = line(40, 4.0) + line(80, 3.0) + line(120, 2.0) + line(160, 1.0);
  CHECK(final_loss_of(lines, 100, &covered) == doctest::Approx((3.0 + 2.0 + 1.0) / 3));
  CHECK(covered == 120);
  // a last partial interval counts for its own steps
  lines = line(50, 4.0) + line(100, 3.0) + line(120, 1.0);
  CHECK(final_loss_of(lines, 100, &covered) == doctest::Approx((1.0 * 20 + 3.0 * 50 + 4.0 * 50) / 120));
  CHECK(covered == 120);
  CHECK(final_loss_of("", 100, &covered) == 0.0);
  CHECK(covered == 0);
}

TEST_CASE("FLOP counts of the issue: 9.84 GFLOP per training step at B=64, T=128; 6.5 per eval batch at B=16, T=512") {
  BlockStackConfig c = small_model("rope", 128, 4);
  // by hand: per block 2*N*D*3D + 2*N*D*D + 2*(2*B*H*T*T*dh); output 2*N*D*V; training = 3x forward
  const double N = 64 * 128.0;
  const double fwd = 2 * (2 * N * 128 * 384 + 2 * N * 128 * 128 + 4 * 64 * 4 * 128.0 * 128 * 32) + 2 * N * 128 * 28;
  CHECK(charlm_step_flops(c, 64, 128, true) == doctest::Approx(3 * fwd).epsilon(1e-12));
  CHECK(charlm_step_flops(c, 64, 128, true) * 1e-9 == doctest::Approx(9.84).epsilon(0.001));
  CHECK(charlm_step_flops(c, 16, 512, false) * 1e-9 == doctest::Approx(6.50).epsilon(0.001));
}

TEST_CASE("training windows: every epoch is a permutation of the starts, seeded, different each epoch") {
  WindowStream a(1000, 7), b(1000, 7), c(1000, 8);
  std::vector<int> sa, sb, sc, epoch1, epoch2;
  for (int k = 0; k < 40; ++k) {  // 40 x 50 = two epochs
    a.next(50, sa), b.next(50, sb), c.next(50, sc);
    CHECK(sa == sb);
    (k < 20 ? epoch1 : epoch2).insert((k < 20 ? epoch1 : epoch2).end(), sa.begin(), sa.end());
  }
  CHECK(std::set<int>(epoch1.begin(), epoch1.end()).size() == 1000);
  CHECK(std::set<int>(epoch2.begin(), epoch2.end()).size() == 1000);
  CHECK(*std::min_element(epoch1.begin(), epoch1.end()) == 0);
  CHECK(*std::max_element(epoch1.begin(), epoch1.end()) == 999);
  CHECK(epoch1 != epoch2);
  CHECK(sa != sc);
}

TEST_CASE("a character-LM training step gives the same bits with 1 thread or 2 (fixed chunks)") {
  for (auto scheme : {"rope", "alibi", "learned"}) {
    std::vector<float> result[2];
    for (int threads : {1, 2}) {
      set_threads(threads);
      BlockStack<float> m(small_model(scheme));
      m.init(3);
      BlockStackTrainer tr(m, AdamConfig{1e-3});
      const int B = 10, T = 128;  // 3 chunks of up to 4 sequences
      for (int step = 0; step < 3; ++step) {
        const auto x = random_tokens(size_t(B) * T, 10 + step), y = random_tokens(size_t(B) * T, 20 + step);
        tr.step(x.data(), y.data(), B, T);
      }
      result[threads - 1] = m.params();
    }
    set_threads(0);
    INFO(std::string(scheme));
    CHECK(result[0] == result[1]);
  }
}

TEST_CASE("a chunked step equals one whole-batch gradient step (the chunk normalisation)") {
  BlockStack<double> whole(small_model("rope", 16, 2));
  whole.init(5);
  const int B = 20, T = 128;  // two chunks: 16 + 4 sequences
  const auto x = random_tokens(size_t(B) * T, 1), y = random_tokens(size_t(B) * T, 2);
  whole.prepare(T);
  std::vector<double> g(whole.layout().total(), 0.0), gc(g.size(), 0.0);
  BlockStackCache<double> c;
  whole.forward_backward(x.data(), y.data(), B, T, g.data(), c);
  // the same gradient from two chunks normalised by the whole batch's token count
  whole.forward_backward(x.data(), y.data(), 16, T, gc.data(), c, 0, Visibility{}, long(B) * T);
  whole.forward_backward(x.data() + 16 * T, y.data() + 16 * T, 4, T, gc.data(), c, 0, Visibility{}, long(B) * T);
  double worst = 0;
  for (size_t i = 0; i < g.size(); ++i) worst = std::max(worst, std::abs(g[i] - gc[i]));
  CHECK(worst < 1e-13);
}

TEST_CASE("causality at the real size: logits at 0..127 of a 512-long sequence equal those of its first 128 tokens") {
  for (auto scheme : {"rope", "alibi", "learned", "sinusoidal", "none"}) {
    BlockStackConfig cfg = small_model(scheme, 128, 4);
    BlockStack<double> m(cfg);
    m.init(2);
    m.prepare(512);
    const auto x = random_tokens(512, 5), y = random_tokens(512, 6);
    BlockStackCache<double> a, b;
    m.forward(x.data(), y.data(), 1, 512, a);
    m.forward(x.data(), y.data(), 1, 128, b);
    double diff = 0, scale = 0;
    for (int i = 0; i < 128 * 28; ++i)
      diff = std::max(diff, std::abs(a.logits[i] - b.logits[i])), scale = std::max(scale, std::abs(b.logits[i]));
    INFO(std::string(scheme), " max diff ", diff, " of logits up to ", scale);
    CHECK(diff <= 1e-12 * std::max(1.0, scale));
  }
}

TEST_CASE("one pass at the longest length gives every shorter length's perplexity bit for bit") {
  const CharCorpus corpus = load_char_corpus(kCorpus, kTimeMachineSha1);
  const std::vector<int> lengths = {40, 64, 100};  // 40 and 100 end inside a query block
  for (auto scheme : {"rope", "alibi", "learned", "sinusoidal", "none"})
    for (int band : {0, 24}) {
      BlockStack<float> m(small_model(scheme));
      m.init(8);
      if (m.scheme().accepts_frequency_plan())
        m.scheme().set_frequency_plan(m.scheme().plan_for(parse_map("selective"), 32, 100));
      const Visibility vis{true, band};
      const auto all = charlm_perplexities(m, corpus, lengths, 100000, 21, 8, vis);
      REQUIRE(all.size() == lengths.size());
      for (size_t i = 0; i < lengths.size(); ++i) {
        const PerplexityResult one = charlm_perplexity(m, corpus, lengths[i], 100000, 21, 8, vis);
        INFO(std::string(scheme), " band ", band, " length ", lengths[i]);
        CHECK(all[i].length == lengths[i]);
        CHECK(all[i].loss == one.loss);
        CHECK(all[i].perplexity == one.perplexity);
        CHECK(all[i].position_loss == one.position_loss);
      }
    }
}

TEST_CASE("validation perplexity is exp(mean over batches of each batch's mean loss), in order, at any thread count") {
  const CharCorpus corpus = load_char_corpus(kCorpus, kTimeMachineSha1);
  BlockStack<float> m(small_model("alibi"));
  m.init(4);
  const int T = 64, start = 100000, n = 37, batch = 8;  // the last batch holds 5 windows
  set_threads(2);
  const PerplexityResult r2 = charlm_perplexity(m, corpus, T, start, n, batch);
  set_threads(1);
  const PerplexityResult r1 = charlm_perplexity(m, corpus, T, start, n, batch);
  set_threads(0);
  CHECK(r1.loss == r2.loss);
  CHECK(r1.position_loss == r2.position_loss);
  // direct: one batch at a time
  double sum = 0, token_sum = 0;
  int batches = 0;
  BlockStackCache<float> c;
  for (int w = 0; w < n; w += batch, ++batches) {
    const int nb = std::min(batch, n - w);
    std::vector<int> x(size_t(nb) * T), y(size_t(nb) * T);
    for (int b = 0; b < nb; ++b) char_window(corpus, start + w + b, T, &x[size_t(b) * T], &y[size_t(b) * T]);
    const double l = m.forward(x.data(), y.data(), nb, T, c);
    sum += l;
    token_sum += l * nb * T;
  }
  CHECK(batches == 5);
  CHECK(r1.loss == doctest::Approx(sum / batches).epsilon(1e-12));
  CHECK(r1.perplexity == doctest::Approx(std::exp(sum / batches)).epsilon(1e-12));
  double pos_mean = 0;
  for (double v : r1.position_loss) pos_mean += v / T;
  CHECK(pos_mean == doctest::Approx(token_sum / (double(n) * T)).epsilon(1e-9));
  const auto bins = bin_positions(r1.position_loss, 16);
  REQUIRE(bins.size() == 4);
  double b0 = 0;
  for (int t = 0; t < 16; ++t) b0 += r1.position_loss[t] / 16;
  CHECK(bins[0] == doctest::Approx(b0).epsilon(1e-12));
}

TEST_CASE("training, fine-tuning, checkpoints and sampling through the experiment settings") {
  const std::string dir = pe::test::fresh_scratch_dir("charlm");
  json cfg = small_experiment(dir, {{"d_model", 32},
                                    {"steps", 30},
                                    {"batch_size", 8},
                                    {"lr", 3e-3},
                                    {"log_every", 10},
                                    {"val_windows", 24},
                                    {"eval_lengths", {128, 256}},
                                    {"finetune_steps", 4},
                                    {"finetune_length", 256},
                                    {"finetune_batch", 2}});
  const ExperimentConfig e = ExperimentConfig::from_json(cfg);
  const TrainedRun run = train_charlm(e, cfg, "rope", 1);
  CHECK(run.run_dir == dir + "/runs/charlm/rope/seed1");
  CHECK(file_exists(run.run_dir + "/config.json"));
  CHECK(read_file(run.run_dir + "/metrics.jsonl").find("\"step\":30") != std::string::npos);
  CHECK(run.final_loss() < std::log(28.0));  // it learned something beyond the uniform guess
  // the final loss: the mean of the last 100 steps or more (30 steps logged every 10: all of them)
  {
    int covered = 0;
    double sum = 0;
    std::istringstream lines(read_file(run.run_dir + "/metrics.jsonl"));
    for (std::string line; std::getline(lines, line);) sum += json::parse(line)["loss_avg"].get<double>() * 10;
    CHECK(run.final_loss() == doctest::Approx(sum / 30).epsilon(1e-14));
    CHECK(final_loss_of(read_file(run.run_dir + "/metrics.jsonl"), 100, &covered) == run.final_loss());
    CHECK(covered == 30);
    CHECK(run.training["final_loss_steps"] == 30);
  }

  // the checkpoint reloads to the same parameters and describes itself
  LoadedCharLM cp = load_charlm_checkpoint(run.checkpoint);
  CHECK(cp.vocab.size() == 28);
  CHECK(cp.vocab[0] == " ");
  CHECK(!cp.plan_map);
  CHECK(cp.meta["task"] == "charlm");
  CHECK(checkpoint_task(run.checkpoint) == "charlm");
  CHECK_THROWS_AS(load_checkpoint(run.checkpoint), CheckpointError);  // not a cue model

  // resume: a whole run directory with the same config is kept (not retrained); another config is not
  {
    ExperimentConfig again = e;
    again.resume = true;
    const std::string before = read_file(run.checkpoint);
    const TrainedRun kept = train_charlm(again, cfg, "rope", 1);
    CHECK(kept.kept);
    CHECK(kept.final_loss() == run.final_loss());
    CHECK(read_file(run.checkpoint) == before);
    json other = cfg;
    other["lr"] = 2e-3;
    ExperimentConfig changed = ExperimentConfig::from_json(other);
    changed.resume = true;
    const TrainedRun retrained = train_charlm(changed, other, "rope", 1);
    CHECK(!retrained.kept);
    CHECK(read_file(run.checkpoint) != before);
    // put the original run back for the checks below
    const TrainedRun restored = train_charlm(e, cfg, "rope", 1);
    CHECK(read_file(run.checkpoint) == before);
  }

  // fine-tuning writes a checkpoint that carries its plan; reloading applies it
  const TrainedRun ft = finetune_charlm(e, cfg, run.checkpoint, parse_map("pi"));
  CHECK(ft.run_dir == run.run_dir + "-ft-pi");
  LoadedCharLM ftcp = load_charlm_checkpoint(ft.checkpoint);
  CHECK((ftcp.plan_map && *ftcp.plan_map == "pi"));
  CHECK(ftcp.plan_read_length == 256);
  CHECK_THROWS_AS(finetune_charlm(e, cfg, ft.checkpoint, parse_map("pi")), UsageError);  // already fine-tuned
  // it stores the frequencies themselves, and loading uses the stored ones (not the map's formula)
  {
    const auto& rope = dynamic_cast<const RopeScheme<float>&>(ftcp.model->scheme());
    const FrequencyPlan expect = rope.plan_for(parse_map("pi"), 128, 256);
    CHECK(ftcp.meta["frequency_plan"]["theta"].get<std::vector<double>>() == expect.theta);
    CHECK(rope.plan().theta == expect.theta);
    json edited = json::parse(read_file(ft.checkpoint));
    edited["frequency_plan"]["theta"][0] = 0.125;
    write_file_atomic(dir + "/edited.json", edited.dump());
    const LoadedCharLM e1 = load_charlm_checkpoint(dir + "/edited.json");
    CHECK(dynamic_cast<const RopeScheme<float>&>(e1.model->scheme()).plan().theta[0] == 0.125);
    edited["frequency_plan"].erase("theta");  // a checkpoint from before the frequencies were stored
    edited["frequency_plan"].erase("logit_scale");
    write_file_atomic(dir + "/old.json", edited.dump());
    const LoadedCharLM e2 = load_charlm_checkpoint(dir + "/old.json");
    CHECK(dynamic_cast<const RopeScheme<float>&>(e2.model->scheme()).plan().theta == expect.theta);
    edited["frequency_plan"]["theta"] = {1.0, 0.5};
    edited["frequency_plan"]["logit_scale"] = 1.0;
    write_file_atomic(dir + "/bad.json", edited.dump());
    CHECK_THROWS_WITH_AS(load_charlm_checkpoint(dir + "/bad.json"),
                         doctest::Contains("frequency_plan.theta has 2 planes"), CheckpointError);
  }
  const TrainedRun alibi = train_charlm(e, cfg, "alibi", 1);
  CHECK_THROWS_WITH_AS(finetune_charlm(e, cfg, alibi.checkpoint, parse_map("pi")),
                       doctest::Contains("needs a RoPE model"), UsageError);

  // evaluation: rope plainly, with each map, and the fine-tuned one under its plan
  ExperimentConfig ev = e;
  ev.maps = {parse_map("pi")};
  ev.resolved["band"] = 64;
  const json r = evaluate_charlm({run.checkpoint, ft.checkpoint, alibi.checkpoint}, ev, false);
  REQUIRE(r["rows"].size() == 5);  // rope, rope band, rope+pi, rope+pi fine-tuned, alibi
  CHECK(r["rows"][1]["band"] == 64);
  CHECK(r["rows"][2]["map"] == "pi");
  CHECK(r["rows"][3]["finetuned"] == true);
  for (auto& row : r["rows"])
    for (auto& p : row["perplexity"]) {
      REQUIRE(p.is_number());
      CHECK(p.get<double>() > 1.0);
      CHECK(p.get<double>() < 28.0);
    }
  // the map changes what RoPE reads at 256
  CHECK(r["rows"][2]["perplexity"][1] != r["rows"][0]["perplexity"][1]);
  CHECK(r["position_loss"]["rows"].size() == 5);
  CHECK(r["position_loss"]["rows"][0]["bins"].size() == 16);
  // a fine-tuned checkpoint is read right after its map's reading of the run it started from,
  // wherever it stands in the list; alone, it is read where it stands
  {
    const json r2 = evaluate_charlm({ft.checkpoint, alibi.checkpoint, run.checkpoint}, ev, false);
    REQUIRE(r2["rows"].size() == 5);
    CHECK(r2["rows"][0]["scheme"] == "alibi");
    CHECK(r2["rows"][3]["map"] == "pi");
    CHECK(r2["rows"][3]["finetuned"] == false);
    CHECK(r2["rows"][4]["finetuned"] == true);
    CHECK(r2["rows"][4]["perplexity"] == r["rows"][3]["perplexity"]);
    ExperimentConfig short_ev = ev;
    short_ev.eval_lengths = {128};
    const json r3 = evaluate_charlm({ft.checkpoint, alibi.checkpoint}, short_ev, false);
    REQUIRE(r3["rows"].size() == 2);
    CHECK(r3["rows"][0]["finetuned"] == true);
  }
  const std::string md = format_charlm_markdown(r);
  CHECK(md.find("rope+pi (fine-tuned)") != std::string::npos);
  CHECK(md.find("rope (band 64)") != std::string::npos);

  // sampling: greedy is deterministic and continues the prompt
  const std::string s1 = charlm_sample(*cp.model, cp.vocab, "The Time Traveller!", 40, 128, 0.0, 0);
  const std::string s2 = charlm_sample(*cp.model, cp.vocab, "The Time Traveller!", 40, 128, 0.0, 9);
  CHECK(s1 == s2);
  CHECK(s1.rfind("the time traveller ", 0) == 0);
  CHECK(s1.size() == std::string("the time traveller ").size() + 40);
  const std::string t1 = charlm_sample(*cp.model, cp.vocab, "the", 40, 128, 1.0, 1);
  const std::string t2 = charlm_sample(*cp.model, cp.vocab, "the", 40, 128, 1.0, 2);
  CHECK(t1 != t2);
}

TEST_CASE(
    "a hybrid whose RoPE layers have their own bases fine-tunes with a plan per layer, kept in its "
    "checkpoint") {
  const std::string dir = pe::test::fresh_scratch_dir("charlm-hybrid-bases");
  json cfg = small_experiment(dir, {{"d_model", 16},
                                    {"steps", 2},
                                    {"batch_size", 2},
                                    {"n_layers", 3},
                                    {"hybrid_layers", {"rope:8:base=500", "none", "rope:base=1000000"}},
                                    {"val_windows", 4},
                                    {"eval_lengths", {128}},
                                    {"finetune_steps", 1},
                                    {"finetune_length", 256},
                                    {"finetune_batch", 1}});
  cfg["schemes"] = {"hybrid"};
  const ExperimentConfig e = ExperimentConfig::from_json(cfg);
  const TrainedRun run = train_charlm(e, cfg, "hybrid", 0);
  const TrainedRun ft = finetune_charlm(e, cfg, run.checkpoint, parse_map("yarn"));
  const LoadedCharLM cp = load_charlm_checkpoint(ft.checkpoint);
  const json& layers = cp.meta.at("frequency_plan").at("layers");
  REQUIRE(layers.size() == 3);
  CHECK(layers[1].is_null());
  const auto& h = dynamic_cast<const HybridScheme<float>&>(cp.model->scheme());
  for (int l : {0, 2}) {
    const FrequencyPlan want = h.layer(l).plan_for(parse_map("yarn"), 128, 256);
    CHECK(layers[l].at("theta").get<std::vector<double>>() == want.theta);
    CHECK(dynamic_cast<const RopeScheme<float>&>(h.layer(l)).plan().theta == want.theta);
  }
  CHECK(dynamic_cast<const RopeScheme<float>&>(h.layer(0)).plan().theta !=
        dynamic_cast<const RopeScheme<float>&>(h.layer(2)).plan().theta);
  // a checkpoint that drops the per-layer frequencies is refused, naming what is missing
  json edited = json::parse(read_file(ft.checkpoint));
  edited["frequency_plan"].erase("layers");
  write_file_atomic(dir + "/edited.json", edited.dump());
  CHECK_THROWS_WITH(load_charlm_checkpoint(dir + "/edited.json"), doctest::Contains("RoPE layers turn differently"));
}

TEST_CASE("a learned table evaluated past its rows gives null, and a corpus too short is a clear DataError") {
  const std::string dir = pe::test::fresh_scratch_dir("charlm-null");
  json cfg = small_experiment(dir, {{"d_model", 16},
                                    {"steps", 2},
                                    {"batch_size", 2},
                                    {"learned_rows", 200},
                                    {"val_windows", 8},
                                    {"eval_lengths", {128, 256}}});
  const ExperimentConfig e = ExperimentConfig::from_json(cfg);
  const TrainedRun run = train_charlm(e, cfg, "learned", 0);
  const json r = evaluate_charlm({run.checkpoint}, e, false);
  CHECK(r["rows"][0]["perplexity"][0].is_number());
  CHECK(r["rows"][0]["perplexity"][1].is_null());
  CHECK(format_charlm_table(r).find("—") != std::string::npos);

  const std::string tiny = dir + "/tiny.txt";
  write_file_atomic(tiny, "The quick brown fox jumps over the lazy dog.\n");
  json c2 = cfg;
  c2["corpus"] = tiny;
  CHECK_THROWS_WITH_AS(train_charlm(ExperimentConfig::from_json(c2), c2, "rope", 0), doctest::Contains("characters"),
                       DataError);
}

TEST_CASE(
    "train_order: pe-bench's own order read from a file gives the same run bit for bit; a partial batch "
    "trains; a bad file is one clear error") {
  const std::string dir = pe::test::fresh_scratch_dir("charlm-order");
  // 6 steps x 4 windows of 50: the stream crosses an epoch boundary
  json cfg = small_experiment(dir, {{"runs_dir", dir + "/a"},
                                    {"d_model", 16},
                                    {"steps", 6},
                                    {"batch_size", 4},
                                    {"train_windows", 50},
                                    {"log_every", 3},
                                    {"eval_lengths", json::array({128})}});
  const TrainedRun own = train_charlm(ExperimentConfig::from_json(cfg), cfg, "rope", 2);
  const std::string file = dir + "/order.json";
  write_file_atomic(file, json(window_stream_order(50, 2, 6, 4)).dump());
  json with = cfg;
  with["runs_dir"] = dir + "/b";
  with["train_order"] = file;
  const TrainedRun replay = train_charlm(ExperimentConfig::from_json(with), with, "rope", 2);
  const json a = json::parse(read_file(own.checkpoint)), b = json::parse(read_file(replay.checkpoint));
  CHECK(a["params"] == b["params"]);
  CHECK(b["training"].contains("train_order_sha1"));
  // a partial batch (another loader's last batch of an epoch) is a smaller step, not an error
  json order = window_stream_order(50, 2, 6, 4);
  order[2] = json::array({7, 8});
  write_file_atomic(file, order.dump());
  with["runs_dir"] = dir + "/c";
  const TrainedRun partial = train_charlm(ExperimentConfig::from_json(with), with, "rope", 2);
  CHECK(json::parse(read_file(partial.checkpoint))["params"] != a["params"]);
  // errors name the key and say what is wrong
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"[[1,2,3,4]]", "holds 1 steps"},
      {"[[1],[2],[],[4],[5],[6]]", "step 3"},
      {"[[1],[2],[3],[4],[5],[1,2,3,4,5]]", "step 6"},
      {"[[1],[2],[3],[4],[5],[50]]", "not one of 0 .. 49"},
      {"[[1],[2],[3],[4],[5],[-1]]", "not one of 0 .. 49"},
      {"{\"a\": 1", "cannot read"},
  };
  for (auto& [text, message] : bad) {
    write_file_atomic(file, text);
    with["runs_dir"] = dir + "/d";
    CHECK_THROWS_WITH_AS(train_charlm(ExperimentConfig::from_json(with), with, "rope", 2),
                         doctest::Contains(message.c_str()), ConfigError);
  }
  fs::remove_all(dir);
}

TEST_CASE("window streams are independent across seeds and epochs, not only uniform one by one") {
  // Rank correlation of where each start lands in two orders, and how many starts land at the same
  // place: for independent uniform permutations of n, about 0 +- 1/sqrt(n) and about 1.
  const int n = 100000;
  auto order_of = [&](uint64_t seed, int epoch) {
    WindowStream s(n, seed);
    std::vector<int> o;
    for (int e = 0; e <= epoch; ++e) s.next(n, o);
    std::vector<double> place(n);
    for (int i = 0; i < n; ++i) place[size_t(o[i])] = i;
    return place;
  };
  auto correlation = [&](const std::vector<double>& a, const std::vector<double>& b) {
    const double mean = (n - 1) / 2.0;
    double ab = 0, aa = 0, bb = 0;
    for (int i = 0; i < n; ++i)
      ab += (a[i] - mean) * (b[i] - mean), aa += (a[i] - mean) * (a[i] - mean), bb += (b[i] - mean) * (b[i] - mean);
    return ab / std::sqrt(aa * bb);
  };
  auto same_place = [&](const std::vector<double>& a, const std::vector<double>& b) {
    int k = 0;
    for (int i = 0; i < n; ++i) k += a[i] == b[i];
    return k;
  };
  const auto s0e0 = order_of(0, 0), s1e0 = order_of(1, 0), s0e1 = order_of(0, 1), s2e1 = order_of(2, 1);
  // and against the start itself: an order that drifts through the corpus would correlate with it
  std::vector<double> identity(n);
  for (int i = 0; i < n; ++i) identity[i] = i;
  const double bound = 5.0 / std::sqrt(double(n));  // five standard errors
  for (const std::vector<double>* pair : {&s1e0, &s0e1, &s2e1, static_cast<const std::vector<double>*>(&identity)}) {
    CHECK(std::abs(correlation(s0e0, *pair)) < bound);
    CHECK(same_place(s0e0, *pair) <= 8);  // Poisson(1): P(>8) < 1e-5
  }
  CHECK(std::abs(correlation(s0e1, s2e1)) < bound);
}
