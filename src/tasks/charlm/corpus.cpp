#include "tasks/charlm/corpus.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "core/errors.h"
#include "core/files.h"
#include "core/sha1.h"

namespace pe {

std::string d2l_preprocess(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  bool in_gap = false;
  for (unsigned char ch : text) {
    const bool letter = (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z');
    if (letter) {
      out.push_back(char(ch >= 'A' && ch <= 'Z' ? ch - 'A' + 'a' : ch));
      in_gap = false;
    } else if (!in_gap) {
      out.push_back(' ');
      in_gap = true;
    }
  }
  return out;
}

std::vector<int> paragraph_starts(const std::string& text) {
  std::vector<int> starts = {0};
  long out = 0;  // where the next character of d2l_preprocess(text) goes
  bool in_gap = false, blank = false, line_end = false;
  for (unsigned char ch : text) {
    const bool letter = (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z');
    if (letter) {
      if (blank && out > 0) starts.push_back(int(out));
      ++out, in_gap = blank = line_end = false;
      continue;
    }
    if (!in_gap) ++out, in_gap = true;  // the gap's one space
    if (ch == '\n') {
      blank = blank || line_end;
      line_end = true;
    } else if (ch != ' ' && ch != '\t' && ch != '\r') {
      line_end = false;  // a line with something on it
    }
  }
  return starts;
}

int CharCorpus::doc_of(long i) const {
  return int(std::upper_bound(doc_starts.begin(), doc_starts.end(), i) - doc_starts.begin()) - 1;
}

int CharCorpus::id_of(char c) const {
  if (c == ' ') return 0;
  if (c >= 'a' && c <= 'z') {
    const std::string s(1, c);
    const auto it = std::lower_bound(vocab.begin() + 2, vocab.end(), s);
    if (it != vocab.end() && *it == s) return int(it - vocab.begin());
  }
  return unk();
}

CharCorpus load_char_corpus(const std::string& path, const std::string& expected_sha1) {
  if (!file_exists(path))
    throw DataError(
        fmt::format("corpus {} not found; pe-bench ships it as data/timemachine.txt (sha1 {}): run "
                    "from the repository's root, restore it with `git checkout data/timemachine.txt`, or pass "
                    "--corpus PATH",
                    path, kTimeMachineSha1));
  const std::string text = read_file(path);
  CharCorpus c;
  c.path = path;
  c.sha1 = sha1_hex(text);
  if (!expected_sha1.empty() && c.sha1 != expected_sha1)
    throw DataError(
        fmt::format("corpus {} has sha1 {} but the d2l copy has {}; restore it with "
                    "`git checkout data/timemachine.txt`, or pass --corpus to read another text on purpose",
                    path, c.sha1, expected_sha1));
  const std::string pre = d2l_preprocess(text);
  if (pre.size() < 2) throw DataError(fmt::format("corpus {} has no letters to train on", path));
  // d2l: sorted(set(['<unk>'] + tokens)); ' ' sorts before '<unk>', letters after it
  std::set<std::string> tokens = {"<unk>"};
  for (char ch : pre) tokens.insert(std::string(1, ch));
  c.vocab.assign(tokens.begin(), tokens.end());
  c.ids.resize(pre.size());
  for (size_t i = 0; i < pre.size(); ++i) c.ids[i] = c.id_of(pre[i]);
  c.doc_starts = paragraph_starts(text);
  return c;
}

void char_window(const CharCorpus& c, int start, int T, int* x, int* y) {
  if (start < 0 || size_t(start) + T + 1 > c.ids.size())
    throw UsageError(
        fmt::format("window [{}, {}) does not fit the corpus of {} characters", start, start + T + 1, c.ids.size()));
  for (int t = 0; t < T; ++t) x[t] = c.ids[size_t(start) + t], y[t] = c.ids[size_t(start) + t + 1];
}

}  // namespace pe
