// Output sets written as one unit, integers read from files without narrowing, which config keys a
// kept run may differ in, and the temporaries a killed process leaves.
#include <doctest/doctest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "core/errors.h"
#include "core/files.h"
#include "core/keys.h"
#include "core/memory.h"
#include "harness/config.h"

using namespace pe;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {
std::string scratch_dir(const std::string& name) {
  const auto d = fs::temp_directory_path() / ("pe-bench-test-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d.string();
}
std::vector<std::string> names_in(const std::string& dir) {
  std::vector<std::string> out;
  for (auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}
}  // namespace

TEST_CASE("an output set is written whole, and removes the outputs of an earlier set that it does not make") {
  const std::string d = scratch_dir("set");
  write_file_set(d, {{"results.json", "1\n"}, {"table.md", "a\n"}, {"geometry.json", "g\n"}}, {"geometry.json"});
  CHECK(names_in(d) == std::vector<std::string>{"geometry.json", "results.json", "table.md"});
  // the next set makes no geometry: the old one goes with it
  write_file_set(d, {{"results.json", "2\n"}, {"table.md", "b\n"}}, {"geometry.json"});
  CHECK(names_in(d) == std::vector<std::string>{"results.json", "table.md"});
  CHECK(read_file(d + "/results.json") == "2\n");
  CHECK(read_file(d + "/table.md") == "b\n");
  fs::remove_all(d);
}

TEST_CASE("a set whose writer was killed after committing it is finished; one killed before is dropped") {
  const std::string d = scratch_dir("pending");
  write_file_set(d, {{"results.json", "old\n"}, {"table.md", "old\n"}, {"geometry.json", "old\n"}});
  // killed in the moment after the commit: the pending set holds the new files and its manifest
  fs::create_directories(d + "/.output-set.pending");
  std::ofstream(d + "/.output-set.pending/results.json") << "new\n";
  std::ofstream(d + "/.output-set.pending/MANIFEST") << "put results.json\nput table.md\nremove geometry.json\n";
  // table.md had already moved into place before the kill
  std::ofstream(d + "/table.md") << "new\n";
  // killed while staging another set: a dead process's staging folder
  const std::string staging = d + "/.output-set.tmp.999999999.1";
  fs::create_directories(staging);
  std::ofstream(staging + "/results.json") << "half\n";
  finish_file_set(d);
  CHECK(names_in(d) == std::vector<std::string>{"results.json", "table.md"});
  CHECK(read_file(d + "/results.json") == "new\n");
  CHECK(read_file(d + "/table.md") == "new\n");
  fs::remove_all(d);
}

TEST_CASE("integers read from files are range-checked before they are narrowed") {
  CHECK(checked_int(json(7), "x", 0, 10) == 7);
  CHECK(checked_int(json(-3), "x", -5, 10) == -3);
  CHECK_THROWS_WITH_AS(checked_int(json::parse("4294967297"), "version", 0, 100),
                       "version must be an integer in [0, 100] (got 4294967297)", UsageError);
  CHECK_THROWS_AS(checked_int(json::parse("18446744073709551615"), "x", 0, 1LL << 40), UsageError);
  CHECK_THROWS_AS(checked_int(json(2.5), "x", 0, 10), UsageError);
  CHECK_THROWS_AS(checked_int(json("3"), "x", 0, 10), UsageError);
  CHECK_THROWS_AS(checked_int32(json(-1), "x"), UsageError);
}

TEST_CASE("a run kept by --resume may differ from the run asked for only in reading keys") {
  json a = default_config();
  a["scheme"] = "rope", a["seed"] = 0;
  json b = a;
  b["test_sequences"] = 64;
  b["eval_lengths"] = json::array({32, 512});
  b["maps"] = json::array({"pi"});
  b["analyze"] = false;
  b["out_dir"] = "elsewhere";
  b["name"] = "other";
  CHECK(same_run(a, b));
  b["steps"] = 7;
  CHECK_FALSE(same_run(a, b));
  json c = a;
  c["lr"] = 0.5;
  CHECK_FALSE(same_run(a, c));
}

TEST_CASE("a temporary's owner is read from its name; a dead owner's temporaries are removed") {
  CHECK(temp_owner("seed0.tmp.1234.5") == 1234);
  CHECK(temp_owner("results.json.tmp.77.1") == 77);
  CHECK(temp_owner("seed0") == 0);
  CHECK(temp_owner("seed0.tmp.x.1") == 0);
  CHECK(process_alive(::getpid()));
  const std::string d = scratch_dir("stale");
  fs::create_directories(d + "/seed0.tmp.999999999.1");
  std::ofstream(d + "/seed0.state.json.tmp.999999999.2") << "x";
  fs::create_directories(d + "/seed0.tmp." + std::to_string(::getpid()) + ".3");  // ours: alive
  fs::create_directories(d + "/seed1.tmp.999999999.1");                           // another run's
  remove_stale_temps(d + "/seed0");
  CHECK(names_in(d) == std::vector<std::string>{"seed0.tmp." + std::to_string(::getpid()) + ".3",
                                                "seed1.tmp.999999999.1"});
  fs::remove_all(d);
}

TEST_CASE("the memory check refuses what cannot fit and lets through what can") {
  CHECK(memory_limit_bytes() > 1e8);
  CHECK_NOTHROW(check_memory(1e6, "a small thing", "fine"));
  CHECK_THROWS_AS(check_memory(1e21, "a zettabyte", "lower it"), ConfigError);
}
