#include "harness/reference.h"

#include <fmt/format.h>

#include "core/errors.h"
#include "core/files.h"

namespace pe {

nlohmann::json load_reference(const std::string& path) {
  if (path.empty()) return nullptr;
  if (!file_exists(path))
    throw ConfigError(fmt::format("reference file {} not found (experiment key reference)", path));
  try {
    return parse_json(read_file(path));
  } catch (const nlohmann::json::exception& err) {
    throw ConfigError(fmt::format("reference file {} is not valid JSON: {}", path, err.what()));
  }
}

}  // namespace pe
