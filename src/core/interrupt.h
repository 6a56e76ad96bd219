// SIGINT and SIGTERM. Outside training they end the process after removing the temporary files in
// flight (core/files.h). While a training run is in progress (a StopScope lives) the first one only
// asks it to stop: the run finishes its step, saves a state it can resume from and throws
// Interrupted (harness/training_state.h); a second signal ends the process at once.
#pragma once

namespace pe {

// main() installs the handlers once.
void install_signal_handlers();

// Lives for as long as training runs may be stopped at a step boundary (nests, any thread).
class StopScope {
 public:
  StopScope();
  ~StopScope();
  StopScope(const StopScope&) = delete;
  StopScope& operator=(const StopScope&) = delete;
};

// The signal that asked training to stop (SIGINT or SIGTERM), or 0.
int stop_signal();
// What the handler does on a first signal during training, for tests; clear_stop() forgets it.
void request_stop(int sig);
void clear_stop();
// "SIGINT", "SIGTERM" (or "signal N").
const char* signal_name(int sig);

}  // namespace pe
