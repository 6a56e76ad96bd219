#include "tasks/cue/checkpoint.h"

#include <fmt/format.h>

#include <set>

#include "core/errors.h"
#include "core/keys.h"
#include "harness/random_positions.h"

namespace pe {

using nlohmann::json;

LoadedCheckpoint load_checkpoint(const std::string& path, const std::string& task, HeadInput input) {
  CheckpointReader r(path, task);
  return r.fields([&] {
    CueModelConfig cfg;
    const json& m = r.json_().at("model");
    cfg.task.alphabet = checked_int32(m.at("alphabet"), "model.alphabet", 2, 256);
    const json qt = m.value("query_token", json(true));
    if (!qt.is_boolean()) throw r.fail("model.query_token must be true or false");
    cfg.task.query_token = qt.get<bool>();
    if (cfg.task.query_token != input.query_token)
      throw r.mismatch(input.query_token
                           ? "it holds a head without a query token (a filings head), which cannot read the cue task's "
                             "sequences; read it with --task filings"
                           : "it holds a head with a query token (a cue head), which cannot read every position of a "
                             "document; read it with --task cue");
    if (input.alphabet > 0 && cfg.task.alphabet != input.alphabet)
      throw r.mismatch(
          fmt::format("its head reads {} symbols but these documents use {}", cfg.task.alphabet, input.alphabet));
    // a head without a query token reads documents, not the random cue stream: no mark_prob
    cfg.task.mark_prob = cfg.task.query_token ? m.at("mark_prob").get<double>() : 0.0;
    if (m.contains("rule")) {  // a task with several answer rules records its head's (CueTaskConfig::rule)
      if (!m["rule"].is_string() || m["rule"].get<std::string>().empty())
        throw r.fail("model.rule must be a non-empty string");
      cfg.task.rule = m["rule"].get<std::string>();
    }
    for (auto [field, want] : {std::pair{"vocab", cfg.task.vocab()}, {"classes", cfg.task.alphabet}})
      if (m.contains(field) && m[field] != want)
        throw r.fail(fmt::format("model.{} is {} but alphabet {}{} makes it {}", field, m[field].dump(),
                                 cfg.task.alphabet, cfg.task.query_token ? " with a query token" : "", want));
    cfg.d_model = m.at("d_model");
    cfg.embed_init_std = m.at("embed_init_std");
    cfg.scheme = r.scheme();
    LoadedCheckpoint out;
    out.model = std::make_unique<CueHead<float>>(cfg);
    r.params(out.model->layout(), out.model->params().data());
    out.meta = r.meta();
    out.path = path;
    try {  // randomised positions (harness/random_positions.h): the readers draw them as training did
      out.random_positions = random_positions_of(out.meta.at("training"));
    } catch (const DataError& e) {
      throw r.fail(e.what());
    }
    return out;
  });
}

void check_positions_hold(const LoadedCheckpoint& cp, int n) {
  if (cp.random_positions > 0 && n > cp.random_positions)
    throw UsageError(fmt::format(
        "{} was trained with random_positions {}: its test sequences draw positions from [0, {}) too, which "
        "cannot hold length {}; read at {} or shorter",
        cp.path, cp.random_positions, cp.random_positions, n, cp.random_positions));
}

void note_positions_read(const LoadedCheckpoint& cp, const std::string& what) {
  static std::set<std::string> noted;  // once per checkpoint and reader in a process (a reading runs per length)
  if (cp.random_positions > 0 && noted.insert(cp.path + "\n" + what).second)
    fmt::print(stderr, "note: {} was trained at positions drawn from [0, {}); {} reads it at positions 0 .. n-1\n",
               cp.path, cp.random_positions, what);
}

CheckBatch check_head_checkpoint(const std::string& path, const std::string& task, HeadInput input, const MapSpec& map,
                                 int length, uint64_t seed, bool every_position, const std::string& mode) {
  const CheckMode& m = check_mode(mode);
  if (m.row)  // a head's check batch reads at the last row or at query rows, at positions 0 .. T-1
    throw UsageError(
        fmt::format("--coordinates {}: the {} head's check batch takes no per-token positions or documents; "
                    "leave --coordinates out (positions 0 .. T-1, read with the visibility the head was made for)",
                    mode, task));
  if (m.query_row && every_position)
    throw UsageError(fmt::format(
        "--coordinates {}: the {} head answers at every position, not at one row per sequence; leave --coordinates out",
        mode, task));
  LoadedCheckpoint cp = load_checkpoint(path, task, input);
  const int train = cp.meta.at("training").value("train_length", 0);
  if (length <= 0) length = train;
  const nlohmann::json reading = read_for_check(cp.model->scheme(), map, train, length, length);
  CheckBatch c = check_cue_head(*cp.model, 4, length, every_position, seed, mode);
  c.reading = reading;
  return c;
}

std::unique_ptr<DoctorModel> doctor_head(LoadedCheckpoint cp) {
  const CueTaskConfig task = cp.model->config().task;
  const int train = cp.meta.at("training").value("train_length", 0);
  return doctor_cue_head(std::move(cp.model), train, 2 * task.alphabet, task.query_token ? task.query_token_id() : -1);
}

}  // namespace pe
