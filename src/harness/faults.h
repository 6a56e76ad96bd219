// The failure lab (docs/failures.md): the positional bugs that keep every tensor shape valid while they
// break the coordinate contract, each one entry of a table (harness/faults.cpp) that says what it is, where
// it is injected and which invariant of `pe-bench doctor` should catch it; each task says which faults its
// committed models are read with, on which schemes (TaskReader::fault_hosting, harness/damage_probe.h). A fault is
// applied to a trained model as it is read: a reading that changes the coordinates a batch travels with
// (FaultyReading), or a wrapper of the model's scheme that changes one of its hooks (schemes/forwarding.h). The lab
// (harness/failure_lab.cpp) measures each fault's damage by length against the correct model, paired over
// seeds, and runs the doctor on the faulty model.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "harness/damage_probe.h"
#include "harness/doctor.h"

namespace pe {

// A reading that passes every call to the model it wraps except what its fault changes. It has no cache
// path unless it says so: a fault in the coordinates a full forward is given is not one the cache can be
// handed (the decode invariant is then n/a for it).
class FaultyReading : public DoctorModel {
 public:
  explicit FaultyReading(std::unique_ptr<DoctorModel> inner) : in_(std::move(inner)) {}
  std::string kind() const override { return in_->kind(); }
  Scheme<float>& scheme() override { return in_->scheme(); }
  int train_length() const override { return in_->train_length(); }
  int symbols() const override { return in_->symbols(); }
  int query_token() const override { return in_->query_token(); }
  bool every_row() const override { return in_->every_row(); }
  int width() const override { return in_->width(); }
  bool takes_coordinates() const override { return in_->takes_coordinates(); }
  bool decodes() const override { return false; }
  bool bidirectional() override { return in_->bidirectional(); }
  int last_position() const override { return in_->last_position(); }
  std::vector<float> logits(const DoctorBatch& b) override { return in_->logits(b); }
  double later_key_share(const DoctorBatch& b) override { return in_->later_key_share(b); }
  std::vector<float> embedding_code(const std::vector<int>& p) override { return in_->embedding_code(p); }
  void wrap_scheme(const SchemeWrap& f) override { in_->wrap_scheme(f); }

 protected:
  std::unique_ptr<DoctorModel> in_;
};

struct FaultInfo {
  int number = 0;         // its number in the list of issue 50
  std::string name;       // the lab's name for it (pe-bench failures --only)
  std::string words;      // the engineering notes' description
  std::string injected;   // where it is injected
  std::string caught_by;  // the doctor's invariant expected to catch it on the first of `schemes` ("": none)
  std::string fix;        // what a correct implementation does
  std::function<std::unique_ptr<DoctorModel>(std::unique_ptr<DoctorModel>)> apply;
  // The correct reading the fault is measured against, and the doctor reads the correct model in: a fault that
  // lives inside a context-extension map's reading is compared with the map read correctly. Empty: the model
  // as trained.
  std::string correct = "";
  std::function<std::unique_ptr<DoctorModel>(std::unique_ptr<DoctorModel>)> read_correctly = nullptr;
  // false: a break that leaves every logit as it was up to float rounding (what the kernels are handed is wrong,
  // what they return is not): the lab measures no damage, and an invariant that reads the kernels' inputs catches it
  bool changes_logits = true;
};

// Every fault, in the order of the list.
const std::vector<FaultInfo>& fault_list();
// UsageError naming the faults for an unknown name.
const FaultInfo& find_fault(const std::string& name);

}  // namespace pe
