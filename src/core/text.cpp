#include "core/text.h"

#include <sstream>

namespace pe {

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream ss(text);
  while (std::getline(ss, cur, sep)) out.push_back(cur);
  if (!text.empty() && text.back() == sep) out.push_back("");
  return out;
}

std::string trim(const std::string& s) {
  const auto a = s.find_first_not_of(" \t"), b = s.find_last_not_of(" \t");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

bool parse_int(const std::string& s, long long& out) {
  try {
    size_t pos = 0;
    out = std::stoll(s, &pos);
    return pos == s.size();
  } catch (...) {
    return false;
  }
}

bool parse_double(const std::string& s, double& out) {
  try {
    size_t pos = 0;
    out = std::stod(s, &pos);
    return pos == s.size();
  } catch (...) {
    return false;
  }
}

}  // namespace pe
