// How much memory this process may use, and a check of an estimate against it, so that a size that
// cannot fit is refused in one line before any work instead of ending in an out-of-memory abort.
#pragma once
#include <string>

namespace pe {

// The least of: physical memory, the cgroup's memory.max (v2) or memory.limit_in_bytes (v1), and
// RLIMIT_AS / RLIMIT_DATA. In bytes.
double memory_limit_bytes();
// ConfigError (exit 2) when `bytes` exceeds memory_limit_bytes(): "<what> needs about X GiB but this
// machine allows Y GiB; <advice>".
void check_memory(double bytes, const std::string& what, const std::string& advice);

}  // namespace pe
