// Files: atomic writes (temp file + rename), whole-file reads, directory creation.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace pe {

// Writes `text` to `path` atomically: a temporary file beside it (a unique name, created
// exclusively), then rename. Creates parents. An existing path that is not a regular file (a device,
// a pipe) is written through instead, never replaced.
void write_file_atomic(const std::string& path, const std::string& text);
// JSON with 2-space indent and a trailing newline, written atomically.
void write_json_atomic(const std::string& path, const nlohmann::json& j);
std::string read_file(const std::string& path);  // throws IoError naming the path
bool file_exists(const std::string& path);
void make_dirs(const std::string& path);

// Temporary files and directories: a unique sibling name for `path`; the registry of those that
// exist now, removed by the SIGINT/SIGTERM handler (core/interrupt.h) through remove_temps_now()
// (async-signal-safe: no allocation, no locks).
std::string unique_temp_name(const std::string& path);
int register_temp(const std::string& path);  // a slot for unregister_temp (-1: not registered)
void unregister_temp(int slot);
void remove_temps_now();

// Rounds a float to the shortest decimal that reads back to the same float, for compact JSON.
double shortest_float(float f);

}  // namespace pe
