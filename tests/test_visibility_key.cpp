// The `visibility` key (docs/tasks.md): the cue task makes its heads causal or bidirectional, the
// checkpoint records a bidirectional head and reads it back so; the tasks that cannot honour the key
// refuse it in one line that says why.
#include <doctest/doctest.h>

#include <string>

#include "core/errors.h"
#include "core/files.h"
#include "harness/checkpoint.h"
#include "harness/config.h"
#include "scratch.h"
#include "tasks/cue/checkpoint.h"
#include "tasks/cue/training.h"

using namespace pe;
using nlohmann::json;

namespace visibility_key_test {

json cue_config(const std::string& runs, const std::string& visibility) {
  json c = default_config("cue");
  c["schemes"] = {"t5"};
  c["seeds"] = {0};
  c["steps"] = 5;
  c["runs_dir"] = runs;
  c["visibility"] = visibility;
  complete_config(c);
  validate_config(c);
  return c;
}

}  // namespace visibility_key_test

TEST_CASE("visibility: a bidirectional cue head is trained, recorded and read back as one") {
  using namespace visibility_key_test;
  const std::string dir = pe::test::fresh_scratch_dir("visibility-key");
  for (const std::string visibility : {"causal", "bidirectional"}) {
    INFO(visibility);
    const json cfg = cue_config(dir + "/" + visibility, visibility);
    const ExperimentConfig e = ExperimentConfig::from_json(cfg);
    CHECK(cue_model_config(e, "t5").scheme.bidirectional == (visibility == "bidirectional"));
    const TrainedRun run = train_cue(e, cfg, "t5", 0);
    const json cp = json::parse(read_file(run.checkpoint));
    // a causal checkpoint's scheme section is as before (no field); a bidirectional one says so
    CHECK(cp.at("scheme").contains("visibility") == (visibility == "bidirectional"));
    const LoadedCheckpoint loaded = load_checkpoint(run.checkpoint);
    CHECK(loaded.model->scheme().config().bidirectional == (visibility == "bidirectional"));
  }
}

TEST_CASE("visibility: a value outside causal/bidirectional, and the tasks that cannot honour it, are refused") {
  json c = default_config("cue");
  c["visibility"] = "both";
  CHECK_THROWS_WITH_AS(validate_config(c), doctest::Contains("not causal or bidirectional"), ConfigError);
  for (const std::string task : {"charlm", "passkey", "filings"}) {
    json t = default_config(task);
    t["visibility"] = "bidirectional";
    const std::string refusal = "does not apply to the " + task + " task (";
    CHECK_THROWS_WITH_AS(validate_config(t), doctest::Contains(refusal.c_str()), ConfigError);
  }
  json lm = default_config("charlm");
  lm["visibility"] = "causal";  // even the value it has: the key is not the char LM's
  CHECK_THROWS_WITH_AS(validate_config(lm), doctest::Contains("would see the token it predicts"), ConfigError);
  // a checkpoint's scheme section with another visibility
  json s = {{"name", "t5"}, {"d_model", 16}, {"n_heads", 1}, {"d_head", 16}, {"visibility", "sideways"}};
  CHECK_THROWS_WITH_AS(scheme_config_from_json(s), doctest::Contains("scheme.visibility"), ConfigError);
  s["visibility"] = "bidirectional";
  CHECK(scheme_config_from_json(s).bidirectional);
}
