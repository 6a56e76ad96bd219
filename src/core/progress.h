// A progress line on stderr, overwritten in place, shown only when stderr is a terminal and the
// caller did not ask for quiet. Safe to call from OpenMP threads (one line at a time).
#pragma once
#include <string>

namespace pe {

class Progress {
 public:
  explicit Progress(bool quiet);
  ~Progress() { done(); }
  void update(const std::string& line);
  void done();  // clears the line
  bool on() const { return on_; }

 private:
  bool on_ = false, shown_ = false;
};

}  // namespace pe
