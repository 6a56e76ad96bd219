#include "harness/run_dir.h"

#include <fmt/format.h>

#include "core/files.h"

namespace pe {

using nlohmann::json;

std::string run_dir_path(const std::string& runs_dir, const std::string& task, const std::string& scheme, int seed) {
  return fmt::format("{}/{}/{}/seed{}", runs_dir, task, scheme, seed);
}

void write_run_dir(const std::string& dir, const json& config, const std::string& metrics_lines,
                   const std::string& checkpoint_text) {
  make_dirs(dir);
  write_json_atomic(dir + "/config.json", config);
  write_file_atomic(dir + "/metrics.jsonl", metrics_lines);
  write_file_atomic(dir + "/checkpoint.json", checkpoint_text);
}

json complete_run_training(const std::string& dir, const json& config) {
  const std::string cp = dir + "/checkpoint.json";
  if (!file_exists(cp) || !file_exists(dir + "/metrics.jsonl") || !file_exists(dir + "/config.json")) return nullptr;
  try {
    if (json::parse(read_file(dir + "/config.json")) != config) return nullptr;
    return json::parse(read_file(cp)).at("training");
  } catch (const json::exception&) {
    return nullptr;
  }
}

}  // namespace pe
