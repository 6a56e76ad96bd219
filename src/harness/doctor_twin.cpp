// The doctor's export folder and the PyTorch twin's logits (harness/doctor_twin.h).
#include "harness/doctor_twin.h"

#include <fmt/format.h>

#include <cstring>

#include "core/build_info.h"
#include "core/errors.h"
#include "core/process.h"
#include "harness/interop.h"

namespace pe {

namespace {

constexpr const char* kPython = "/usr/bin/python3";  // Debian's, with python3-torch (scripts/install-deps.sh)

std::string twin_script() { return build_source_tree() + "/python/twin_logits.py"; }

}  // namespace

ScratchExport::ScratchExport(const std::string& checkpoint, const std::vector<std::string>& other_files)
    : scratch_("pe-bench-doctor") {
  make_dirs(dir());
  // its files, registered after the folder, so that a signal's cleanup removes them before it (core/files.h)
  std::vector<std::string> files{"model.safetensors", "config.json"};
  files.insert(files.end(), other_files.begin(), other_files.end());
  for (auto& f : files) slots_.push_back(register_temp(dir() + "/" + f));
  try {  // a constructor that throws runs no destructor: the slots are given back here
    const ExportedModel e = export_checkpoint(checkpoint);
    write_file_atomic(dir() + "/model.safetensors", e.safetensors);
    write_file_atomic(dir() + "/config.json", e.config);
  } catch (...) {
    for (int i : slots_) unregister_temp(i);
    throw;
  }
}

ScratchExport::~ScratchExport() {
  for (int i : slots_) unregister_temp(i);
}

std::string twin_unavailable() {
  static const std::string why = [] {
    if (!file_exists(twin_script()))
      return fmt::format("the twin is not beside this build ({} is missing)", twin_script());
    const ScratchPath log("pe-bench-twin-probe.log");
    if (run_program({kPython, "-c", "import torch"}, log.path()) != 0)
      return fmt::format("{} cannot import torch (apt-get install python3-torch, or scripts/install-deps.sh)", kPython);
    return std::string();
  }();
  return why;
}

std::vector<float> twin_logits(const std::string& checkpoint, const std::vector<int>& tokens, int B, int T, int p0) {
  const ScratchExport e(checkpoint, {"tokens.json", "logits.f32", "twin.log"});
  nlohmann::json seqs = nlohmann::json::array();
  for (int i = 0; i < B; ++i)
    seqs.push_back(std::vector<int>(tokens.begin() + long(size_t(i) * T), tokens.begin() + long(size_t(i + 1) * T)));
  write_file_atomic(e.dir() + "/tokens.json", nlohmann::json{{"tokens", seqs}, {"p0", p0}}.dump());
  const std::string log = e.dir() + "/twin.log", out = e.dir() + "/logits.f32";
  const int rc = run_program({kPython, twin_script(), e.dir(), e.dir() + "/tokens.json", out}, log);
  if (rc != 0) {
    std::string said = file_exists(log) ? read_file(log) : "";
    while (!said.empty() && (said.back() == '\n' || said.back() == '\r')) said.pop_back();
    const size_t last = said.rfind('\n');
    throw Error(fmt::format("the twin ({}) ended with {}: {}", twin_script(), rc,
                            last == std::string::npos ? said : said.substr(last + 1)));
  }
  const std::string bytes = read_file(out);
  std::vector<float> logits(bytes.size() / sizeof(float));
  std::memcpy(logits.data(), bytes.data(), logits.size() * sizeof(float));
  return logits;
}

}  // namespace pe
