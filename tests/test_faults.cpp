// The failure lab's faults (harness/faults.h): the registry names known tasks and invariants; a scheme
// wrapped without a change reads the same bits as the scheme (schemes/forwarding.h), for every scheme; and
// each fault, applied to the committed trained models of the schemes it names (results/<task>/runs), changes
// their reading (and leaves a control's as it was) and fails the doctor's invariant it says catches it while
// that invariant holds on the correct model.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/errors.h"
#include "harness/doctor.h"
#include "harness/doctor_twin.h"
#include "harness/faults.h"
#include "harness/task.h"
#include "models/block_stack.h"
#include "models/block_stack_decoder.h"
#include "schemes/forwarding.h"
#include "tasks/charlm/checkpoint.h"

using namespace pe;

namespace faults_test {

std::unique_ptr<BlockStack<float>> random_stack(const std::string& scheme) {
  BlockStackConfig cfg;
  cfg.vocab = 13, cfg.d_model = 16, cfg.n_heads = 2, cfg.n_layers = 2;
  cfg.scheme.name = scheme;
  cfg.scheme.train_length = 64;
  if (auto settings = scheme_info(scheme).check_settings) cfg.scheme.settings = settings(cfg.n_layers);
  auto m = std::make_unique<BlockStack<float>>(cfg);
  m->init(11);
  return m;
}

DoctorBatch plain_batch(int B, int T, int vocab) {
  DoctorBatch b;
  b.B = B, b.T = T;
  for (int i = 0; i < B * T; ++i) b.tokens.push_back((i * 7 + i / 5) % vocab);
  return b;
}

// The doctor's failing rows; with the twin row when the fault expects it (its checkpoint exported and read by the
// PyTorch twin).
std::set<std::string> failures(DoctorModel& m, int length, const std::string& checkpoint = "", bool twin = false) {
  DoctorSettings s;
  s.length = length, s.checkpoint = checkpoint, s.twin = twin;
  std::set<std::string> out;
  for (auto& r : run_doctor_invariants(m, s))
    if (r.verdict == "FAIL") out.insert(r.name);
  return out;
}

}  // namespace faults_test

TEST_CASE(
    "faults: the registry names known invariants, each fault once; each task's hosting known faults and schemes") {
  std::set<std::string> names, invariants, hosted;
  for (auto& [n, what] : doctor_invariants()) invariants.insert(n);
  for (auto& f : fault_list()) {
    INFO(f.name);
    CHECK(names.insert(f.name).second);
    CHECK(f.number >= 1);
    CHECK(f.number <= 14);
    if (!f.caught_by.empty()) CHECK(invariants.count(f.caught_by) == 1);
    CHECK(&find_fault(f.name) == &f);
  }
  CHECK_THROWS_AS(find_fault("no-such-fault"), UsageError);
  for (const Task* t : task_list()) {
    const FaultHosting h = t->reader().fault_hosting();
    if (h.faults.empty()) continue;
    INFO(t->name());
    CHECK(!h.runs.empty());
    CHECK(!h.quick_runs.empty());
    for (auto& host : h.faults) {
      INFO(host.fault);
      CHECK(names.count(host.fault) == 1);
      CHECK(!host.schemes.empty());
      for (auto& s : host.schemes) CHECK_NOTHROW(scheme_info(s));
      for (auto& s : host.controls) CHECK_NOTHROW(scheme_info(s));
      hosted.insert(host.fault);
    }
  }
  CHECK(hosted == names);  // every fault is read somewhere
}

TEST_CASE("faults: a scheme wrapped with no change reads the same bits, for every scheme") {
  using namespace faults_test;
  for (auto& info : scheme_list()) {
    INFO(info.name);
    auto a = random_stack(info.name), b = random_stack(info.name);
    b->wrap_scheme([](std::unique_ptr<Scheme<float>> s) {
      return std::unique_ptr<Scheme<float>>(std::make_unique<ForwardingScheme<float>>(std::move(s)));
    });
    auto ma = doctor_block_stack(std::move(a), 64), mb = doctor_block_stack(std::move(b), 64);
    const DoctorBatch batch = plain_batch(3, 40, 13);
    CHECK(ma->logits(batch) == mb->logits(batch));
  }
}

TEST_CASE("faults: each fault changes the reading of the schemes it names and fails the invariant it names") {
  using namespace faults_test;
  for (const Task* t : task_list()) {
    const FaultHosting h = t->reader().fault_hosting();
    for (auto& host : h.faults) {
      const FaultInfo& f = find_fault(host.fault);
      std::vector<std::string> read = host.schemes;
      read.insert(read.end(), host.controls.begin(), host.controls.end());
      for (auto& scheme : read) {
        const bool control = std::count(host.controls.begin(), host.controls.end(), scheme) > 0;
        INFO(f.name);
        INFO(scheme);
        INFO(control);
        const std::string path = "results/" + h.runs + "/runs/" + t->name() + "/" + scheme + "/seed0/checkpoint.json";
        const TaskReader& reader = t->reader();
        auto right = reader.doctor_model(path), broken = f.apply(reader.doctor_model(path));
        if (f.read_correctly) right = f.read_correctly(std::move(right));  // the reading the fault lives in
        // a reading the fault changes: at the length the doctor reads it (past 256 for bfloat16, past 2048 for
        // float16, past the training length for a reset or a clamp), else the training length; a learned table
        // cannot be read past its rows, and its damage is then not compared
        const int train = right->train_length();
        const int T = host.doctor_length > 0 ? host.doctor_length : train;
        const DoctorBatch batch = plain_batch(2, T, right->symbols());
        if (right->last_position() < 0 || T - 1 <= right->last_position()) {
          const std::vector<float> a = right->logits(batch);
          std::vector<float> b;
          double most = 0, scale = 1;
          try {
            b = broken->logits(batch);
            for (size_t i = 0; i < a.size(); ++i)
              most = std::max(most, double(std::abs(a[i] - b[i]))), scale = std::max(scale, double(std::abs(a[i])));
          } catch (const UsageError&) {  // the faulty reading refused (a position pushed past a learned table)
            most = std::numeric_limits<double>::infinity();
          }
          INFO(most);
          // a control, and a fault that changes no logit (a finite bias where the mask was: exp(-10000) is 0 in
          // float32), read as the correct model does, up to float rounding
          CHECK((most > 1e-5 * scale) != (control || !f.changes_logits));
        }
        if (f.caught_by.empty() || scheme != host.schemes.front()) continue;  // the invariant named is the first's
        const bool twin = f.caught_by == "twin";
        if (twin && !twin_unavailable().empty()) {
          MESSAGE("the twin row is not checked here: " << twin_unavailable());
          continue;
        }
        const int at = host.doctor_length > 0 ? host.doctor_length : train;
        const auto on_right = failures(*right, train, path, twin), on_broken = failures(*broken, at, path, twin);
        CHECK(on_broken.count(f.caught_by) == 1);
        CHECK(on_right.count(f.caught_by) == 0);
      }
    }
  }
}

TEST_CASE("faults: a wrapper refuses a scheme whose hooks it cannot rewrite consistently") {
  using namespace faults_test;
  // positions that wrap (a reset every 16) would put a row's keys out of order for ALiBi's score hook
  CHECK_THROWS_AS(find_fault("local-arange").apply(doctor_block_stack(random_stack("alibi"), 64)), UsageError);
  // a shift keeps them in order: ALiBi's row scores read the shifted positions
  CHECK_NOTHROW(find_fault("bos-off-by-one").apply(doctor_block_stack(random_stack("alibi"), 64)));
  // offsets mirrored in the score hooks only: a scheme that turns queries and keys is refused
  CHECK_THROWS_AS(find_fault("offset-sign").apply(doctor_block_stack(random_stack("rope"), 64)), UsageError);
  // a re-planned rotation needs a scheme that turns queries and keys by a frequency plan alone
  CHECK_THROWS_AS(find_fault("dynamic-cached").apply(doctor_block_stack(random_stack("alibi"), 64)), UsageError);
  CHECK_THROWS_AS(find_fault("cache-other-map").apply(doctor_block_stack(random_stack("t5"), 64)), UsageError);
  // a finite bias hands the score hooks later keys: a scheme whose tables end at the causal ages is refused
  CHECK_THROWS_AS(find_fault("finite-mask").apply(doctor_block_stack(random_stack("txl"), 64)), UsageError);
  CHECK_THROWS_AS(find_fault("finite-mask").apply(doctor_block_stack(random_stack("shaw"), 64)), UsageError);
}

TEST_CASE("faults: finite-mask leaves the logits as the mask does and gives every later key a finite score") {
  using namespace faults_test;
  for (const char* scheme : {"rope", "alibi", "t5", "none"}) {
    INFO(scheme);
    auto right = doctor_block_stack(random_stack(scheme), 64);
    auto broken = find_fault("finite-mask").apply(doctor_block_stack(random_stack(scheme), 64));
    const DoctorBatch batch = plain_batch(2, 48, right->symbols());
    const std::vector<float> a = right->logits(batch), b = broken->logits(batch);
    double most = 0;
    for (size_t i = 0; i < a.size(); ++i) most = std::max(most, double(std::abs(a[i] - b[i])));
    CHECK(most < 1e-5);
    CHECK(!broken->bidirectional());  // the model still declares itself causal
    CHECK(right->later_key_share(batch) == 0.0);
    CHECK(broken->later_key_share(batch) == 1.0);  // every later key scored, finitely
  }
}

TEST_CASE("faults: dynamic-cached read in a full forward is the decoder's dynamic NTK one token at a time") {
  using namespace faults_test;
  // the committed RoPE char LM (trained at 128) read to 320, where the cached keys' bases have drifted
  const std::string path = "results/charlm-quick/runs/charlm/rope/seed0/checkpoint.json";
  const int T = 320, train = 128;
  LoadedCharLM cp = load_charlm_checkpoint(path);
  const int V = cp.model->config().vocab;
  const DoctorBatch batch = plain_batch(1, T, V);
  BlockStackDecoder<float> dec(*cp.model, T, parse_map("dynamic"), train, 16 * train);
  std::vector<float> decoded;
  for (int t = 0; t < T; ++t) {
    const float* l = dec.step(batch.tokens[size_t(t)]);
    decoded.insert(decoded.end(), l, l + V);
  }
  const TaskReader& reader = find_task("charlm").reader();
  const std::vector<float> full = find_fault("dynamic-cached").apply(reader.doctor_model(path))->logits(batch);
  const std::vector<float> whole =
      find_fault("dynamic-cached").read_correctly(reader.doctor_model(path))->logits(batch);
  REQUIRE(full.size() == decoded.size());
  double gap = 0, scale = 0, moved = 0;
  for (size_t i = 0; i < full.size(); ++i) {
    gap = std::max(gap, double(std::abs(full[i] - decoded[i])));
    scale = std::max(scale, double(std::abs(decoded[i])));
    moved = std::max(moved, double(std::abs(whole[i] - decoded[i])));
  }
  INFO(gap << " of " << scale << "; the map read whole differs by " << moved);
  CHECK(gap <= 1e-4 * scale);   // float rounding: the same reading
  CHECK(moved > 1e-2 * scale);  // and it is not the map read whole
  // a window no longer than the original length reads plain RoPE either way: the fault and the map read whole agree
  const DoctorBatch inside_batch = plain_batch(1, train, V);
  const std::vector<float>
      a = find_fault("dynamic-cached").apply(reader.doctor_model(path))->logits(inside_batch),
      b = find_fault("dynamic-cached").read_correctly(reader.doctor_model(path))->logits(inside_batch);
  double inside = 0;
  for (size_t i = 0; i < a.size(); ++i) inside = std::max(inside, double(std::abs(a[i] - b[i])));
  CHECK(inside <= 1e-4 * scale);
}
