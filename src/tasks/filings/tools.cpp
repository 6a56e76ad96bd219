// The filings task's tool (TaskTools::add_tools): pe-bench corpus filings: generate the synthetic filings corpus
// (tasks/filings/corpus.h), print its statistics, or show one document readably.
#include <fmt/format.h>

#include "core/errors.h"
#include "core/files.h"
#include "harness/cli_options.h"
#include "harness/config.h"
#include "tasks/filings/corpus.h"
#include "tasks/filings/tools.h"

namespace pe::cli {

void add_filings_tools(CLI::App& app) {
  struct Opts {
    std::string name, out;
    long long seed = 1;
    int version = kFilingsCorpusVersion;
    std::optional<int> show;
  };
  auto o = std::make_shared<Opts>();
  auto* sub = app.add_subcommand(
      "corpus",
      "Generate a synthetic corpus: `corpus filings --out data/filings/` writes 300 training and 100 held-out "
      "company filings (MD&A sections, earnings-call transcripts, 8-K reports) as JSON Lines (train.jsonl, "
      "held_out.jsonl: words, symbols, marks, companies) and prints their statistics; --show N prints held-out "
      "document N with its company mentions highlighted");
  sub->add_option("name", o->name, "the corpus: filings")->required()->check(CLI::IsMember({"filings"}));
  sub->add_option("--out", o->out, "directory to write train.jsonl and held_out.jsonl into (atomically)");
  add_renamed_option(sub, "--seed", "--corpus-seed");
  sub->add_option("--corpus-seed", o->seed,
                  "generator seed, as the key corpus_seed and within its bounds (the same seed gives the same bytes)")
      ->capture_default_str()
      ->check(CLI::Range(0LL, (long long)kMaxSeed));  // the key's bound: a seed given here must be one a run can read
  sub->add_option("--corpus-version", o->version,
                  "generator version, as the key corpus_version: 1 is the corpus of the first filings results, 2 the "
                  "one calibrated to the published statistics")
      ->capture_default_str()
      ->check(CLI::Range(1, kFilingsCorpusVersion));
  sub->add_option("--show", o->show, "print held-out document N (0-99) readably instead of writing")
      ->check(CLI::Range(0, 99));
  check_option_values(app);
  sub->callback([o] {
    const FilingsCorpus c = generate_filings(uint64_t(o->seed), 300, 100, o->version);
    if (o->show) {
      fmt::print("{}", show_filings_document(c.held_out[size_t(*o->show)]));
      return;
    }
    if (!o->out.empty()) {
      // the pair as one unit: a kill never leaves one seed's training file beside another's held-out one
      write_file_set(o->out, {{"train.jsonl", filings_jsonl(c.train)}, {"held_out.jsonl", filings_jsonl(c.held_out)}});
    }
    for (auto [name, docs] : {std::pair{"training", &c.train}, std::pair{"held-out", &c.held_out}}) {
      const nlohmann::json s = filings_statistics(*docs);
      fmt::print(
          "{} documents: {}; length median {} (quartiles {}, {}); company mentions per document median {} "
          "(quartiles {}, {}); {} queries, {:.1f}% with the answer more than {} tokens back; always "
          "answering the first company named: {:.3f} (on the far ones {:.3f})\n",
          name, s["documents"].get<int>(), s["length_quartiles"][1].get<int>(), s["length_quartiles"][0].get<int>(),
          s["length_quartiles"][2].get<int>(), s["mentions_quartiles"][1].get<int>(),
          s["mentions_quartiles"][0].get<int>(), s["mentions_quartiles"][2].get<int>(), s["queries"].get<long>(),
          100 * s["far_share"].get<double>(), s["far"].get<int>(), s["first_company_accuracy"].get<double>(),
          s["first_company_far_accuracy"].get<double>());
    }
    if (!o->out.empty()) fmt::print("wrote {}/train.jsonl and {}/held_out.jsonl\n", o->out, o->out);
  });
}

}  // namespace pe::cli
