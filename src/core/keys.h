// A configuration key: name, type, default and help. The experiment key table is a list of them;
// a scheme declares its own settings the same way (SchemeInfo::keys), and the table includes them.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace pe {

enum class KeyType { Int, Float, String, Bool, IntList, FloatList, StringList };

struct KeySpec {
  std::string key;
  KeyType type;
  nlohmann::json default_value;
  std::string help;
};

}  // namespace pe
