#include "core/build_info.h"

#include "pebench_commit.h"  // generated at build time (cmake/build_info.cmake)

#ifndef PEBENCH_TARGET_NAME
#define PEBENCH_TARGET_NAME "unknown"
#endif
#ifndef PEBENCH_FLAGS
#define PEBENCH_FLAGS ""
#endif

namespace pe {

std::string build_source_tree() { return PEBENCH_SOURCE_TREE; }

const BuildInfo& build_info() {
#if defined(__clang__)
  static const BuildInfo info{PEBENCH_COMMIT, "clang " __clang_version__, PEBENCH_TARGET_NAME, PEBENCH_FLAGS};
#elif defined(__GNUC__)
  static const BuildInfo info{PEBENCH_COMMIT, "GCC " __VERSION__, PEBENCH_TARGET_NAME, PEBENCH_FLAGS};
#else
  static const BuildInfo info{PEBENCH_COMMIT, "unknown", PEBENCH_TARGET_NAME, PEBENCH_FLAGS};
#endif
  return info;
}

nlohmann::json build_info_json() {
  const BuildInfo& b = build_info();
  return {{"compiler", b.compiler}, {"target", b.target}, {"flags", b.flags}, {"numerics", kNumericsVersion}};
}

std::string native_build_note(const nlohmann::json& results) {
  if (!results.contains("build") || results["build"].value("target", "") != "native") return "";
  return "\n**Native build**: these numbers come from a pe-bench built with -march=native, so they depend on "
         "the CPU that built it and need not match the committed outputs (see docs/reproducibility.md).\n";
}

}  // namespace pe
