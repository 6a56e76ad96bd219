// A test's scratch path in the temporary folder, named for the test and this process: the plain,
// the no-OpenMP and the sanitized suites may run the same case at once (ctest -j), and none may meet
// another's files.
#pragma once
#include <unistd.h>

#include <filesystem>
#include <string>

namespace pe::test {

// <tmp>/pe-bench-test-<name>-<pid>; nothing is created or removed.
inline std::filesystem::path scratch_path(const std::string& name) {
  return std::filesystem::temp_directory_path() / ("pe-bench-test-" + name + "-" + std::to_string(::getpid()));
}

// scratch_path(name) emptied and made: a fresh folder for one test.
inline std::string fresh_scratch_dir(const std::string& name) {
  const std::filesystem::path d = scratch_path(name);
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d.string();
}

}  // namespace pe::test
