// Reference tables: the published figures an experiment shows beside its own (experiment key
// `reference`), read the same way for every task.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace pe {

// The parsed file, or null when path is empty. ConfigError when it is missing or not JSON.
nlohmann::json load_reference(const std::string& path);

}  // namespace pe
