// How this pe-bench was built: the commit, the compiler and the instruction-set target. Results and
// checkpoints record it (as "build"), so a number can be traced to the code and build that made it.
// Nothing here depends on the host, the thread count, the time or a path.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace pe {

struct BuildInfo {
  std::string commit;    // HEAD of the source tree (+ "-dirty" if files outside results/ differ), or "unknown"
  std::string compiler;  // e.g. "GCC 12.2.0"
  std::string target;    // "x86-64-v3" (the default: the same bits on every x86-64 CPU), "native", or an arch
  std::string flags;     // the optimisation flags that shape the arithmetic
  bool native() const { return target == "native"; }
};

const BuildInfo& build_info();
nlohmann::json build_info_json();  // {"commit", "compiler", "target", "flags"}
// For a Markdown table of results carrying `build`: a warning paragraph when they come from a native
// build (their numbers depend on the CPU that built pe-bench), "" otherwise.
std::string native_build_note(const nlohmann::json& results);

}  // namespace pe
