// SHA-1 (FIPS 180-4), to check that a shipped data file is the expected one.
#pragma once
#include <string>

namespace pe {

// Lower-case hex digest of `data`.
std::string sha1_hex(const std::string& data);

}  // namespace pe
