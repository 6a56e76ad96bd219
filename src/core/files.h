// Files: atomic writes (temp file + rename), whole-file reads, directory creation.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace pe {

// Writes `text` to `path` atomically: a temporary file beside it (a unique name, created
// exclusively), then rename. Creates parents. An existing path that is not a regular file (a device,
// a pipe) is written through instead, never replaced.
void write_file_atomic(const std::string& path, const std::string& text);
// JSON as pe-bench writes it: 2-space indent and a trailing newline.
std::string json_text(const nlohmann::json& j);
// json_text(j), written atomically.
void write_json_atomic(const std::string& path, const nlohmann::json& j);
std::string read_file(const std::string& path);  // throws IoError naming the path
bool file_exists(const std::string& path);
void make_dirs(const std::string& path);

// Temporary files and directories: a unique sibling name for `path`; the registry of those that
// exist now, removed by the SIGINT/SIGTERM handler (core/interrupt.h) through remove_temps_now()
// (async-signal-safe: no allocation, no locks).
std::string unique_temp_name(const std::string& path);
// The pid in a temporary's file name ("<name>.tmp.<pid>.<n>"), or 0 when the name is not one.
int temp_owner(const std::string& filename);
// Whether the process that made a temporary is still running (a dead one's temporaries are stale).
bool process_alive(int pid);
// Removes the stale temporaries of `path` (its siblings "<name>.tmp.<pid>.<n>" and
// "<name>.state.json.tmp.<pid>.<n>" whose pid is not running): what a killed pe-bench leaves.
void remove_stale_temps(const std::string& path);
int register_temp(const std::string& path);  // a slot for unregister_temp (-1: not registered)
void unregister_temp(int slot);
void remove_temps_now();

// A set of output files that belong together (results.json, table.md and the analyses of one run of
// an experiment; a corpus's training and held-out files), written as one unit into `dir`: every file
// is first written into a staging folder, which one rename makes the pending set; the files then
// move into place and `obsolete` files (of an earlier set, which this one does not hold) are removed.
// A process killed before the rename leaves the old set whole (its staging folder is removed by the
// next write); one killed in the moment after it leaves a pending set that the next write_file_set
// or finish_file_set on `dir` completes. Names are plain file names (no '/').
void write_file_set(const std::string& dir, const std::vector<std::pair<std::string, std::string>>& files,
                    const std::vector<std::string>& obsolete = {});
// Completes a pending set left in `dir` by a killed writer, and removes a dead writer's staging.
void finish_file_set(const std::string& dir);

// Rounds a float to the shortest decimal that reads back to the same float, for compact JSON.
double shortest_float(float f);

}  // namespace pe
