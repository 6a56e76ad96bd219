#include "tasks/filings/corpus.h"

#include <fmt/format.h>

#include <algorithm>
#include <sstream>

#include "core/errors.h"
#include "core/files.h"
#include "core/rng.h"

namespace pe {

using nlohmann::json;

namespace {

// ---- word lists (pe-bench's own; every company is fictional)

const std::vector<std::string> kSurnames = {"Harlow",   "Brennan",  "Castell", "Dunmore",   "Ellery",    "Fairbank",
                                            "Garrick",  "Holloway", "Ingram",  "Jessop",    "Kendrick",  "Lockwood",
                                            "Marlowe",  "Norcott",  "Osgood",  "Pemberton", "Quarry",    "Radley",
                                            "Sterling", "Thackery", "Upton",   "Varley",    "Whitcombe", "Yardley",
                                            "Ashby",    "Barrow",   "Corwin",  "Denholm",   "Easton",    "Fenwick"};
const std::vector<std::string> kIndustries = {"Freight", "Aerospace", "Apparel", "Logistics", "Energy",   "Foods",
                                              "Pharma",  "Textiles",  "Mining",  "Robotics",  "Shipping", "Minerals",
                                              "Telecom", "Capital",   "Motors",  "Chemicals"};

// Sentences: "@F" the paragraph's company, "@P" the parent, "@O" another company, "@N" a number,
// "@Q" a quarter, "@Y" a year. Filler sentences name nobody.
struct Kind {
  std::string name, opening;
  std::vector<std::string> mention, filler;
  std::vector<std::string> brief;  // version 2: short sentences (3-7 words) naming @F once
};

const std::vector<Kind>& kinds() {
  static const std::vector<Kind> k = {
      {"mdna",
       "management's discussion and analysis of financial condition and results of operations of @P for "
       "the fiscal year @Y",
       {"net revenue at @F increased @N percent compared with the prior year driven by higher volumes",
        "@F reported operating income of @N million for the @Q quarter",
        "the company expects @F to fund its capital expenditures from operating cash flow",
        "gross margin at @F declined @N basis points as input costs rose",
        "@F completed the integration of its regional operations during the year",
        "selling general and administrative expenses at @F were @N million",
        "we acquired @O during the @Q quarter to broaden our product portfolio",
        "@F faces competition from @O in several of its principal markets"},
       {"the following discussion should be read together with the consolidated financial statements and "
        "the related notes included elsewhere in this report",
        "results for interim periods are not necessarily indicative of the results that may be expected for "
        "the full year",
        "changes in foreign currency exchange rates reduced reported revenue by approximately @N percent",
        "liquidity remained adequate and the company was in compliance with all covenants under its credit "
        "agreement at the end of the period",
        "critical accounting estimates include the valuation of inventory goodwill and deferred tax assets and "
        "the assumptions used to measure pension obligations",
        "the company continues to evaluate the effect of recently issued accounting standards on its "
        "financial statements and related disclosures",
        "capital expenditures were @N million and were primarily related to capacity expansion and "
        "maintenance of existing facilities",
        "working capital increased mainly because of higher receivables and inventory levels at the end of "
        "the @Q quarter"},
       {"@F said", "sales at @F rose @N percent", "@F met its targets", "margins at @F improved", "@F reduced its debt",
        "@F added @N employees", "demand at @F was steady", "@F raised prices"}},
      {"earnings_call",
       "good morning and welcome to the @P @Q quarter @Y earnings conference call",
       {"revenue at @F grew @N percent in the quarter and we saw strength across every region",
        "at @F we delivered record orders and the backlog now stands at @N million",
        "our team at @F executed well despite a difficult pricing environment",
        "we continue to see @O as our most aggressive competitor in the segment",
        "the closing of our acquisition of @O is expected in the @Q quarter",
        "margins at @F expanded @N basis points on productivity gains", "@F will host an investor day later this year",
        "the company raised its full year outlook for @F"},
       {"before we begin let me remind you that today's remarks include forward looking statements that are "
        "subject to risks and uncertainties",
        "with that i will turn the call over to our chief financial officer to walk through the numbers in "
        "more detail",
        "operator we are now ready to take questions from the analysts on the line",
        "thank you for taking my question can you talk a little more about pricing trends and what you are "
        "seeing in demand as we move through the year",
        "we remain disciplined on costs and we are confident in the long term trajectory of the business",
        "free cash flow was @N million and we returned most of it to shareholders through dividends and "
        "repurchases",
        "supply chain conditions have improved but lead times for some components remain longer than we "
        "would like",
        "our next question comes from the line of an analyst with a large investment bank please go ahead"},
       {"@F had a strong quarter", "thanks to the team at @F", "@F beat expectations", "orders at @F rose @N percent",
        "@F reiterated its guidance", "@F gained share", "@F is well positioned", "volumes at @F recovered"}},
      {"8k",
       "current report pursuant to section 13 or 15 d of the securities exchange act filed by @P on @Y",
       {"on the date of this report @F entered into a definitive agreement with @O",
        "@F announced the appointment of a new chief executive officer effective immediately",
        "the board of directors of @F declared a quarterly dividend of @N cents per share",
        "@F issued a press release announcing its results for the @Q quarter",
        "under the agreement @O will acquire certain assets of @F for @N million in cash",
        "@F completed the previously announced sale of its equipment division",
        "the company and @O agreed to extend the term of their supply agreement",
        "@F amended its revolving credit facility to increase commitments to @N million"},
       {"the information in this item shall not be deemed filed for purposes of section 18 of the exchange act "
        "or otherwise subject to the liabilities of that section",
        "a copy of the press release is furnished as an exhibit to this current report and is incorporated "
        "herein by reference",
        "the foregoing description of the agreement does not purport to be complete and is qualified in its "
        "entirety by reference to the full text of the agreement",
        "pursuant to the requirements of the securities exchange act the registrant has duly caused this "
        "report to be signed on its behalf by the undersigned hereunto duly authorized",
        "the transaction is subject to customary closing conditions including the receipt of regulatory "
        "approvals and is expected to close within @N months",
        "no family relationship exists between the new officer and any director or executive officer of the "
        "registrant",
        "the financial statements required by this item will be filed by amendment not later than @N days "
        "after the date on which this report must be filed",
        "statements in this report that are not historical facts are forward looking statements within the "
        "meaning of the private securities litigation reform act"},
       {"@F confirmed the transaction", "@F filed the notice", "@F declined to comment", "shares of @F rose @N percent",
        "@F will file an amendment", "@F issued the statement", "@F paid @N million", "@F expects no charge"}},
  };
  return k;
}

std::vector<std::string> split_words(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  std::string w;
  while (in >> w) out.push_back(w);
  return out;
}

class Builder {
 public:
  Builder(FilingsDocument& d, Rng& rng) : d_(d), rng_(rng) {}
  // Appends a sentence, `focus` standing for @F and `other` for @O (company names).
  void sentence(const std::string& text, const std::string& parent, const std::string& focus,
                const std::string& other) {
    for (auto& w : split_words(text)) {
      if (w == "@P" || w == "@F" || w == "@O") {
        mention(w == "@P" ? parent : w == "@F" ? focus : other);
      } else if (w == "@N") {
        word(std::to_string(2 + rng_.below(95)));
      } else if (w == "@Q") {
        word(std::vector<std::string>{"first", "second", "third", "fourth"}[rng_.below(4)]);
      } else if (w == "@Y") {
        word(std::to_string(2011 + rng_.below(14)));
      } else {
        word(w);
      }
    }
  }

 private:
  void word(const std::string& w) {
    d_.words.push_back(w);
    d_.symbols.push_back(word_symbol(w));
    d_.marks.push_back(0);
  }
  void mention(const std::string& company) {
    auto it = std::find(d_.companies.begin(), d_.companies.end(), company);
    if (it == d_.companies.end()) d_.companies.push_back(company), it = d_.companies.end() - 1;
    d_.words.push_back(company);
    d_.symbols.push_back(int(it - d_.companies.begin()));
    d_.marks.push_back(1);
  }
  FilingsDocument& d_;
  Rng& rng_;
};

// A document's companies, drawn the same way by every version: the parent, then 2..6 subsidiaries
// and competitors, distinct "<Surname> <Industry>" names.
std::vector<std::string> draw_companies(Rng& rng) {
  std::vector<std::string> names;
  const int others = 2 + rng.below(5);
  while (int(names.size()) < 1 + others) {
    const std::string n =
        kSurnames[rng.below(int(kSurnames.size()))] + " " + kIndustries[rng.below(int(kIndustries.size()))];
    if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
  }
  return names;
}

FilingsDocument make_document(uint64_t seed, const std::string& split, int index) {
  Rng rng(stream_key({kTagTrain, seed, 0xF11E, split == "train" ? 1u : 2u, uint64_t(index)}));
  const Kind& kind = kinds()[rng.below(int(kinds().size()))];
  FilingsDocument d;
  d.id = fmt::format("{}-{:03d}", split, index);
  d.kind = kind.name;
  const std::vector<std::string> names = draw_companies(rng);
  const std::string& parent = names[0];
  Builder b(d, rng);
  b.sentence(kind.opening, parent, parent, parent);
  // paragraphs: each about one company (the parent most often), its mentions in a burst, between
  // long stretches of boilerplate; "the company" refers back in plain words
  const int paragraphs = 2 + rng.below(3);  // 2..4
  int introduced = 1;
  for (int p = 0; p < paragraphs; ++p) {
    std::string focus = parent;
    if (rng.uniform() < 0.25) {
      const int k = introduced < int(names.size()) && rng.uniform() < 0.6
                        ? introduced++
                        : 1 + rng.below(introduced > 1 ? introduced - 1 : 1);
      focus = names[std::min(k, int(names.size()) - 1)];
    }
    const int fillers_before = 2 + rng.below(2);  // 2..3 boilerplate sentences
    for (int f = 0; f < fillers_before; ++f)
      b.sentence(kind.filler[rng.below(int(kind.filler.size()))], parent, focus, focus);
    const int burst = 1 + rng.below(2);  // 1..2 sentences naming the focus
    for (int s = 0; s < burst; ++s) {
      const std::string& other = names[1 + rng.below(int(names.size()) - 1)];
      b.sentence(kind.mention[rng.below(int(kind.mention.size()))], parent, focus, other == focus ? parent : other);
    }
  }
  if (rng.uniform() < 0.7) b.sentence(kind.filler[rng.below(int(kind.filler.size()))], parent, parent, parent);
  return d;
}

// Version 2 (issue 26), calibrated on corpus statistics only — no head was trained or read while
// choosing these values (tasks.md section 2 has the search and the figures). Every company mention
// sits in a burst: one long sentence about the paragraph's company, then brief ones naming it again;
// bursts stand between stretches of boilerplate, so most positions are either just past a mention
// or far from one. The opening names the parent; its own burst follows at once or after one
// boilerplate sentence; the second paragraph is about a subsidiary or competitor three times in five.
struct Version2 {
  static constexpr int paragraphs = 2;                                // bursts after the opening
  static constexpr int first_fillers_min = 0, first_fillers_max = 1;  // boilerplate before the first burst
  static constexpr int fillers_min = 2, fillers_max = 5;              // ... before every later burst
  static constexpr int briefs_min = 3, briefs_max = 4;                // brief sentences in a burst about the parent
  static constexpr int other_briefs_min = 0, other_briefs_max = 1;    // ... about another company
  static constexpr double other_focus = 0.6;                          // a later paragraph is about another company
  // (the mention sentences also name the others, one at a time, in passing)
  static constexpr int closing_min = 2, closing_max = 4;  // boilerplate after the last burst
};

FilingsDocument make_document_v2(uint64_t seed, const std::string& split, int index) {
  using knobs = Version2;
  Rng rng(stream_key({kTagTrain, seed, 0xF11E, split == "train" ? 1u : 2u, uint64_t(index), 2}));
  const Kind& kind = kinds()[rng.below(int(kinds().size()))];
  FilingsDocument d;
  d.id = fmt::format("{}-{:03d}", split, index);
  d.kind = kind.name;
  const std::vector<std::string> names = draw_companies(rng);
  const std::string& parent = names[0];
  const auto pick = [&](const std::vector<std::string>& v) -> const std::string& {
    return v[rng.below(int(v.size()))];
  };
  const auto between = [&](int lo, int hi) { return lo + rng.below(hi - lo + 1); };
  Builder b(d, rng);
  b.sentence(kind.opening, parent, parent, parent);
  const int paragraphs = knobs::paragraphs;
  for (int p = 0; p < paragraphs; ++p) {
    // the first paragraph is about the parent; a later one may be about the first other company
    const std::string& focus = p > 0 && rng.uniform() < knobs::other_focus ? names[1] : parent;
    const int fillers = p == 0 ? between(knobs::first_fillers_min, knobs::first_fillers_max)
                               : between(knobs::fillers_min, knobs::fillers_max);
    for (int f = 0; f < fillers; ++f) b.sentence(pick(kind.filler), parent, focus, focus);
    const std::string& other = names[size_t(1 + rng.below(int(names.size()) - 1))];
    b.sentence(pick(kind.mention), parent, focus, other == focus ? parent : other);
    const int briefs = focus == parent ? between(knobs::briefs_min, knobs::briefs_max)
                                       : between(knobs::other_briefs_min, knobs::other_briefs_max);
    for (int s = 0; s < briefs; ++s) b.sentence(pick(kind.brief), parent, focus, focus);
  }
  const int closing = between(knobs::closing_min, knobs::closing_max);
  for (int f = 0; f < closing; ++f) b.sentence(pick(kind.filler), parent, parent, parent);
  return d;
}

int quantile(std::vector<int> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[size_t(q * double(v.size() - 1) + 0.5)];
}

}  // namespace

int word_symbol(const std::string& word) {
  uint32_t h = 2166136261u;  // FNV-1a
  for (unsigned char c : word) h = (h ^ c) * 16777619u;
  return int(h % kFilingsSymbols);
}

FilingsDocument filings_document_from_text(const std::string& id, const std::string& kind, const std::string& text,
                                           const std::vector<std::pair<std::string, std::string>>& companies) {
  FilingsDocument d;
  d.id = id;
  d.kind = kind;
  for (auto& w : split_words(text)) {
    if (w[0] != '@') {
      d.words.push_back(w), d.symbols.push_back(word_symbol(w)), d.marks.push_back(0);
      continue;
    }
    const auto c = std::find_if(companies.begin(), companies.end(), [&](auto& kv) { return kv.first == w; });
    if (c == companies.end()) throw DataError(fmt::format("document {}: {} names no company", id, w));
    auto it = std::find(d.companies.begin(), d.companies.end(), c->second);
    if (it == d.companies.end()) {
      if (int(d.companies.size()) == kFilingsSymbols)
        throw DataError(fmt::format("document {}: more than {} companies", id, kFilingsSymbols));
      d.companies.push_back(c->second), it = d.companies.end() - 1;
    }
    d.words.push_back(c->second), d.symbols.push_back(int(it - d.companies.begin())), d.marks.push_back(1);
  }
  return d;
}

std::vector<int> FilingsDocument::targets() const {
  std::vector<int> t(words.size(), -1);
  int last = -1;
  for (size_t i = 0; i < words.size(); ++i) {
    if (marks[i]) last = symbols[i];
    t[i] = last;
  }
  return t;
}

FilingsCorpus generate_filings(uint64_t seed, int n_train, int n_held_out, int version) {
  if (version < 1 || version > kFilingsCorpusVersion)
    throw ConfigError(
        fmt::format("filings corpus version {} does not exist (1 to {})", version, kFilingsCorpusVersion));
  const auto make = version == 1 ? make_document : make_document_v2;
  FilingsCorpus c;
  for (int i = 0; i < n_train; ++i) c.train.push_back(make(seed, "train", i));
  for (int i = 0; i < n_held_out; ++i) c.held_out.push_back(make(seed, "held_out", i));
  return c;
}

json filings_statistics(const std::vector<FilingsDocument>& docs, int far) {
  std::vector<int> lengths, mentions, companies;
  long queries = 0, far_queries = 0, first_right = 0, first_far_right = 0;
  for (auto& d : docs) {
    lengths.push_back(int(d.words.size()));
    int m = 0, last_at = -1, last = -1;
    for (size_t i = 0; i < d.words.size(); ++i) {
      if (d.marks[i]) ++m, last_at = int(i), last = d.symbols[i];
      if (last < 0) continue;
      ++queries;
      const bool is_far = int(i) - last_at > far;
      far_queries += is_far;
      first_right += last == 0;
      first_far_right += is_far && last == 0;
    }
    mentions.push_back(m);
    companies.push_back(int(d.companies.size()));
  }
  auto q3 = [](const std::vector<int>& v) { return json{quantile(v, 0.25), quantile(v, 0.5), quantile(v, 0.75)}; };
  return {{"documents", docs.size()},
          {"length_quartiles", q3(lengths)},
          {"mentions_quartiles", q3(mentions)},
          {"companies_quartiles", q3(companies)},
          {"queries", queries},
          {"far", far},
          {"far_queries", far_queries},
          {"far_share", queries ? double(far_queries) / double(queries) : 0.0},
          {"first_company_accuracy", queries ? double(first_right) / double(queries) : 0.0},
          {"first_company_far_accuracy", far_queries ? double(first_far_right) / double(far_queries) : 0.0}};
}

std::string filings_jsonl(const std::vector<FilingsDocument>& docs) {
  std::string out;
  for (auto& d : docs) {
    json marks = json::array();
    for (char m : d.marks) marks.push_back(int(m));
    out += json{{"id", d.id},           {"kind", d.kind}, {"words", d.words},
                {"symbols", d.symbols}, {"marks", marks}, {"companies", d.companies}}
               .dump() +
           "\n";
  }
  return out;
}

std::vector<FilingsDocument> read_filings_jsonl(const std::string& path) {
  std::vector<FilingsDocument> docs;
  std::istringstream in(read_file(path));
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (line.empty()) continue;
    try {
      const json j = parse_json(line);
      FilingsDocument d;
      d.id = j.at("id");
      d.kind = j.at("kind");
      d.words = j.at("words").get<std::vector<std::string>>();
      d.symbols = j.at("symbols").get<std::vector<int>>();
      for (int m : j.at("marks").get<std::vector<int>>()) d.marks.push_back(char(m != 0));
      d.companies = j.at("companies").get<std::vector<std::string>>();
      if (d.symbols.size() != d.words.size() || d.marks.size() != d.words.size())
        throw DataError(fmt::format("{} line {}: words, symbols and marks differ in length", path, n));
      for (size_t i = 0; i < d.words.size(); ++i)
        if (d.symbols[i] < 0 || d.symbols[i] >= kFilingsSymbols)
          throw DataError(fmt::format("{} line {}: symbol {} out of [0, {})", path, n, d.symbols[i], kFilingsSymbols));
      docs.push_back(std::move(d));
    } catch (const json::exception& e) {
      throw DataError(fmt::format("{} line {} is not a filings document ({})", path, n, e.what()));
    }
  }
  return docs;
}

std::string show_filings_document(const FilingsDocument& d, int width) {
  std::string out = fmt::format("{} ({}): {} tokens, {} companies: ", d.id, d.kind, d.words.size(), d.companies.size());
  for (size_t k = 0; k < d.companies.size(); ++k) out += fmt::format("{}#{} {}", k ? ", " : "", k, d.companies[k]);
  out += "\n\n";
  int col = 0;
  for (size_t i = 0; i < d.words.size(); ++i) {
    const std::string w = d.marks[i] ? fmt::format("[{} #{}]", d.words[i], d.symbols[i]) : d.words[i];
    if (col + int(w.size()) + 1 > width) out += "\n", col = 0;
    out += (col ? " " : "") + w;
    col += int(w.size()) + (col ? 1 : 0);
  }
  return out + "\n";
}

}  // namespace pe
