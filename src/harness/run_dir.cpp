#include "harness/run_dir.h"

#include <fmt/format.h>

#include "core/files.h"
#include "harness/config.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <vector>

#include "core/errors.h"

namespace pe {

using nlohmann::json;

std::string run_dir_path(const std::string& runs_dir, const std::string& task, const std::string& scheme, int seed) {
  return fmt::format("{}/{}/{}/seed{}", runs_dir, task, scheme, seed);
}

RunDirLock::RunDirLock(const std::string& dir) : path_(dir + ".lock") {
  const std::filesystem::path parent = std::filesystem::path(dir).parent_path();
  if (!parent.empty()) make_dirs(parent.string());
  // never through a symlink (a runs folder from elsewhere could point the lock at any file)
  fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW, 0644);
  if (fd_ < 0 && errno == ELOOP)
    throw IoError(
        fmt::format("the lock {} is a symlink; pe-bench makes its locks itself: remove it and run again", path_));
  if (fd_ < 0) throw IoError(fmt::format("cannot create the lock {} (is the runs directory writable?)", path_));
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    ::close(fd_);
    throw UsageError(
        fmt::format("another pe-bench process is writing {} (it holds {}); wait for it to finish or "
                    "choose another runs_dir",
                    dir, path_));
  }
  slot_ = register_temp(path_);
  remove_stale_temps(dir);  // what a killed run of this directory left: no live process owns it now
}

RunDirLock::~RunDirLock() {
  ::unlink(path_.c_str());
  unregister_temp(slot_);
  ::close(fd_);
}

void write_run_dir(const std::string& dir, const json& config, const std::string& metrics_lines,
                   const std::string& checkpoint_text) {
  namespace fs = std::filesystem;
  const fs::path parent = fs::path(dir).parent_path();
  if (!parent.empty()) make_dirs(parent.string());
  {  // a run directory is replaced whole: whatever else stands there (a file, a symlink) is not pe-bench's
    std::error_code ec;
    const fs::file_type type = fs::symlink_status(dir, ec).type();
    if (!ec && type != fs::file_type::not_found && type != fs::file_type::directory)
      throw IoError(
          fmt::format("{} is not a directory (a file or a symlink stands there), and pe-bench writes a run "
                      "directory there; move it away or choose another runs_dir",
                      dir));
  }
  const std::string tmp = unique_temp_name(dir);
  if (::mkdir(tmp.c_str(), 0755) != 0) throw IoError(fmt::format("cannot create {}: {}", tmp, std::strerror(errno)));
  std::vector<int> slots = {register_temp(tmp)};
  auto cleanup = [&] {
    std::error_code ec;
    fs::remove_all(tmp, ec);
    for (int s : slots) unregister_temp(s);
  };
  try {
    const std::pair<std::string, std::string> files[] = {
        {"config.json", config.dump(2) + "\n"}, {"metrics.jsonl", metrics_lines}, {"checkpoint.json", checkpoint_text}};
    for (auto& [name, text] : files) {
      slots.push_back(register_temp(tmp + "/" + name));
      write_file_atomic(tmp + "/" + name, text);
    }
  } catch (...) {
    cleanup();
    throw;
  }
  // into place: a new directory by rename; an existing one swapped out in one step, then removed
  std::error_code ec;
  if (!fs::exists(dir, ec)) {
    if (::rename(tmp.c_str(), dir.c_str()) != 0) {
      const std::string why = std::strerror(errno);
      cleanup();
      throw IoError(fmt::format("cannot rename {} to {}: {}", tmp, dir, why));
    }
  } else {
    if (::renameat2(AT_FDCWD, tmp.c_str(), AT_FDCWD, dir.c_str(), RENAME_EXCHANGE) != 0) {
      const std::string why = std::strerror(errno);
      cleanup();
      throw IoError(fmt::format("cannot replace {} with {}: {}", dir, tmp, why));
    }
  }
  cleanup();  // after an exchange, tmp holds the old directory
}

json complete_run_training(const std::string& dir, const json& config) {
  const std::string cp = dir + "/checkpoint.json";
  if (!file_exists(cp) || !file_exists(dir + "/metrics.jsonl") || !file_exists(dir + "/config.json")) return nullptr;
  try {
    if (!same_run(parse_json(read_file(dir + "/config.json")), config)) return nullptr;
    return parse_json(read_file(cp)).at("training");
  } catch (const json::exception&) {
    return nullptr;
  }
}

}  // namespace pe
