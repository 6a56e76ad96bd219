// The character-LM corpus (docs/tasks.md section 3): The Time Machine, d2l's preprocessing,
// vocabulary and window layout.
#pragma once
#include <string>
#include <vector>

namespace pe {

inline constexpr const char* kTimeMachinePath = "data/timemachine.txt";
inline constexpr const char* kTimeMachineSha1 = "090b5e7e70c295757f55df93cb0a180b9691891a";

// Every run of non-letters becomes one space, then lower case ([^A-Za-z]+ -> ' ').
std::string d2l_preprocess(const std::string& text);

struct CharCorpus {
  std::string path, sha1;
  std::vector<std::string> vocab;  // id -> token: d2l's order, sorted: ' ', '<unk>', 'a' .. 'z'
  std::vector<int> ids;            // the preprocessed text as ids
  // Where each document starts in ids (ascending, the first 0): the paragraphs of the text, a blank
  // line ending one (paragraph_starts). A document runs to the next one's start, its last token the
  // space its gap became.
  std::vector<int> doc_starts;
  // The document holding ids[i], and where it ends (one past its last token).
  int doc_of(long i) const;
  long doc_end(int d) const { return d + 1 < int(doc_starts.size()) ? doc_starts[size_t(d) + 1] : long(ids.size()); }
  int unk() const { return 1; }
  int id_of(char c) const;  // <unk> for characters not in the vocabulary
};

// Where each paragraph of `text` starts in d2l_preprocess(text): the first letter after a run of
// non-letters that holds a blank line (two line ends with only spaces, tabs or carriage returns
// between), and 0. ([0] for a text without blank lines: one document.)
std::vector<int> paragraph_starts(const std::string& text);

// Reads `path` through the pipeline. expected_sha1 non-empty: the file must have that digest
// (DataError saying so otherwise); a missing file is a DataError that says where to get it.
CharCorpus load_char_corpus(const std::string& path, const std::string& expected_sha1);

// Window starting at `start`: x = ids[start : start+T], y = ids[start+1 : start+T+1]. x, y: [T].
void char_window(const CharCorpus& c, int start, int T, int* x, int* y);

}  // namespace pe
