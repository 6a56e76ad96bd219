// What the doctor's export and twin rows share (harness/doctor.cpp, harness/doctor_invariants.cpp): a checkpoint
// exported into a temporary folder, and the PyTorch twin's logits on that export.
#pragma once
#include <string>
#include <vector>

#include "core/files.h"

namespace pe {

// The export (model.safetensors, config.json) of a checkpoint in a temporary folder with room for other files;
// every file registered for a signal's cleanup and removed with the folder when this goes out of scope.
class ScratchExport {
 public:
  ScratchExport(const std::string& checkpoint, const std::vector<std::string>& other_files);
  ~ScratchExport();
  ScratchExport(const ScratchExport&) = delete;
  ScratchExport& operator=(const ScratchExport&) = delete;
  const std::string& dir() const { return scratch_.path(); }

 private:
  ScratchPath scratch_;
  std::vector<int> slots_;
};

// Why the twin cannot be run here ("" when it can): no python3 with torch, or no twin beside this build.
std::string twin_unavailable();
// The twin's logits (python/twin_logits.py) for B sequences of T tokens at positions p0 .. p0+T-1 on the export
// of `checkpoint`: [B, T, vocab] for a block stack, [B, classes] for a cue head. Error naming what failed.
std::vector<float> twin_logits(const std::string& checkpoint, const std::vector<int>& tokens, int B, int T, int p0);

}  // namespace pe
