// harness/key_table.h: a key declared once fills its field; the table's keys are the task's keys.
#include <doctest/doctest.h>

#include <string>

#include "core/errors.h"
#include "harness/config.h"
#include "harness/key_table.h"
#include "harness/task.h"
#include "tasks/charlm/training.h"
#include "tasks/passkey/training.h"

using namespace pe;
using nlohmann::json;

namespace {
struct Inner {
  int k = 0;
};
struct Planted {
  int steps_seen = 0;
  double lr_seen = 0;
  Inner inner;
  std::string untouched = "as constructed";
};
}  // namespace

TEST_CASE("a key table: each key once, its value in its field, keys in the order declared") {
  const KeyTable<Planted> table =
      KeyTable<Planted>()
          .keys({{"steps", KeyType::Int, 1, "x"}})
          .bind("steps", &Planted::steps_seen)
          .field(for_reading({"lr", KeyType::Float, 0.5, "y"}), &Planted::lr_seen)
          .field({"log_every", KeyType::Int, 3, "z"}, [](Planted& p) -> int& { return p.inner.k; })
          .key({"n_layers", KeyType::Int, 2, "declared, read elsewhere"});
  REQUIRE(table.specs().size() == 4);
  CHECK(table.specs()[0].key == "steps");
  CHECK(table.specs()[1].reading_only);
  CHECK_FALSE(table.specs()[2].reading_only);
  CHECK(table.specs()[3].key == "n_layers");
  json cfg = default_config("charlm");
  cfg["steps"] = 7, cfg["lr"] = 0.25, cfg["log_every"] = 11;
  const Planted p = table.read(ExperimentConfig::from_json(cfg));
  CHECK(p.steps_seen == 7);
  CHECK(p.lr_seen == 0.25);
  CHECK(p.inner.k == 11);
  CHECK(p.untouched == "as constructed");
  // binding a field to a key the table does not declare is a programming error, found at once
  CHECK_THROWS_AS(KeyTable<Planted>().bind("steps", &Planted::steps_seen), Error);
}

TEST_CASE("the char LM's and the passkey task's settings come from their key tables") {
  json cfg = default_config("charlm");
  cfg["val_windows"] = 123, cfg["band"] = 64, cfg["n_heads"] = 2, cfg["corpus"] = "data/timemachine.txt";
  const CharLMSettings c = charlm_settings(ExperimentConfig::from_json(cfg));
  CHECK(c.val_windows == 123);
  CHECK(c.band == 64);
  CHECK(c.n_heads == 2);
  CHECK(c.corpus == "data/timemachine.txt");
  CHECK(charlm_keys().size() == find_task("charlm").keys().size());
  json pk = default_config("passkey");
  pk["passkey_symbols"] = 3, pk["depths"] = 5, pk["test_seed"] = 99;
  const PasskeySettings s = passkey_settings(ExperimentConfig::from_json(pk));
  CHECK(s.spec.symbols == 3);
  CHECK(s.depths == 5);
  CHECK(s.test_seed == 99u);
  CHECK(s.n_layers == pk["n_layers"].get<int>());
}
