// Running another program (the doctor's PyTorch twin): argv as given, no shell, its standard output and error
// into one file, waited for.
#pragma once
#include <string>
#include <vector>

namespace pe {

// Runs argv[0] (a path) with argv; stdout and stderr go to `log` (created or truncated). Returns the exit code,
// or -1 when the program could not be started or ended by a signal.
int run_program(const std::vector<std::string>& argv, const std::string& log);

}  // namespace pe
