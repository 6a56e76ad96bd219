#include "core/progress.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>

namespace pe {

Progress::Progress(bool quiet) : on_(!quiet && isatty(fileno(stderr))) {}

void Progress::update(const std::string& line) {
  if (!on_) return;
#pragma omp critical(pe_progress)
  {
    fmt::print(stderr, "\r{:<78}", line.substr(0, 78));
    shown_ = true;
  }
}

void Progress::done() {
  if (!on_ || !shown_) return;
  fmt::print(stderr, "\r{:<78}\r", "");
  shown_ = false;
}

}  // namespace pe
