#include "core/memory.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <limits>

#include <fmt/format.h>

#include "core/errors.h"

namespace pe {

namespace {
// A number of bytes in a cgroup file ("max" or a huge value: no limit).
double cgroup_limit(const char* path) {
  std::ifstream in(path);
  std::string text;
  if (!(in >> text) || text == "max") return std::numeric_limits<double>::infinity();
  try {
    const double v = std::stod(text);
    return v > 0 && v < 1e18 ? v : std::numeric_limits<double>::infinity();
  } catch (...) {
    return std::numeric_limits<double>::infinity();
  }
}
double rlimit(int resource) {
  struct rlimit r {};
  if (::getrlimit(resource, &r) != 0 || r.rlim_cur == RLIM_INFINITY) return std::numeric_limits<double>::infinity();
  return double(r.rlim_cur);
}
}  // namespace

double memory_limit_bytes() {
  double limit = double(::sysconf(_SC_PHYS_PAGES)) * double(::sysconf(_SC_PAGESIZE));
  if (!(limit > 0)) limit = std::numeric_limits<double>::infinity();
  limit =
      std::min({limit, cgroup_limit("/sys/fs/cgroup/memory.max"),
                cgroup_limit("/sys/fs/cgroup/memory/memory.limit_in_bytes"), rlimit(RLIMIT_AS), rlimit(RLIMIT_DATA)});
  return limit;
}

void check_memory(double bytes, const std::string& what, const std::string& advice) {
  const double limit = memory_limit_bytes();
  if (bytes > limit)
    throw ConfigError(fmt::format("{} needs about {:.1f} GiB of memory but this machine allows {:.1f} GiB; {}", what,
                                  bytes / 1073741824.0, limit / 1073741824.0, advice));
}

}  // namespace pe
