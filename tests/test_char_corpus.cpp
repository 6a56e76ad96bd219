// The character-LM corpus pipeline (groundwork for the character LM).
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>

#include "core/errors.h"
#include "core/files.h"
#include "core/sha1.h"
#include "scratch.h"
#include "tasks/charlm/corpus.h"

using namespace pe;
namespace fs = std::filesystem;

TEST_CASE("SHA-1 matches the FIPS 180 test vectors") {
  CHECK(sha1_hex("abc") == "a9993e364706816aba3e25717850c26c9cd0d89d");
  CHECK(sha1_hex("") == "da39a3ee5e6b4b0d3255bfef95601890afd80709");
  CHECK(sha1_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "84983e441c3bd26ebaae4aa1f95129e5e54670f1");
  CHECK(sha1_hex(std::string(1000000, 'a')) == "34aa973cd4c4daa4f61eeb2bdbad27316534016f");
}

TEST_CASE("d2l preprocessing: runs of non-letters become one space, then lower case") {
  CHECK(d2l_preprocess("The Time Machine, by H. G. Wells [1898]\n\nI") == "the time machine by h g wells i");
  CHECK(d2l_preprocess("  --Hello!!") == " hello ");
  CHECK(d2l_preprocess("") == "");
}

TEST_CASE("the shipped corpus: sha1, 28-token vocabulary in d2l's order, windows shifted by one") {
  const CharCorpus c = load_char_corpus(std::string(PEBENCH_SOURCE_DIR) + "/" + kTimeMachinePath, kTimeMachineSha1);
  CHECK(c.sha1 == kTimeMachineSha1);
  REQUIRE(c.vocab.size() == 28);
  CHECK(c.vocab[0] == " ");
  CHECK(c.vocab[1] == "<unk>");
  CHECK(c.vocab[2] == "a");
  CHECK(c.vocab[27] == "z");
  CHECK(c.ids.size() == 173428);
  CHECK(std::count(c.ids.begin(), c.ids.end(), c.unk()) == 0);
  // every window the experiment uses fits: validation starts up to 102,999 at T = 512
  std::vector<int> x(512), y(512);
  char_window(c, 102999, 512, x.data(), y.data());
  for (int t = 0; t + 1 < 512; ++t) CHECK(y[t] == x[t + 1]);
  char_window(c, 0, 4, x.data(), y.data());
  CHECK(c.vocab[x[0]] + c.vocab[x[1]] + c.vocab[x[2]] == "the");
  CHECK_THROWS_AS(char_window(c, int(c.ids.size()) - 3, 4, x.data(), y.data()), UsageError);
}

TEST_CASE("a missing or altered corpus is a clear DataError") {
  const auto dir = pe::test::scratch_path("corpus");
  fs::create_directories(dir);
  CHECK_THROWS_WITH_AS(load_char_corpus((dir / "absent.txt").string(), kTimeMachineSha1),
                       doctest::Contains("git checkout data/timemachine.txt"), DataError);
  write_file_atomic((dir / "other.txt").string(), "Another text, with Letters.");
  CHECK_THROWS_WITH_AS(load_char_corpus((dir / "other.txt").string(), kTimeMachineSha1), doctest::Contains("has sha1"),
                       DataError);
  // --corpus PATH: another text through the same pipeline, no digest required
  const CharCorpus other = load_char_corpus((dir / "other.txt").string(), "");
  CHECK(other.vocab[0] == " ");
  CHECK(other.vocab[1] == "<unk>");
  CHECK(other.ids.size() == d2l_preprocess("Another text, with Letters.").size());
  fs::remove_all(dir);
}
