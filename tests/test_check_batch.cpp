// The check batch's batch modes (models/check_batch.h check_modes, pe-bench export --check
// --coordinates, docs/interop.md): each mode's positions and documents are what its line says, reach the
// check files as written, and a mode the model cannot be read under is refused; the causal batch is the
// one export wrote before the modes (no coordinates given, none written).
#include <doctest/doctest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "core/errors.h"
#include "core/safetensors.h"
#include "harness/interop.h"
#include "harness/task.h"
#include "models/block_stack.h"
#include "models/check_batch.h"
#include "models/coordinate_cases.h"
#include "schemes/frequency_maps.h"
#include "tasks/cue/checkpoint.h"

using namespace pe;
using nlohmann::json;

namespace check_batch_test {

const char* const kCharLM = "results/charlm-quick/runs/charlm/rope/seed0/checkpoint.json";

CheckBatch charlm_batch(const std::string& mode, int length = 32, const char* path = kCharLM) {
  return find_task("charlm").reader().check_batch(path, parse_map("none"), length, 0, mode);
}

// What a mode's line says, restated for sequence b of T tokens: (position, document) of token t.
std::pair<int, int> expected(const std::string& mode, int b, int T, int t) {
  const int split[] = {T / 2, T / 3, 3 * T / 4, T / 5}, pads[] = {T / 4, 0, T / 2, 1}, p0[] = {3, 1, 8, 5};
  const int s = split[b], P = pads[b];
  if (mode == "packed-reset") return {t < s ? t : t - s, t < s ? 0 : 1};
  if (mode == "packed-global") return {t, t < s ? 0 : 1};
  if (mode == "offset") return {p0[b] + t, 0};
  const bool left = mode.starts_with("pad-left"), content = mode.ends_with("-content");
  if (mode.starts_with("pad-")) {
    const bool pad = left ? t < P : t >= T - P;
    return {!content ? t : pad ? 0 : t - (left ? P : 0), pad ? -1 : 0};
  }
  return {t, 0};  // bidirectional, prefix
}

// A tensor of check.safetensors as integers.
std::vector<int> ints(const SafetensorsFile& f, const std::string& name) {
  const NamedTensor* t = f.find(name);
  REQUIRE(t);
  return std::vector<int>(t->data.begin(), t->data.end());
}

}  // namespace check_batch_test

using namespace check_batch_test;

TEST_CASE("the check batch's modes are coordinate_cases' modes (all but decode) and offset, each once") {
  std::set<std::string> cases, modes;
  for (const CoordinateCase& c : coordinate_cases()) cases.insert(c.mode);
  for (const CheckMode& m : check_modes()) {
    CAPTURE(m.name);
    CHECK(modes.insert(m.name).second);
    CHECK((cases.count(m.name) == 1 || std::string(m.name) == "offset" || m.query_row));
    CHECK(&check_mode(m.name) == &m);
  }
  for (const std::string& c : cases) CHECK((modes.count(c) == 1 || c == "decode"));
  CHECK(check_modes().front().name == std::string("causal"));  // the default, first
  CHECK(check_mode_names().starts_with("causal, bidirectional, prefix, packed-reset"));
  CHECK_THROWS_AS(check_mode("packed"), UsageError);
}

TEST_CASE("export --check under each mode writes the mode's positions and documents; causal writes none") {
  const int T = 32;
  const CheckBatch causal = charlm_batch("causal", T);
  const ExportedCheck ce = export_check(causal);
  {  // the causal batch: no coordinates given to the model, none in the files (the bytes export wrote before)
    CHECK(causal.at.pos.empty());
    CHECK(causal.at.doc.empty());
    const SafetensorsFile f = parse_safetensors(ce.safetensors, "check.safetensors");
    CHECK(f.find("positions") == nullptr);
    CHECK(f.find("documents") == nullptr);
    const json j = json::parse(ce.json);
    CHECK(j["positions"] == "0 .. length-1");
    CHECK(!j.contains("coordinates"));
    CHECK(!j.contains("documents"));
  }
  for (const CheckMode& m : check_modes()) {
    const std::string mode = m.name;
    CAPTURE(mode);
    if (mode == "causal") continue;
    // a causal model is not read with later keys visible; a block stack answers at every row, not at query rows
    if (m.sight != CheckMode::Sight::Model || m.query_row) {
      CHECK_THROWS_AS(charlm_batch(mode, T), UsageError);
      continue;
    }
    const CheckBatch c = charlm_batch(mode, T);
    REQUIRE(c.at.pos.size() == size_t(4) * T);
    REQUIRE(c.at.doc.size() == size_t(4) * T);
    CHECK(c.at.vis == Visibility{});
    CHECK(c.tokens == causal.tokens);  // the same tokens and targets under every mode
    CHECK(c.targets == causal.targets);
    for (int b = 0; b < 4; ++b)
      for (int t = 0; t < T; ++t) {
        CAPTURE(b);
        CAPTURE(t);
        const auto [pos, doc] = expected(mode, b, T, t);
        CHECK(c.at.pos[size_t(b) * T + t] == pos);
        CHECK(c.at.doc[size_t(b) * T + t] == doc);
      }
    if (mode.starts_with("pad-"))  // PAD tokens are not scored: another loss than the unpadded batch's
      CHECK(c.loss != causal.loss);
    // the files hold them: check.safetensors [B, T] in F32, check.json as lists with the mode and visibility
    const ExportedCheck e = export_check(c);
    const SafetensorsFile f = parse_safetensors(e.safetensors, "check.safetensors");
    CHECK(ints(f, "positions") == c.at.pos);
    CHECK(f.find("positions")->shape == std::vector<int64_t>{4, T});
    CHECK(ints(f, "documents") == c.at.doc);
    const json j = json::parse(e.json);
    CHECK(j["positions"].get<std::vector<int>>() == c.at.pos);
    CHECK(j["documents"].get<std::vector<int>>() == c.at.doc);
    CHECK(j["coordinates"]["mode"] == mode);
    CHECK(j["coordinates"]["visibility"] == "causal");
    CHECK(j["coordinates"]["what"] == m.what);
    CHECK(f.tensors.size() == parse_safetensors(ce.safetensors, "").tensors.size() + 2);
    // the same batch every time
    CHECK(export_check(charlm_batch(mode, T)).safetensors == e.safetensors);
  }
}

TEST_CASE("a mode the model cannot be read under is refused") {
  // the heads take the causal batch only
  for (const char* mode : {"packed-reset", "pad-left-content", "offset"}) {
    CHECK_THROWS_AS(find_task("cue").reader().check_batch("results/tournament/runs/cue/rope/seed0/checkpoint.json",
                                                          parse_map("none"), 0, 0, mode),
                    UsageError);
    CHECK_THROWS_AS(find_task("filings").reader().check_batch("results/filings/runs/filings/rope/seed0/checkpoint.json",
                                                              parse_map("none"), 0, 0, mode),
                    UsageError);
  }
  // a head answering at every position is not read at one row per sequence
  CHECK_THROWS_WITH_AS(
      find_task("filings").reader().check_batch("results/filings/runs/filings/rope/seed0/checkpoint.json",
                                                parse_map("none"), 0, 0, "query-rows"),
      "--coordinates query-rows: the filings head answers at every position, not at one row per "
      "sequence; leave --coordinates out",
      UsageError);
  // an offset past a learned table (512 rows): named, never clamped; at a length that fits, read
  const char* learned = "results/charlm-quick/runs/charlm/learned/seed0/checkpoint.json";
  CHECK_THROWS_WITH_AS(charlm_batch("offset", 510, learned),
                       "--coordinates offset at --length 510: position 517 is past the learned model's table "
                       "(positions 0 .. 511); lower --length to 504",
                       UsageError);
  CHECK(charlm_batch("offset", 504, learned).at.pos.back() == 5 + 503);
}

TEST_CASE("a model made bidirectional reads bidirectional and prefix batches, and the others bidirectionally") {
  BlockStackConfig cfg;
  cfg.vocab = 7, cfg.d_model = 8, cfg.n_heads = 2, cfg.n_layers = 2;
  cfg.scheme.name = "t5", cfg.scheme.train_length = 16, cfg.scheme.bidirectional = true;
  BlockStack<float> model(cfg);
  model.init(3);
  CHECK_THROWS_AS(check_block_stack(model, 4, 16, 0, "causal"), UsageError);
  const CheckBatch bi = check_block_stack(model, 4, 16, 0, "bidirectional");
  CHECK(bi.at.vis == Visibility::bidirectional());
  CHECK(bi.at.visibility_json() == "bidirectional");
  const CheckBatch prefix = check_block_stack(model, 4, 16, 0, "prefix");
  CHECK(prefix.at.vis == Visibility::prefix_lm(4));
  CHECK(prefix.at.visibility_json() == json::array({"prefix", 4}));
  CHECK(prefix.logits != bi.logits);
  const CheckBatch packed = check_block_stack(model, 4, 16, 0, "packed-reset");
  CHECK(packed.at.vis == Visibility::bidirectional());
  CHECK(json::parse(export_check(packed).json)["coordinates"]["visibility"] == "bidirectional");
}

TEST_CASE("query-rows: a head's check batch is read at a row of each sequence's own, as reading the head there") {
  // a causal cue head (keys up to its row) and a direction head (made bidirectional: keys on both sides)
  const std::vector<std::pair<const char*, const char*>> heads = {
      {"cue", "results/tournament/runs/cue/rope/seed0/checkpoint.json"},
      {"direction", "results/direction/before/runs/direction/t5/seed0/checkpoint.json"}};
  for (const auto& [task, path] : heads) {
    CAPTURE(task);
    const CheckBatch last = find_task(task).reader().check_batch(path, parse_map("none"), 0, 0, "causal");
    const CheckBatch c = find_task(task).reader().check_batch(path, parse_map("none"), 0, 0, "query-rows");
    const int B = c.B, T = c.T;
    REQUIRE(B == 4);
    // the rows: T/2, 1, 3T/4, T/3, each sequence its own, none the last row; the query token there only
    CHECK(c.at.query_rows == std::vector<int>{T / 2, 1, 3 * T / 4, T / 3});
    CHECK(std::set<int>(c.at.query_rows.begin(), c.at.query_rows.end()).size() == size_t(B));
    const LoadedCheckpoint cp = load_checkpoint(path, task);
    const int query = cp.model->config().task.query_token_id();
    for (int b = 0; b < B; ++b)
      for (int t = 0; t < T; ++t) {
        CAPTURE(b);
        CAPTURE(t);
        CHECK((c.tokens[size_t(b) * T + t] == query) == (t == c.at.query_rows[b]));
        if (t != c.at.query_rows[b] && t != T - 1)  // the same tokens but where the query token sits
          CHECK(c.tokens[size_t(b) * T + t] == last.tokens[size_t(b) * T + t]);
      }
    CHECK(c.targets == last.targets);
    CHECK(c.at.pos.empty());  // positions 0 .. T-1: none given
    CHECK(c.at.vis == (cp.model->scheme().config().bidirectional ? Visibility::bidirectional() : Visibility{}));
    CHECK(cp.model->scheme().config().bidirectional == (std::string(task) == "direction"));
    // the head read at those rows directly (forward alone, the task's own reading path): the same logits
    cp.model->scheme().read_with(parse_map("none"), cp.meta.at("training").value("train_length", 0), T);
    cp.model->prepare(T);
    CueWorkspace<float> ws;
    ws.query_rows = c.at.query_rows.data();
    cp.model->forward(c.tokens.data(), c.targets.data(), B, T, ws);
    REQUIRE(ws.logits.size() == c.logits.size());
    CHECK(ws.logits == c.logits);
    CHECK(c.logits_shape == last.logits_shape);
    // and at the last row they would differ: the rows are read, not the last one
    CueWorkspace<float> at_last;
    cp.model->forward(c.tokens.data(), c.targets.data(), B, T, at_last);
    for (int b = 0; b < B; ++b) {
      CAPTURE(b);
      const int C = int(c.logits_shape[1]);
      CHECK(!std::equal(c.logits.begin() + b * C, c.logits.begin() + (b + 1) * C, at_last.logits.begin() + b * C));
    }
    // the files: check.safetensors 'query_rows' [B], check.json's list and the mode with its visibility
    const ExportedCheck e = export_check(c);
    const SafetensorsFile f = parse_safetensors(e.safetensors, "check.safetensors");
    CHECK(ints(f, "query_rows") == c.at.query_rows);
    CHECK(f.find("query_rows")->shape == std::vector<int64_t>{B});
    CHECK(f.find("positions") == nullptr);
    const json j = json::parse(e.json);
    CHECK(j["query_rows"].get<std::vector<int>>() == c.at.query_rows);
    CHECK(j["coordinates"]["mode"] == "query-rows");
    CHECK(j["coordinates"]["visibility"] == (std::string(task) == "direction" ? "bidirectional" : "causal"));
    CHECK(!j.contains("documents"));
    // the default batch states no query rows (the bytes export wrote before)
    const ExportedCheck le = export_check(last);
    CHECK(parse_safetensors(le.safetensors, "").find("query_rows") == nullptr);
    CHECK(!json::parse(le.json).contains("query_rows"));
    CHECK(!json::parse(le.json).contains("coordinates"));
    CHECK(export_check(find_task(task).reader().check_batch(path, parse_map("none"), 0, 0, "query-rows")).safetensors ==
          e.safetensors);
  }
}

TEST_CASE("query-rows: a head answering at every position, and a block stack, refuse it") {
  CueModelConfig cfg;
  cfg.task.query_token = false;
  cfg.d_model = 8;
  cfg.scheme.name = "rope", cfg.scheme.train_length = 16;
  CueHead<float> head(cfg);
  head.init(1);
  CHECK_THROWS_AS(check_cue_head(head, 4, 16, true, 0, "query-rows"), UsageError);
  CHECK(check_cue_head(head, 4, 16, false, 0, "query-rows").at.query_rows == std::vector<int>{8, 1, 12, 5});
  CHECK_THROWS_AS(check_cue_head(head, 4, 16, false, 0, "offset"), UsageError);
  CHECK_THROWS_WITH_AS(charlm_batch("query-rows"),
                       "--coordinates query-rows: a block stack answers at every row; a query row of each sequence's "
                       "own is a head's reading",
                       UsageError);
}
