// `pe-bench doctor`: the invariants on a model (harness/doctor_invariants.cpp), the export round trip on its
// file, and the rows as a table and as JSON.
#include "harness/doctor.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/files.h"
#include "harness/doctor_twin.h"
#include "harness/interop.h"

namespace pe {

namespace {

// Export then import (harness/interop.h) through a temporary folder: the bytes that differ from the file.
DoctorRow export_row(const std::string& checkpoint) {
  DoctorRow r{"export", "export then import gives the checkpoint's bytes back", "holds", 0, 0, "ok", ""};
  const ScratchExport e(checkpoint, {"checkpoint.json"});
  const std::string& dir = e.dir();
  import_checkpoint(dir, dir + "/checkpoint.json");
  const std::string before = read_file(checkpoint), after = read_file(dir + "/checkpoint.json");
  size_t differ = before.size() > after.size() ? before.size() - after.size() : after.size() - before.size();
  for (size_t i = 0; i < std::min(before.size(), after.size()); ++i) differ += before[i] != after[i];
  r.value = double(differ);
  r.detail = fmt::format("{} bytes; {} differ after the round trip", before.size(), differ);
  if (differ > 0) r.verdict = "FAIL";
  return r;
}

std::string number(double v) { return v == 0 ? "0" : fmt::format("{:.3g}", v); }

}  // namespace

std::vector<DoctorRow> run_doctor(DoctorModel& model, const DoctorSettings& settings) {
  std::vector<DoctorRow> rows = run_doctor_invariants(model, settings);
  if (!settings.checkpoint.empty()) rows.push_back(export_row(settings.checkpoint));
  return rows;
}

std::string doctor_table(const std::vector<DoctorRow>& rows) {
  std::string out = fmt::format("{:<18} {:<6} {:>10} {:>10} {:<5}  {}\n", "invariant", "expect", "measured",
                                "tolerance", "", "what was read");
  for (auto& r : rows) {
    const bool na = r.verdict == "n/a";
    out += fmt::format("{:<18} {:<6} {:>10} {:>10} {:<5}  {}\n", r.name, r.expect, na ? "-" : number(r.value),
                       na ? "-" : number(r.tolerance), r.verdict, r.detail);
  }
  return out;
}

nlohmann::json doctor_json(const std::vector<DoctorRow>& rows) {
  nlohmann::json list = nlohmann::json::array();
  int failed = 0;
  for (auto& r : rows) {
    nlohmann::json j = {{"invariant", r.name},
                        {"checks", r.checks},
                        {"expect", r.expect},
                        {"verdict", r.verdict},
                        {"detail", r.detail}};
    if (r.verdict != "n/a") j["value"] = r.value, j["tolerance"] = r.tolerance;
    list.push_back(j);
    failed += r.verdict == "FAIL";
  }
  return {{"invariants", list}, {"failed", failed}};
}

}  // namespace pe
