// The filings corpus (tasks.md section 2): synthetic company filings — MD&A sections,
// earnings-call transcripts and 8-K current reports — generated from pe-bench's own templates and
// word lists, seeded and deterministic. One token per word; a company mention is one token, marked,
// whose symbol is the company's order of first appearance in its document (at most 8 companies);
// every other word carries a stable hashed symbol (FNV-1a of the word, mod 8) and is unmarked.
// At every position from the first mention on, the target is the company named last at or before it.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace pe {

inline constexpr int kFilingsSymbols = 8;  // companies per document, and hashed word symbols

struct FilingsDocument {
  std::string id, kind;                // kind: "mdna", "earnings_call" or "8k"
  std::vector<std::string> words;      // one per token; a mention is the company's name
  std::vector<int> symbols;            // [n]: company order for a mention, else the word's hash
  std::vector<char> marks;             // [n]: 1 for a mention
  std::vector<std::string> companies;  // in order of first appearance
  // [n]: the company named last at or before each position, -1 before the first mention
  std::vector<int> targets() const;
};

struct FilingsCorpus {
  std::vector<FilingsDocument> train, held_out;
};

// The generator's versions: 1, the corpus of the first filings results; 2 (the default), calibrated
// to the published corpus statistics (tasks.md section 2). A version never changes once released.
inline constexpr int kFilingsCorpusVersion = 2;

// 300 training and 100 held-out documents by default; the same seed and version give the same bytes.
// ConfigError for a version that does not exist.
FilingsCorpus generate_filings(uint64_t seed, int n_train = 300, int n_held_out = 100,
                               int version = kFilingsCorpusVersion);
// A document written out: words separated by spaces, "@X" standing for the company companies.at("@X")
// (symbols in order of first appearance, as in a generated document). DataError for an unknown "@X"
// or more than 8 companies.
FilingsDocument filings_document_from_text(const std::string& id, const std::string& kind, const std::string& text,
                                           const std::vector<std::pair<std::string, std::string>>& companies);
// The stable hashed symbol of an ordinary word.
int word_symbol(const std::string& word);

// Corpus statistics (of the documents given): document length (median, quartiles), company
// mentions per document (median, quartiles), queries, the share of queries whose answer is more
// than `far` tokens back, and the accuracy of always answering the first company named (on every
// query and on those far ones).
nlohmann::json filings_statistics(const std::vector<FilingsDocument>& docs, int far = 32);

// JSON Lines, one document per line: id, kind, words, symbols, marks, companies.
std::string filings_jsonl(const std::vector<FilingsDocument>& docs);
std::vector<FilingsDocument> read_filings_jsonl(const std::string& path);  // DataError naming the file
// One document readably: its words with mentions as [Name #k], wrapped at `width` columns.
std::string show_filings_document(const FilingsDocument& d, int width = 100);

}  // namespace pe
