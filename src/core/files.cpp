#include "core/files.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "core/errors.h"

namespace pe {

namespace fs = std::filesystem;

void make_dirs(const std::string& path) {
  if (path.empty()) return;
  std::error_code ec;
  fs::create_directories(path, ec);
  if (ec) throw IoError(fmt::format("cannot create directory {}: {}", path, ec.message()));
}

namespace {

// Temporary paths that exist right now, for the SIGINT/SIGTERM handler to remove: fixed slots of
// plain chars, because a signal handler may not allocate or lock.
constexpr int kTempSlots = 256;
constexpr size_t kTempPathMax = 4096;
char temp_paths[kTempSlots][kTempPathMax];
std::atomic<int> temp_state[kTempSlots];  // 0 free, 1 being filled, 2 a path to remove
std::atomic<unsigned long> temp_counter{0};

}  // namespace

void remove_temps_now() {
  for (int i = kTempSlots - 1; i >= 0; --i)  // files before the directories they are in
    if (temp_state[i].load() == 2) {
      if (::unlink(temp_paths[i]) != 0) ::rmdir(temp_paths[i]);
    }
}

int register_temp(const std::string& path) {
  if (path.size() >= kTempPathMax) return -1;
  for (int i = 0; i < kTempSlots; ++i) {
    int expected = 0;
    if (temp_state[i].compare_exchange_strong(expected, 1)) {
      std::memcpy(temp_paths[i], path.c_str(), path.size() + 1);
      temp_state[i].store(2);  // only a complete path is ever removed
      return i;
    }
  }
  return -1;  // full: the path is still removed on errors, only not on a signal
}

void unregister_temp(int slot) {
  if (slot >= 0) temp_state[slot].store(0);
}

std::string unique_temp_name(const std::string& path) {
  return fmt::format("{}.tmp.{}.{}", path, ::getpid(), ++temp_counter);
}

void write_file_atomic(const std::string& path, const std::string& text) {
  const fs::path p(path);
  if (p.has_parent_path()) make_dirs(p.parent_path().string());
  std::error_code ec;
  // an existing output that is not a regular file (a device, a pipe) is written through, never renamed over
  if (fs::exists(path, ec) && !fs::is_regular_file(path, ec)) {
    std::ofstream out(path, std::ios::binary);
    out << text;
    out.flush();
    if (!out) throw IoError(fmt::format("writing {} failed", path));
    return;
  }
  const std::string tmp = unique_temp_name(path);
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
  if (fd < 0) throw IoError(fmt::format("cannot write {} (check the directory exists and is writable)", tmp));
  const int slot = register_temp(tmp);
  size_t done = 0;
  bool ok = true;
  while (ok && done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    ok = n > 0;
    if (ok) done += size_t(n);
  }
  ok = (::close(fd) == 0) && ok;
  if (!ok) {
    ::unlink(tmp.c_str());
    unregister_temp(slot);
    throw IoError(fmt::format("writing {} failed (disk full?)", tmp));
  }
  fs::rename(tmp, path, ec);
  if (ec) {
    ::unlink(tmp.c_str());
    unregister_temp(slot);
    throw IoError(fmt::format("cannot rename {} to {}: {}", tmp, path, ec.message()));
  }
  unregister_temp(slot);
}

void write_json_atomic(const std::string& path, const nlohmann::json& j) {
  write_file_atomic(path, j.dump(2) + "\n");
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw IoError(fmt::format("cannot read {}: no such file or not readable", path));
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool file_exists(const std::string& path) { return fs::exists(path); }

double shortest_float(float f) { return std::stod(fmt::format("{}", f)); }

}  // namespace pe
