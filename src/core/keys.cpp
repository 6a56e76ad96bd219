#include "core/keys.h"

#include <fmt/format.h>

#include <cmath>

#include "core/errors.h"
#include "core/text.h"

namespace pe {

using nlohmann::json;

std::string type_name(KeyType t) {
  switch (t) {
    case KeyType::Int:
      return "an integer";
    case KeyType::Float:
      return "a number";
    case KeyType::String:
      return "a string";
    case KeyType::Bool:
      return "true or false";
    case KeyType::IntList:
      return "a list of integers";
    case KeyType::FloatList:
      return "a list of numbers";
    case KeyType::StringList:
      return "a list of strings";
  }
  return "?";
}

std::optional<json> parse_key_text(KeyType t, const std::string& text) {
  long long i;
  double d;
  switch (t) {
    case KeyType::Int:
      return parse_int(text, i) ? std::optional<json>(i) : std::nullopt;
    case KeyType::Float:
      return parse_double(text, d) ? std::optional<json>(d) : std::nullopt;
    case KeyType::String:
      return json(text);
    case KeyType::Bool:
      if (text != "true" && text != "false") return std::nullopt;
      return json(text == "true");
    case KeyType::IntList:
    case KeyType::FloatList:
    case KeyType::StringList: {
      json v = json::array();
      if (!text.empty())
        for (auto& part : split(text, ',')) {
          const std::string e = trim(part);
          if (t == KeyType::IntList) {
            if (!parse_int(e, i)) return std::nullopt;
            v.push_back(i);
          } else if (t == KeyType::FloatList) {
            if (!parse_double(e, d)) return std::nullopt;
            v.push_back(d);
          } else {
            if (e.empty()) return std::nullopt;
            v.push_back(e);
          }
        }
      return v;
    }
  }
  return std::nullopt;
}

bool has_type(const json& v, KeyType t) {
  auto all = [&](auto pred) {
    if (!v.is_array()) return false;
    for (auto& e : v)
      if (!pred(e)) return false;
    return true;
  };
  switch (t) {
    case KeyType::Int:
      return v.is_number_integer();
    case KeyType::Float:
      return v.is_number();
    case KeyType::String:
      return v.is_string();
    case KeyType::Bool:
      return v.is_boolean();
    case KeyType::IntList:
      return all([](const json& e) { return e.is_number_integer(); });
    case KeyType::FloatList:
      return all([](const json& e) { return e.is_number(); });
    case KeyType::StringList:
      return all([](const json& e) { return e.is_string(); });
  }
  return false;
}

namespace {
std::string number_text(double x) {
  if (x >= double(2147483647)) return fmt::format("{}", (long long)x);
  return fmt::format("{}", x);
}
std::string domain_text(const KeySpec& k) {
  const bool has_min = k.min > -std::numeric_limits<double>::max(),
             has_max = k.max < std::numeric_limits<double>::max();
  const std::string what = (k.type == KeyType::Int || k.type == KeyType::IntList) ? "an integer" : "a finite number";
  if (has_min && has_max)
    return fmt::format("{} in {}{}, {}]", what, k.min_open ? "(" : "[", number_text(k.min), number_text(k.max));
  if (has_min) return fmt::format("{} {} {}", what, k.min_open ? ">" : ">=", number_text(k.min));
  if (has_max) return fmt::format("{} <= {}", what, number_text(k.max));
  return what;
}
}  // namespace

std::string domain_of(const KeySpec& k) {
  const bool number =
      k.type == KeyType::Int || k.type == KeyType::Float || k.type == KeyType::IntList || k.type == KeyType::FloatList;
  if (number) return domain_text(k);
  if (k.type == KeyType::String && k.min >= 1) return "not empty";
  return "";
}

void check_key_value(const KeySpec& k, const json& v, const std::string& origin) {
  auto in_domain = [&](const json& x) {
    if (!x.is_number()) return true;  // the type check names other kinds
    const double d = x.get<double>();
    if (!std::isfinite(d)) return false;
    if (x.is_number_integer() && !x.is_number_unsigned() && k.min >= 0 && x.get<long long>() < 0) return false;
    return (k.min_open ? d > k.min : d >= k.min) && d <= k.max;
  };
  const bool list = k.type == KeyType::IntList || k.type == KeyType::FloatList;
  if (k.type == KeyType::String && k.min >= 1 && v.is_string() && v.get<std::string>().empty())
    throw ConfigError(fmt::format("{}: key '{}' must not be empty", origin, k.key));
  if (list && v.is_array()) {
    for (auto& x : v)
      if (!in_domain(x))
        throw ConfigError(
            fmt::format("{}: key '{}': every entry must be {} (got {})", origin, k.key, domain_text(k), x.dump()));
  } else if (!list && !in_domain(v)) {
    throw ConfigError(fmt::format("{}: key '{}' must be {} (got {})", origin, k.key, domain_text(k), v.dump()));
  }
}

long long checked_int(const json& v, const std::string& what, long long lo, long long hi) {
  if (v.is_number_unsigned()) {  // past LLONG_MAX it is out of any range asked for
    const unsigned long long u = v.get<unsigned long long>();
    if (hi >= 0 && u <= (unsigned long long)hi && (long long)u >= lo) return (long long)u;
  } else if (v.is_number_integer()) {
    const long long x = v.get<long long>();
    if (x >= lo && x <= hi) return x;
  }
  throw UsageError(fmt::format("{} must be an integer in [{}, {}] (got {})", what, lo, hi, v.dump()));
}

}  // namespace pe
