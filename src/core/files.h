// Files: atomic writes (temp file + rename), whole-file reads, directory creation.
#pragma once
#include <functional>
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
// The same, but `check` is called with the temporary's path once it holds all of `text`, before
// the rename: when it throws, the temporary is removed and `path` is left as it was (a file that a
// reader would refuse is never put in place).
void write_file_checked(const std::string& path, const std::string& text,
                        const std::function<void(const std::string& temporary)>& check);
// json_text(j), written atomically.
void write_json_atomic(const std::string& path, const nlohmann::json& j);
// The bound on one file pe-bench reads (1 GiB): a device or a pipe without end (/dev/zero) is an
// error at the bound, not a process that grows until it is killed.
inline constexpr size_t kMaxReadBytes = size_t(1) << 30;
// The file's bytes; IoError naming the path when it is absent, unreadable, a directory, or larger
// than max_bytes.
std::string read_file(const std::string& path, size_t max_bytes = kMaxReadBytes);
// JSON as pe-bench reads every file: nlohmann::json::parse, but a key twice in one object and a
// number past a double's range (1e400) are refused too. Every error is a nlohmann::json::exception
// (what() names the problem: the duplicate key, or the parser's position), so readers report all
// malformed JSON one way.
nlohmann::json parse_json(const std::string& text);
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
// A unique path in the system's temporary folder ("<temp>/<stem>.tmp.<pid>.<n>"), registered as a temporary
// while it lives; the destructor removes whatever is there (a file, or a folder and its files).
class ScratchPath {
 public:
  explicit ScratchPath(const std::string& stem);
  ~ScratchPath();
  ScratchPath(const ScratchPath&) = delete;
  ScratchPath& operator=(const ScratchPath&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  int slot_;
};

// A set of output files that belong together (results.json, table.md and the analyses of one run of
// an experiment; a corpus's training and held-out files; an export), written as one unit into `dir`:
// every file is first written into a staging folder, which one rename makes the pending set; the
// files then move into place and `obsolete` files (of an earlier set, which this one does not hold)
// are removed. A process killed before the rename leaves the old set whole (its staging folder is
// removed by the next write); one killed in the moment after it leaves a pending set that the next
// write_file_set on `dir` completes.
// The pending set's MANIFEST is checked whole before anything is touched (docs/architecture.md, "Output
// sets"): each line "put NAME" or "remove NAME", NAME a plain file name (plain_file_name) among the
// names this writer writes (files and obsolete), named once, and what it moves or removes a regular
// file, never a directory, a symlink or a device; anything else is IoError naming the manifest and
// the line, with nothing changed. A name of the set where a directory, symlink or device stands in
// `dir` is IoError too, before anything is written.
void write_file_set(const std::string& dir, const std::vector<std::pair<std::string, std::string>>& files,
                    const std::vector<std::string>& obsolete = {});
// Completes a pending set left in `dir` by a killed writer of the files `names`, and removes a dead
// writer's staging; the same checks as write_file_set.
void finish_file_set(const std::string& dir, const std::vector<std::string>& names);
// A name that stays inside its folder: not empty, no '/', '\\', NUL or control character, not starting
// with '.' (so not ".", ".." or pe-bench's own hidden folders), at most 255 bytes.
bool plain_file_name(const std::string& name);

// Rounds a float to the shortest decimal that reads back to the same float, for compact JSON.
double shortest_float(float f);

}  // namespace pe
