// What a task gives the failure lab (harness/faults.h): its measure of the damage a reading does
// (TaskReader::damage_probe) and the faults its committed models are read with (TaskReader::fault_hosting).
#pragma once
#include <string>
#include <vector>

#include "harness/doctor.h"

namespace pe {

// A task's measure of the damage a reading does: one number for a model read at one length, on test items
// fixed by the probe (the same for every model and fault it reads).
class DamageProbe {
 public:
  virtual ~DamageProbe() = default;
  virtual std::string metric() const = 0;  // what the number is ("whole-passkey accuracy")
  virtual bool higher_is_better() const { return true; }
  virtual std::vector<int> lengths() const = 0;  // the lengths the lab reads this task at by default
  // The metric of `model` read at `length`; NaN where the model cannot be read there (a learned table's
  // missing rows).
  virtual double measure(DoctorModel& model, int length) = 0;
};

// Where the failure lab reads a fault on a task's committed models (TaskReader::fault_hosting).
struct FaultHost {
  std::string fault;                  // the fault's name (harness/faults.cpp)
  std::vector<std::string> schemes;   // where it bites; the doctor's expected invariant is the first one's
  std::vector<std::string> controls;  // where it should change nothing (a relative scheme under a shift)
  int doctor_length = 0;              // the length the doctor reads the faulty model at (0: its training length)
};
struct FaultHosting {
  std::string runs;        // the experiment's folder under the results directory: <runs>/runs/<task>/<scheme>/seed<k>/
  std::string quick_runs;  // the folder the quick variant reads (make failures-quick)
  std::vector<FaultHost> faults;
};

}  // namespace pe
