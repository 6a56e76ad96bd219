// Reading trained heads on the held-out filings (tasks.md section 2): accuracy on every query and on
// the queries whose answer is more than 32 tokens back, each reader over seeds with intervals; the
// ALiBi horizon table (filings-trained and cue-trained heads); one document read by every reader;
// the tables (docs/results-format.md, "The filings task").
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "schemes/frequency_maps.h"
#include "tasks/filings/corpus.h"

namespace pe {

struct FilingsSettings {
  uint64_t corpus_seed = 1;
  int corpus_version = kFilingsCorpusVersion;
  std::vector<MapSpec> maps;  // RoPE also read with each, at kappa = document length / train length
  int far = 32;               // a far query's answer is more than this many tokens back
  std::string cue_runs;       // a cue runs_dir whose ALiBi heads the horizon table also reads ("": none)
};

// The corpus of a seed and generator version, generated once per process (300 training, 100 held-out).
const FilingsCorpus& filings_corpus(uint64_t seed, int version);

// Reads every checkpoint (task "filings") on every held-out document with the one-pass reader.
nlohmann::json evaluate_filings(const std::vector<std::string>& checkpoints, const FilingsSettings& s, bool progress);

// The held-out document with the most far queries (the first of the most), read whole by every
// reader and seed: {document: {id, kind, words, symbols, marks, companies, targets}, readers: [...]}.
nlohmann::json filings_document_json(const std::vector<std::string>& checkpoints, const FilingsSettings& s);

// The laboratory's filing (tasks/filings/lab_filing.h) read whole by every reader and seed, in the same
// shape, with each reader's answers counted from the last mention on.
nlohmann::json lab_filing_json(const std::vector<std::string>& checkpoints, const FilingsSettings& s);

// Adds each row's 95% interval of the accuracy on all and on far queries (lo, hi:
// stats::proportion_interval over the seeds, N = that column's queries) and the method in words
// ("interval"); at the end of a reading and when `pe-bench table --restate` rewrites a committed file.
void add_filings_intervals(nlohmann::json& results);
std::string format_filings_table(const nlohmann::json& results);
// With the published figures of results["reference"] beside pe-bench's.
std::string format_filings_markdown(const nlohmann::json& results);
// Two readers across seeds (paired t) on all queries and on the far ones.
std::string compare_filings_readers(const nlohmann::json& results, const std::string& a, const std::string& b);

}  // namespace pe
