// Progress on stderr unless the caller asked for quiet. On a terminal: one line, overwritten in
// place. Otherwise (a log file, CI): the latest line, as a plain line, at most every 30 seconds, so a
// long run written to a log still shows where it is. Safe to call from OpenMP threads.
#pragma once
#include <chrono>
#include <string>

namespace pe {

class Progress {
 public:
  explicit Progress(bool quiet);
  ~Progress() { done(); }
  void update(const std::string& line);
  // A line that stays (a finished run's summary), printed over the in-place line.
  void note(const std::string& line);
  void done();  // clears the terminal line

 private:
  bool on_ = false, tty_ = false, shown_ = false;
  std::chrono::steady_clock::time_point last_;
};

}  // namespace pe
