// How this pe-bench was built. Results and checkpoints record what can change their bits (as
// "build"): the compiler, the instruction-set target, the flags and the numerics version of the
// code — never the checkout's commit, so rerunning the same numerics from a later commit rewrites
// the committed outputs byte for byte (`git status` stays clean). The commit is in `pe-bench
// --version`. Nothing here depends on the host, the thread count, the time or a path.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace pe {

// The version of the arithmetic: raised by a change that moves any number pe-bench writes (the
// golden tests fail until the committed outputs are remade, and the commit that remakes them raises
// this too), never by a change that leaves every number where it was.
inline constexpr int kNumericsVersion = 1;

struct BuildInfo {
  std::string commit;    // HEAD of the source tree (+ "-dirty" if files outside results/ differ), or "unknown"
  std::string compiler;  // e.g. "GCC 12.2.0"
  std::string target;    // "x86-64-v3" (the default: the same bits on every x86-64 CPU), "native", or an arch
  std::string flags;     // the optimisation flags that shape the arithmetic
  bool native() const { return target == "native"; }
};

const BuildInfo& build_info();
// The source tree this binary was built from (its python/ holds the PyTorch twin `pe-bench doctor --twin` runs).
std::string build_source_tree();
nlohmann::json build_info_json();  // {"compiler", "target", "flags", "numerics"}: no commit
// For a Markdown table of results carrying `build`: a warning paragraph when they come from a native
// build (their numbers depend on the CPU that built pe-bench), "" otherwise.
std::string native_build_note(const nlohmann::json& results);

}  // namespace pe
