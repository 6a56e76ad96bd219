#include "core/files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cctype>
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

int temp_owner(const std::string& filename) {
  const size_t at = filename.rfind(".tmp.");
  if (at == std::string::npos) return 0;
  const std::string rest = filename.substr(at + 5);
  const size_t dot = rest.find('.');
  if (dot == 0 || dot == std::string::npos || dot > 9) return 0;
  for (size_t i = 0; i < rest.size(); ++i)
    if (i != dot && !std::isdigit((unsigned char)rest[i])) return 0;
  return std::stoi(rest.substr(0, dot));
}

bool process_alive(int pid) { return pid > 0 && (::kill(pid, 0) == 0 || errno == EPERM); }

void remove_stale_temps(const std::string& path) {
  const fs::path p(path);
  const fs::path parent = p.has_parent_path() ? p.parent_path() : fs::path(".");
  const std::string base = p.filename().string();
  std::error_code ec;
  if (!fs::is_directory(parent, ec)) return;
  for (auto& entry : fs::directory_iterator(parent, ec)) {
    const std::string name = entry.path().filename().string();
    const bool mine = name.rfind(base + ".tmp.", 0) == 0 || name.rfind(base + ".state.json.tmp.", 0) == 0;
    const int pid = temp_owner(name);
    if (mine && pid > 0 && pid != ::getpid() && !process_alive(pid)) fs::remove_all(entry.path(), ec);
  }
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

namespace {
constexpr const char* kPendingSet = ".output-set.pending";
constexpr const char* kSetStaging = ".output-set";
constexpr const char* kSetManifest = "MANIFEST";

// Moves a pending set's files into dir and removes the obsolete ones its manifest names ("put NAME",
// "remove NAME" lines), then the pending folder. Each step can be repeated after a kill.
void roll_forward(const fs::path& dir) {
  const fs::path pending = dir / kPendingSet;
  std::error_code ec;
  std::istringstream manifest(read_file((pending / kSetManifest).string()));
  std::string line;
  while (std::getline(manifest, line)) {
    if (line.rfind("put ", 0) == 0) {
      const fs::path from = pending / line.substr(4);
      if (fs::exists(from, ec) && ::rename(from.c_str(), (dir / line.substr(4)).c_str()) != 0)
        throw IoError(fmt::format("cannot move {} into {}: {}", from.string(), dir.string(), std::strerror(errno)));
    } else if (line.rfind("remove ", 0) == 0) {
      fs::remove(dir / line.substr(7), ec);
    }
  }
  fs::remove_all(pending, ec);
}
}  // namespace

void finish_file_set(const std::string& dir_text) {
  const fs::path dir(dir_text.empty() ? "." : dir_text);
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return;
  if (fs::exists(dir / kPendingSet / kSetManifest, ec)) roll_forward(dir);
  fs::remove_all(dir / kPendingSet, ec);  // a pending folder without its manifest was never committed
  remove_stale_temps((dir / kSetStaging).string());
}

void write_file_set(const std::string& dir_text, const std::vector<std::pair<std::string, std::string>>& files,
                    const std::vector<std::string>& obsolete) {
  const fs::path dir(dir_text.empty() ? "." : dir_text);
  make_dirs(dir.string());
  finish_file_set(dir.string());
  const std::string staging = unique_temp_name((dir / kSetStaging).string());
  if (::mkdir(staging.c_str(), 0755) != 0)
    throw IoError(fmt::format("cannot create {}: {}", staging, std::strerror(errno)));
  std::vector<int> slots = {register_temp(staging)};
  auto release = [&] {
    for (int s : slots) unregister_temp(s);
  };
  std::string manifest;
  try {
    for (auto& [name, text] : files) {
      slots.push_back(register_temp(staging + "/" + name));
      write_file_atomic(staging + "/" + name, text);
      manifest += "put " + name + "\n";
    }
    for (auto& name : obsolete) {
      bool kept = false;
      for (auto& f : files) kept = kept || f.first == name;
      if (!kept) manifest += "remove " + name + "\n";
    }
    slots.push_back(register_temp(staging + "/" + kSetManifest));
    write_file_atomic(staging + "/" + kSetManifest, manifest);
  } catch (...) {
    std::error_code ec;
    fs::remove_all(staging, ec);
    release();
    throw;
  }
  // the commit point: from here the new set is whole on disk and a later write finishes it
  if (::rename(staging.c_str(), (dir / kPendingSet).c_str()) != 0) {
    const std::string why = std::strerror(errno);
    std::error_code ec;
    fs::remove_all(staging, ec);
    release();
    throw IoError(fmt::format("cannot rename {} to {}: {}", staging, (dir / kPendingSet).string(), why));
  }
  release();
  roll_forward(dir);
}

std::string json_text(const nlohmann::json& j) { return j.dump(2) + "\n"; }

void write_json_atomic(const std::string& path, const nlohmann::json& j) {
  write_file_atomic(path, json_text(j));
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
