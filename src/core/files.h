// Files: atomic writes (temp file + rename), whole-file reads, directory creation.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace pe {

// Writes `text` to `path` atomically: a temporary file beside it, then rename. Creates parents.
void write_file_atomic(const std::string& path, const std::string& text);
// JSON with 2-space indent and a trailing newline, written atomically.
void write_json_atomic(const std::string& path, const nlohmann::json& j);
std::string read_file(const std::string& path);  // throws IoError naming the path
bool file_exists(const std::string& path);
void make_dirs(const std::string& path);

// Rounds a float to the shortest decimal that reads back to the same float, for compact JSON.
double shortest_float(float f);

}  // namespace pe
