// pe-bench doctor (harness/doctor.h): on a correct model of every scheme, block stack and cue head, causal
// and bidirectional, every expected invariant holds and each expectation is the one the scheme implies;
// and a reading with a coordinate fault in it (the failure lab's kind: positions over storage where the
// content's were meant, documents dropped, a later token read, a cache restarting at position 0) fails the
// invariant that names it.
#include <doctest/doctest.h>

#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "harness/doctor.h"
#include "harness/faults.h"
#include "models/block_stack.h"
#include "models/cue_head.h"
#include "schemes/scheme.h"

using namespace pe;

namespace doctor_test {

std::unique_ptr<DoctorModel> stack(const std::string& scheme, bool bidirectional = false) {
  BlockStackConfig cfg;
  cfg.vocab = 11, cfg.d_model = 16, cfg.n_heads = 2, cfg.n_layers = 2;
  cfg.scheme.name = scheme;
  cfg.scheme.train_length = 32;
  cfg.scheme.bidirectional = bidirectional;
  if (auto settings = scheme_info(scheme).check_settings) cfg.scheme.settings = settings(cfg.n_layers);
  auto m = std::make_unique<BlockStack<float>>(cfg);
  m->init(3);
  return doctor_block_stack(std::move(m), 32);
}

std::unique_ptr<DoctorModel> head(const std::string& scheme, bool bidirectional = false) {
  CueModelConfig cfg;
  cfg.task.alphabet = 4;
  cfg.d_model = 8;
  cfg.scheme.name = scheme;
  cfg.scheme.train_length = 24;
  cfg.scheme.bidirectional = bidirectional;
  auto h = std::make_unique<CueHead<float>>(cfg);
  h->init(5);
  return doctor_cue_head(std::move(h), 24, 2 * cfg.task.alphabet, cfg.task.query_token_id());
}

std::map<std::string, DoctorRow> rows_of(DoctorModel& m, int length = 0) {
  DoctorSettings s;
  s.length = length;
  std::map<std::string, DoctorRow> out;
  for (auto& r : run_doctor(m, s)) out[r.name] = r;
  return out;
}

// A reading that passes every call to the correct model but one, which a fault changes (the failure lab's
// FaultyReading, here with the model's cache as it is).
class Faulty : public FaultyReading {
 public:
  using FaultyReading::FaultyReading;
  bool decodes() const override { return in_->decodes(); }
  std::vector<float> decode(const std::vector<int>& t, const std::vector<int>& c) override { return in_->decode(t, c); }
};

// Positions counted over storage whatever the batch says (the pad-left fault; packed positions never reset).
struct StoragePositions final : Faulty {
  using Faulty::Faulty;
  std::vector<float> logits(const DoctorBatch& b) override {
    DoctorBatch c = b;
    c.pos.clear();
    return in_->logits(c);
  }
};
// Documents dropped: packed documents see each other, PAD keys are seen.
struct NoIsolation final : Faulty {
  using Faulty::Faulty;
  std::vector<float> logits(const DoctorBatch& b) override {
    DoctorBatch c = b;
    for (auto& d : c.doc) d = 0;
    return in_->logits(c);
  }
};
// Each row reads the token after it (an off-by-one in the inputs of a causal model: a future leak).
struct ReadsNextToken final : Faulty {
  using Faulty::Faulty;
  std::vector<float> logits(const DoctorBatch& b) override {
    DoctorBatch c = b;
    for (int i = 0; i < b.B; ++i)
      for (int t = 0; t + 1 < b.T; ++t) c.tokens[size_t(i) * b.T + t] = b.tokens[size_t(i) * b.T + t + 1];
    return in_->logits(c);
  }
};
// A reading that gives NaN at one logit (a NaN compared with max would pass as 0).
struct NaNLogit final : Faulty {
  using Faulty::Faulty;
  std::vector<float> logits(const DoctorBatch& b) override {
    std::vector<float> l = in_->logits(b);
    l.back() = std::nanf("");
    return l;
  }
};
// Every chunk decoded from a fresh cache at position 0 (decode offsets from a local arange(q_len)).
struct LocalArange final : Faulty {
  using Faulty::Faulty;
  std::vector<float> decode(const std::vector<int>& t, const std::vector<int>& chunks) override {
    std::vector<float> out;
    size_t at = 0;
    for (int n : chunks) {
      const std::vector<int> piece(t.begin() + long(at), t.begin() + long(at + n));
      const std::vector<int> whole{n};
      const std::vector<float> l = in_->decode(piece, whole);
      out.insert(out.end(), l.begin(), l.end());
      at += size_t(n);
    }
    return out;
  }
};

}  // namespace doctor_test

TEST_CASE("doctor: every expected invariant holds on a correct block stack of every scheme, causal and encoder") {
  using namespace doctor_test;
  for (auto& info : scheme_list())
    for (bool bidirectional : {false, true}) {
      INFO(info.name << (bidirectional ? " bidirectional" : " causal"));
      auto m = stack(info.name, bidirectional);
      const auto rows = rows_of(*m);
      for (auto& [name, r] : rows) {
        INFO(name << ": " << r.value << " (tolerance " << r.tolerance << ") " << r.detail);
        CHECK(r.verdict != "FAIL");
      }
      CHECK(rows.at("decode").expect == (bidirectional ? "n/a" : "holds"));
      CHECK(rows.at("future").expect == (bidirectional ? "n/a" : "holds"));
      CHECK(rows.at("later-keys").expect == (bidirectional ? "moves" : "holds"));
      for (const char* n : {"packed-reset", "packed-global", "pad-left-content", "pad-left-storage",
                            "pad-right-content", "pad-right-storage", "batch", "range"})
        CHECK(rows.at(n).expect == "holds");
      // a relative scheme reads the same when every position moves; an absolute one drifts, and so does fire
      // (a query past its threshold divides by psi of its own position: the doctor's shift passes it)
      const bool relative =
          info.name != "sinusoidal" && info.name != "learned" && info.name != "tupe" && info.name != "fire";
      CHECK(rows.at("shift").expect == (relative ? "holds" : "moves"));
      // xpos turns and scales: its transform composes, and a query's and key's cancel at one position, but its
      // angles are not a frequency plan's reading (PositionGeometry Other)
      const bool turns = info.name == "rope" || info.name == "hybrid";
      CHECK(rows.at("qk-compose").expect == (turns || info.name == "xpos" ? "holds" : "n/a"));
      CHECK(rows.at("qk-orthogonal").expect == (turns || info.name == "xpos" ? "holds" : "n/a"));
      CHECK(rows.at("angles").expect == (turns ? "holds" : "n/a"));
      CHECK(rows.at("code-offset").expect == (info.name == "sinusoidal" ? "holds" : "n/a"));
      CHECK(rows.at("code-cross").expect == (info.name == "sinusoidal" ? "moves" : "n/a"));
    }
}

TEST_CASE("doctor: a cue head of every one-layer scheme passes, and takes no coordinates or cache") {
  using namespace doctor_test;
  for (auto& info : scheme_list()) {
    if (info.min_layers > 1) continue;
    for (bool bidirectional : {false, true}) {
      INFO(info.name << (bidirectional ? " bidirectional" : " causal"));
      auto m = head(info.name, bidirectional);
      const auto rows = rows_of(*m);
      for (auto& [name, r] : rows) {
        INFO(name << ": " << r.value << " (tolerance " << r.tolerance << ") " << r.detail);
        CHECK(r.verdict != "FAIL");
      }
      CHECK(rows.at("future").expect == (bidirectional ? "n/a" : "holds"));
      CHECK(rows.at("later-keys").expect == (bidirectional ? "moves" : "holds"));
      CHECK(rows.at("decode").verdict == "n/a");
      CHECK(rows.at("packed-reset").verdict == "n/a");
      CHECK(rows.at("batch").verdict == "ok");
    }
  }
}

TEST_CASE("doctor: a learned table read past its rows fails the range invariant") {
  using namespace doctor_test;
  auto m = stack("learned");
  CHECK(m->last_position() == 31);
  CHECK(rows_of(*m, 32).at("range").verdict == "ok");
  const DoctorRow r = rows_of(*m, 64).at("range");
  CHECK(r.verdict == "FAIL");
  CHECK(r.value == doctest::Approx(63.0 / 31));
}

TEST_CASE("doctor: each coordinate fault fails the invariant that names it") {
  using namespace doctor_test;
  for (const std::string scheme : {"rope", "alibi", "t5", "sinusoidal", "learned"}) {
    INFO(scheme);
    {  // positions over storage move every position of a document by its start: only an absolute scheme sees it
      StoragePositions f(stack(scheme));
      const auto rows = rows_of(f);
      const bool absolute = !f.scheme().offsets_only();
      CHECK(rows.at("packed-reset").verdict == (absolute ? "FAIL" : "ok"));
      CHECK(rows.at("pad-left-content").verdict == (absolute ? "FAIL" : "ok"));
      CHECK(rows.at("pad-left-storage").verdict == "ok");
      CHECK(rows.at("batch").verdict == "ok");
    }
    {
      NoIsolation f(stack(scheme));
      const auto rows = rows_of(f);
      CHECK(rows.at("packed-reset").verdict == "FAIL");
      CHECK(rows.at("packed-global").verdict == "FAIL");
      CHECK(rows.at("pad-left-content").verdict == "FAIL");
    }
    {
      NaNLogit f(stack(scheme));
      const auto rows = rows_of(f);
      for (const char* n : {"decode", "future", "packed-reset", "pad-left-content", "shift", "batch"}) {
        INFO(n);
        CHECK(rows.at(n).verdict == "FAIL");
      }
    }
    {
      ReadsNextToken f(stack(scheme));
      CHECK(rows_of(f).at("future").verdict == "FAIL");
    }
    {
      LocalArange f(stack(scheme));
      const DoctorRow r = rows_of(f).at("decode");
      CHECK(r.verdict == "FAIL");
      CHECK(r.value > 10 * r.tolerance);
    }
  }
}
