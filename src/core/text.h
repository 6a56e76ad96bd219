// Small text helpers shared by the readers of options, keys and spellings.
#pragma once
#include <string>
#include <vector>

namespace pe {

// The parts of text between separators (a trailing separator gives a last empty part; "" gives none).
std::vector<std::string> split(const std::string& text, char sep);
// text without leading and trailing blanks and tabs.
std::string trim(const std::string& s);
// Whether the whole of s is an integer (a number), written to out.
bool parse_int(const std::string& s, long long& out);
bool parse_double(const std::string& s, double& out);

}  // namespace pe
