// A task's keys, each declared once with the field it fills: the KeySpec (type, default, help,
// domain, role) and where its value goes in the task's settings struct. The table gives the task's
// key list (Task::keys) and reads a resolved config into the struct, so a key is written in one place
// instead of three (a KeySpec, a struct field's reading line, and the field).
//
//   static const KeyTable<PasskeySettings> table = KeyTable<PasskeySettings>()
//       .field({"depths", KeyType::Int, 11, "depths read per length", 1, 101}, &PasskeySettings::depths)
//       .field({"passkey_symbols", ...}, [](PasskeySettings& s) -> int& { return s.spec.symbols; })
//       .keys(block_stack_keys(4, 3))  // keys declared elsewhere (shared by several tasks) ...
//       .bind("n_heads", &PasskeySettings::n_heads);  // ... and the fields some of them fill
#pragma once
#include <algorithm>
#include <functional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/errors.h"
#include "core/keys.h"
#include "harness/config.h"

namespace pe {

template <class Settings>
class KeyTable {
 public:
  // A key and the member it fills (its type: the member's; nlohmann converts the resolved value).
  template <class T>
  KeyTable&& field(KeySpec spec, T Settings::*member) && {
    return std::move(*this).field(std::move(spec), [member](Settings& s) -> T& { return s.*member; });
  }
  // A key and a function giving the (nested) field it fills: [](Settings& s) -> int& { return s.spec.k; }.
  template <class Access>
  KeyTable&& field(KeySpec spec, Access access) && {
    const std::string key = spec.key;
    specs_.push_back(std::move(spec));
    readers_.push_back([key, access](Settings& s, const ExperimentConfig& e) {
      auto& target = access(s);
      target = e.value(key).template get<std::remove_reference_t<decltype(target)>>();
    });
    return std::move(*this);
  }
  // Keys declared elsewhere (shared by several tasks, or read where they are used, not into the struct).
  KeyTable&& keys(const std::vector<KeySpec>& specs) && {
    specs_.insert(specs_.end(), specs.begin(), specs.end());
    return std::move(*this);
  }
  KeyTable&& key(KeySpec spec) && {
    specs_.push_back(std::move(spec));
    return std::move(*this);
  }
  // A key already in the table (from keys()) now also fills a member. Error when the table lacks it.
  template <class T>
  KeyTable&& bind(const std::string& key, T Settings::*member) && {
    if (std::none_of(specs_.begin(), specs_.end(), [&](const KeySpec& s) { return s.key == key; }))
      throw Error("KeyTable::bind: the table declares no key '" + key + "'");
    readers_.push_back(
        [key, member](Settings& s, const ExperimentConfig& e) { s.*member = e.value(key).template get<T>(); });
    return std::move(*this);
  }

  // The keys, in the order declared (Task::keys).
  const std::vector<KeySpec>& specs() const { return specs_; }
  // A resolved config's values in their fields; the fields no key fills keep their defaults.
  Settings read(const ExperimentConfig& e) const {
    Settings s;
    for (auto& r : readers_) r(s, e);
    return s;
  }

 private:
  std::vector<KeySpec> specs_;
  std::vector<std::function<void(Settings&, const ExperimentConfig&)>> readers_;
};

}  // namespace pe
