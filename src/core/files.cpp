#include "core/files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstring>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

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

ScratchPath::ScratchPath(const std::string& stem)
    : path_(unique_temp_name((std::filesystem::temp_directory_path() / stem).string())), slot_(register_temp(path_)) {}

ScratchPath::~ScratchPath() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
  unregister_temp(slot_);
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

void write_file_atomic(const std::string& path, const std::string& text) { write_file_checked(path, text, nullptr); }

void write_file_checked(const std::string& path, const std::string& text,
                        const std::function<void(const std::string&)>& check) {
  const fs::path p(path);
  if (p.has_parent_path()) make_dirs(p.parent_path().string());
  std::error_code ec;
  // an existing output that is not a regular file (a device, a pipe) is written through, never renamed over
  if (fs::exists(path, ec) && !fs::is_regular_file(path, ec)) {
    if (check) {  // checked first as a temporary file of the system's temporary folder
      const std::string tmp =
          (fs::temp_directory_path(ec) / fmt::format("pe-bench-check.{}.json", ::getpid())).string();
      write_file_checked(tmp, text, [&](const std::string& t) { check(t); });
      ::unlink(tmp.c_str());
    }
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
  if (check) {
    try {
      check(tmp);
    } catch (...) {
      ::unlink(tmp.c_str());
      unregister_temp(slot);
      throw;
    }
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

// What a path is without following a symlink: absent, a regular file, or something else (a
// directory, a symlink, a device), which no output set may replace or remove.
enum class Entry { Absent, File, Other };
Entry entry_at(const fs::path& p) {
  std::error_code ec;
  const fs::file_status st = fs::symlink_status(p, ec);
  if (ec || st.type() == fs::file_type::not_found) return Entry::Absent;
  return st.type() == fs::file_type::regular ? Entry::File : Entry::Other;
}

struct SetStep {
  bool put = false;  // else remove
  std::string name;
};

// A pending set's manifest, every line checked before anything is touched: "put NAME" or "remove
// NAME", NAME a plain file name this writer writes (`allowed`), named once; a put's file a regular
// file in the pending folder, and what it replaces or removes in dir a regular file or nothing
// (never a directory, a symlink or a device). A manifest that breaks a rule was not written by
// pe-bench for this writer (a folder received from elsewhere can hold anything): IoError naming the
// manifest and the line.
std::vector<SetStep> read_manifest(const fs::path& dir, const std::set<std::string>& allowed) {
  const fs::path pending = dir / kPendingSet, path = pending / kSetManifest;
  if (entry_at(path) != Entry::File)
    throw IoError(
        fmt::format("{} is not a regular file; remove {} (an unfinished output set pe-bench cannot have "
                    "written) and run again",
                    path.string(), pending.string()));
  std::istringstream in(read_file(path.string()));
  std::vector<SetStep> steps;
  std::set<std::string> seen;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    const auto bad = [&](const std::string& why) {
      return IoError(fmt::format(
          "{} line {} ({}): {}; nothing was changed: remove {} (an unfinished output set "
          "pe-bench did not write for this folder) and run again",
          path.string(), n, nlohmann::json(line).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), why,
          pending.string()));
    };
    SetStep step;
    if (line.rfind("put ", 0) == 0)
      step = {true, line.substr(4)};
    else if (line.rfind("remove ", 0) == 0)
      step = {false, line.substr(7)};
    else
      throw bad("not 'put NAME' or 'remove NAME'");
    if (!plain_file_name(step.name)) throw bad("not a plain file name inside the folder");
    if (!allowed.count(step.name)) throw bad("not a file this command writes");
    if (!seen.insert(step.name).second) throw bad("names a file twice");
    if (entry_at(dir / step.name) == Entry::Other)
      throw bad(fmt::format("{} is not a regular file", (dir / step.name).string()));
    // a put's file may be gone already (moved by a writer killed while finishing the set)
    if (step.put && entry_at(pending / step.name) == Entry::Other)
      throw bad(fmt::format("{} is not a regular file", (pending / step.name).string()));
    steps.push_back(step);
  }
  return steps;
}

// Moves a pending set's files into dir and removes the obsolete ones its manifest names, then the
// pending folder. Each step can be repeated after a kill.
void roll_forward(const fs::path& dir, const std::set<std::string>& allowed) {
  const fs::path pending = dir / kPendingSet;
  std::error_code ec;
  for (const SetStep& step : read_manifest(dir, allowed)) {
    if (step.put) {
      const fs::path from = pending / step.name;
      if (entry_at(from) == Entry::File && ::rename(from.c_str(), (dir / step.name).c_str()) != 0)
        throw IoError(fmt::format("cannot move {} into {}: {}", from.string(), dir.string(), std::strerror(errno)));
    } else if (entry_at(dir / step.name) == Entry::File) {
      fs::remove(dir / step.name, ec);
    }
  }
  fs::remove_all(pending, ec);
}

void finish_set(const fs::path& dir, const std::set<std::string>& allowed) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return;
  const Entry pending = entry_at(dir / kPendingSet);
  if (pending == Entry::File)
    throw IoError(fmt::format("{} is a file where pe-bench keeps an unfinished output set; remove it and run again",
                              (dir / kPendingSet).string()));
  if (pending == Entry::Other && entry_at(dir / kPendingSet / kSetManifest) != Entry::Absent) {
    if (fs::symlink_status(dir / kPendingSet, ec).type() != fs::file_type::directory)
      throw IoError(fmt::format("{} is not a directory; remove it and run again", (dir / kPendingSet).string()));
    roll_forward(dir, allowed);
  }
  // a pending folder without its manifest was never committed (a symlink there is removed, not followed)
  fs::remove_all(dir / kPendingSet, ec);
  remove_stale_temps((dir / kSetStaging).string());
}
}  // namespace

bool plain_file_name(const std::string& name) {
  if (name.empty() || name.size() > 255 || name[0] == '.') return false;
  for (char c : name)
    if (c == '/' || c == '\\' || c == '\0' || (unsigned char)c < 0x20) return false;
  return true;
}

void finish_file_set(const std::string& dir_text, const std::vector<std::string>& names) {
  finish_set(fs::path(dir_text.empty() ? "." : dir_text), std::set<std::string>(names.begin(), names.end()));
}

void write_file_set(const std::string& dir_text, const std::vector<std::pair<std::string, std::string>>& files,
                    const std::vector<std::string>& obsolete) {
  const fs::path dir(dir_text.empty() ? "." : dir_text);
  std::set<std::string> allowed(obsolete.begin(), obsolete.end());
  for (auto& f : files) allowed.insert(f.first);
  for (auto& name : allowed)
    if (!plain_file_name(name)) throw std::logic_error("write_file_set: '" + name + "' is not a plain file name");
  make_dirs(dir.string());
  finish_set(dir, allowed);
  // nothing of the set is written where a directory, a symlink or a device stands: refused before
  // the commit point, so the old set stays whole
  for (auto& name : allowed)
    if (entry_at(dir / name) == Entry::Other)
      throw IoError(
          fmt::format("{} is not a regular file, and pe-bench writes {} there; move it away or choose "
                      "another output folder (nothing was written)",
                      (dir / name).string(), name));
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
  roll_forward(dir, allowed);
}

std::string json_text(const nlohmann::json& j) { return j.dump(2) + "\n"; }

void write_json_atomic(const std::string& path, const nlohmann::json& j) { write_file_atomic(path, json_text(j)); }

std::string read_file(const std::string& path, size_t max_bytes) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw IoError(fmt::format("cannot read {}: it is a directory, not a file", path));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw IoError(fmt::format("cannot read {}: no such file or not readable", path));
  // read in pieces, so that a device or a pipe without end (/dev/zero) stops at the bound
  std::string out;
  char buf[1 << 16];
  while (in) {
    in.read(buf, sizeof buf);
    const size_t got = size_t(in.gcount());
    if (out.size() + got > max_bytes)
      throw IoError(fmt::format("cannot read {}: it holds more than {} MiB, more than pe-bench reads from one file",
                                path, max_bytes >> 20));
    out.append(buf, got);
  }
  if (in.bad()) throw IoError(fmt::format("cannot read {}: a read error", path));
  return out;
}

namespace {
// A JSON text that nlohmann's parser accepts but pe-bench refuses: a json::exception, so every
// reader's handler of malformed JSON reports it the same way.
struct StrictJsonError : nlohmann::json::exception {
  explicit StrictJsonError(const std::string& what) : exception(0, ("[json.exception.strict] " + what).c_str()) {}
};
}  // namespace

nlohmann::json parse_json(const std::string& text) {
  using nlohmann::json;
  std::vector<std::set<std::string>> keys;  // the keys seen in each object being parsed
  std::vector<std::string> where;           // the path to the object being parsed
  const json::parser_callback_t check = [&](int, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
        keys.emplace_back();
        break;
      case json::parse_event_t::object_end:
        keys.pop_back();
        break;
      case json::parse_event_t::key: {
        const std::string k = parsed.get<std::string>();
        if (!keys.back().insert(k).second)
          throw StrictJsonError(
              fmt::format("duplicate key '{}': each key may appear once in an object (the last "
                          "would silently win)",
                          k));
        break;
      }
      case json::parse_event_t::value:
        if (parsed.is_number_float() && !std::isfinite(parsed.get<double>()))
          throw StrictJsonError("a number past the range of a double");
        break;
      default:
        break;
    }
    return true;
  };
  try {
    return json::parse(text, check);
  } catch (const json::parse_error&) {
    throw;
  } catch (const StrictJsonError&) {
    throw;
  } catch (const json::exception& e) {  // out_of_range.406: a number past a double's range
    const std::string what = e.what(),
                      plain = what.substr(what.find("] ") == std::string::npos ? 0 : what.find("] ") + 2);
    throw StrictJsonError(fmt::format("a number past the range of a double ({})", plain));
  }
}

bool file_exists(const std::string& path) { return fs::exists(path); }

double shortest_float(float f) { return std::stod(fmt::format("{}", f)); }

}  // namespace pe
