// core/process.h: posix_spawn with the output redirected, then waitpid.
#include "core/process.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>

#include <cerrno>

extern char** environ;

namespace pe {

int run_program(const std::vector<std::string>& argv, const std::string& log) {
  if (argv.empty()) return -1;
  std::vector<char*> args;
  for (auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  if (posix_spawn_file_actions_init(&actions) != 0) return -1;
  const bool planned =
      posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644) == 0 &&
      posix_spawn_file_actions_adddup2(&actions, 1, 2) == 0 &&
      posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0) == 0;
  pid_t pid = 0;
  const int started = planned ? posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ) : -1;
  posix_spawn_file_actions_destroy(&actions);
  if (started != 0) return -1;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace pe
