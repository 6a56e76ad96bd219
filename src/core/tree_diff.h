// Compares two output trees (a results directory and its committed copy, say) file by file: JSON by
// value, JSON Lines line by line, anything else byte for byte. Each JSON object's "build" member
// (compiler, target, flags, numerics version: how the numbers were made) is set aside and reported apart, so two trees
// whose numbers agree compare equal across commits.
#pragma once
#include <string>
#include <vector>

namespace pe {

struct TreeDiff {
  std::vector<std::string> differences;  // one line each: the file and its first differing value
  std::vector<std::string> notes;        // build provenance that differs (not a difference)
  int files_compared = 0;
  bool same() const { return differences.empty(); }
};

// `a` and `b` are directories (every file below them, by relative path) or two files.
TreeDiff diff_trees(const std::string& a, const std::string& b);

}  // namespace pe
