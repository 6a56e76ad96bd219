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
#include "scratch.h"

using namespace pe;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {
std::vector<std::string> names_in(const std::string& dir) {
  std::vector<std::string> out;
  for (auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}
}  // namespace

TEST_CASE("an output set is written whole, and removes the outputs of an earlier set that it does not make") {
  const std::string d = pe::test::fresh_scratch_dir("set");
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
  const std::string d = pe::test::fresh_scratch_dir("pending");
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
  finish_file_set(d, {"results.json", "table.md", "geometry.json"});
  CHECK(names_in(d) == std::vector<std::string>{"results.json", "table.md"});
  CHECK(read_file(d + "/results.json") == "new\n");
  CHECK(read_file(d + "/table.md") == "new\n");
  fs::remove_all(d);
}

TEST_CASE("a pending set names only its folder's own plain files, checked whole before anything is touched") {
  const std::string root = pe::test::fresh_scratch_dir("hostile");
  const std::string d = root + "/out", victim = root + "/victim.txt";
  const auto pending = [&](const std::string& manifest) {
    fs::remove_all(d);
    fs::create_directories(d + "/.output-set.pending");
    std::ofstream(d + "/.output-set.pending/MANIFEST") << manifest;
    std::ofstream(d + "/.output-set.pending/results.json") << "new\n";
  };
  std::ofstream(victim) << "precious\n";
  const std::vector<std::pair<std::string, std::string>> set = {{"results.json", "1\n"}, {"table.md", "a\n"}};
  for (const std::string& line : std::vector<std::string>{
           "remove ../victim.txt", "remove " + victim, "put ../victim.txt", "remove .", "remove ..", "remove ",
           "put .output-set.pending", "remove a/../../victim.txt", "delete results.json", "remove notes.txt"}) {
    INFO(line);
    pending("put results.json\n" + line + "\n");
    std::ofstream(d + "/table.md") << "old\n";
    CHECK_THROWS_WITH_AS(write_file_set(d, set), doctest::Contains("MANIFEST line 2"), IoError);
    CHECK(read_file(victim) == "precious\n");
    CHECK(read_file(d + "/table.md") == "old\n");  // nothing touched, the first line's put included
    CHECK(fs::exists(d + "/.output-set.pending/results.json"));
  }
  // a name twice, and a symlink where a file of the set goes (never followed, never removed)
  pending("put results.json\nput results.json\n");
  CHECK_THROWS_WITH_AS(write_file_set(d, set), doctest::Contains("names a file twice"), IoError);
  pending("remove table.md\n");
  fs::create_symlink(victim, d + "/table.md");
  CHECK_THROWS_WITH_AS(write_file_set(d, set), doctest::Contains("is not a regular file"), IoError);
  CHECK(read_file(victim) == "precious\n");
  // a directory where a file of the set goes: refused before the commit point, the old set whole
  fs::remove_all(d);
  write_file_set(d, set);
  fs::remove(d + "/table.md");
  fs::create_directories(d + "/table.md");
  CHECK_THROWS_WITH_AS(write_file_set(d, {{"results.json", "2\n"}, {"table.md", "b\n"}}),
                       doctest::Contains("table.md is not a regular file"), IoError);
  CHECK(read_file(d + "/results.json") == "1\n");
  CHECK_FALSE(fs::exists(d + "/.output-set.pending"));
  // the rule for names
  for (const char* bad : {"", ".", "..", "../x", "/etc/passwd", "a/b", ".hidden", "a\\b"})
    CHECK_FALSE(plain_file_name(bad));
  for (const char* good : {"results.json", "check.safetensors", "held_out.jsonl", "a..b"}) CHECK(plain_file_name(good));
  fs::remove_all(root);
}

TEST_CASE("every JSON pe-bench reads: a key twice and a number past a double are refused; files are bounded") {
  CHECK(parse_json(R"({"a": 1, "b": {"a": 2}})")["b"]["a"] == 2);  // the same key in two objects is fine
  CHECK_THROWS_WITH_AS(parse_json(R"({"steps": 2, "steps": 1000000})"), doctest::Contains("duplicate key 'steps'"),
                       json::exception);
  CHECK_THROWS_WITH_AS(parse_json(R"([{"x": {"k": 1, "k": 1}}])"), doctest::Contains("duplicate key 'k'"),
                       json::exception);
  CHECK_THROWS_AS(parse_json(R"({"steps": 1e400})"), json::exception);
  CHECK_THROWS_AS(parse_json(R"({"steps": -1e400})"), json::exception);
  CHECK_THROWS_AS(parse_json("{\"a\": 1"), json::parse_error);
  CHECK(parse_json("1e308").get<double>() == 1e308);
  const std::string d = pe::test::fresh_scratch_dir("read");
  CHECK_THROWS_WITH_AS(read_file(d), doctest::Contains("is a directory"), IoError);
  std::ofstream(d + "/big") << std::string(5000, 'x');
  CHECK_THROWS_WITH_AS(read_file(d + "/big", 4096), doctest::Contains("more than"), IoError);
  CHECK(read_file(d + "/big").size() == 5000);
  CHECK_THROWS_WITH_AS(read_file("/dev/zero", 1 << 20), doctest::Contains("more than 1 MiB"), IoError);
  fs::remove_all(d);
}

TEST_CASE("a file checked before it is put in place: a refused one leaves the old file and no temporary") {
  const std::string d = pe::test::fresh_scratch_dir("checked");
  write_file_atomic(d + "/cp.json", "old\n");
  CHECK_THROWS_AS(write_file_checked(d + "/cp.json", "new\n",
                                     [](const std::string& t) {
                                       CHECK(read_file(t) == "new\n");
                                       throw DataError("refused");
                                     }),
                  DataError);
  CHECK(read_file(d + "/cp.json") == "old\n");
  CHECK(names_in(d) == std::vector<std::string>{"cp.json"});
  write_file_checked(d + "/cp.json", "new\n", [](const std::string&) {});
  CHECK(read_file(d + "/cp.json") == "new\n");
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

TEST_CASE("the reading keys are the keys declared for_reading, wherever they are declared") {
  const auto& reading = reading_keys();
  auto has = [&](const std::string& k) { return std::find(reading.begin(), reading.end(), k) != reading.end(); };
  size_t declared = 0;
  for (auto& k : config_keys()) {
    CHECK_MESSAGE(has(k.key) == k.reading_only, k.key);
    declared += k.reading_only;
  }
  CHECK(reading.size() == declared + 2);  // and the free text "description", and maps' old name "rescale"
  CHECK(has("description"));
  CHECK(has("rescale"));
  // one of each place: the common keys, a task's keys (the char LM's, the cue task's); none of the training
  for (const char* k : {"eval_lengths", "out_dir", "val_windows", "test_seed"}) CHECK_MESSAGE(has(k), k);
  for (const char* k : {"steps", "lr", "train_length", "seeds", "corpus", "alphabet"}) CHECK_MESSAGE(!has(k), k);
}

TEST_CASE("a temporary's owner is read from its name; a dead owner's temporaries are removed") {
  CHECK(temp_owner("seed0.tmp.1234.5") == 1234);
  CHECK(temp_owner("results.json.tmp.77.1") == 77);
  CHECK(temp_owner("seed0") == 0);
  CHECK(temp_owner("seed0.tmp.x.1") == 0);
  CHECK(process_alive(::getpid()));
  const std::string d = pe::test::fresh_scratch_dir("stale");
  fs::create_directories(d + "/seed0.tmp.999999999.1");
  std::ofstream(d + "/seed0.state.json.tmp.999999999.2") << "x";
  fs::create_directories(d + "/seed0.tmp." + std::to_string(::getpid()) + ".3");  // ours: alive
  fs::create_directories(d + "/seed1.tmp.999999999.1");                           // another run's
  remove_stale_temps(d + "/seed0");
  CHECK(names_in(d) ==
        std::vector<std::string>{"seed0.tmp." + std::to_string(::getpid()) + ".3", "seed1.tmp.999999999.1"});
  fs::remove_all(d);
}

TEST_CASE("the memory check refuses what cannot fit and lets through what can") {
  CHECK(memory_limit_bytes() > 1e8);
  CHECK_NOTHROW(check_memory(1e6, "a small thing", "fine"));
  CHECK_THROWS_AS(check_memory(1e21, "a zettabyte", "lower it"), ConfigError);
}
