#include "core/files.h"

#include <unistd.h>

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

void write_file_atomic(const std::string& path, const std::string& text) {
  const fs::path p(path);
  if (p.has_parent_path()) make_dirs(p.parent_path().string());
  const std::string tmp = fmt::format("{}.tmp.{}", path, ::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw IoError(fmt::format("cannot write {} (check the directory exists and is writable)", tmp));
    out << text;
    out.flush();
    if (!out) {
      std::remove(tmp.c_str());
      throw IoError(fmt::format("writing {} failed (disk full?)", tmp));
    }
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) {
    std::remove(tmp.c_str());
    throw IoError(fmt::format("cannot rename {} to {}: {}", tmp, path, ec.message()));
  }
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
