#include "core/interrupt.h"

#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstring>

#include "core/files.h"

namespace pe {

namespace {

std::atomic<int> scopes{0};    // live StopScopes
std::atomic<int> stop_sig{0};  // the first signal during training

extern "C" void on_signal(int sig) {
  int none = 0;
  if (scopes.load() > 0 && stop_sig.compare_exchange_strong(none, sig)) {
    static const char msg[] =
        "\npe-bench: stopping at the next step boundary to save a resumable state (send the signal again to "
        "stop at once)\n";
    [[maybe_unused]] const ssize_t n = ::write(STDERR_FILENO, msg, sizeof msg - 1);
    return;
  }
  remove_temps_now();
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

}  // namespace

void install_signal_handlers() {
  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;  // a blocking write in progress goes on
  ::sigaction(SIGINT, &sa, nullptr);
  ::sigaction(SIGTERM, &sa, nullptr);
}

StopScope::StopScope() { ++scopes; }
StopScope::~StopScope() { --scopes; }

int stop_signal() { return stop_sig.load(); }
void request_stop(int sig) { stop_sig.store(sig); }
void clear_stop() { stop_sig.store(0); }

const char* signal_name(int sig) {
  switch (sig) {
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
    default:
      return "a signal";
  }
}

}  // namespace pe
