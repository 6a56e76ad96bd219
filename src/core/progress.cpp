#include "core/progress.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>

namespace pe {

namespace {
constexpr auto kLogInterval = std::chrono::seconds(30);  // between plain lines when not on a terminal
}

Progress::Progress(bool quiet) : on_(!quiet), tty_(isatty(fileno(stderr))), last_(std::chrono::steady_clock::now()) {}

void Progress::update(const std::string& line) {
  if (!on_) return;
#pragma omp critical(pe_progress)
  {
    if (tty_) {
      fmt::print(stderr, "\r{:<78}", line.substr(0, 78));
      shown_ = true;
    } else if (const auto now = std::chrono::steady_clock::now(); now - last_ >= kLogInterval) {
      fmt::print(stderr, "{}\n", line);
      std::fflush(stderr);
      last_ = now;
    }
  }
}

void Progress::note(const std::string& line) {
  if (!on_) return;
#pragma omp critical(pe_progress)
  {
    fmt::print(stderr, "{}{}\n", tty_ && shown_ ? "\r\033[K" : "", line);
    std::fflush(stderr);
    shown_ = false;
  }
}

void Progress::done() {
  if (!tty_ || !shown_) return;
  fmt::print(stderr, "\r{:<78}\r", "");
  shown_ = false;
}

}  // namespace pe
