#include "core/tree_diff.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/errors.h"
#include "core/files.h"

namespace pe {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string shown(const json& v) {
  std::string s = v.dump();
  return s.size() > 60 ? s.substr(0, 57) + "..." : s;
}

// The first place where a and b differ, as "path: a-value vs b-value", or "" when equal. Objects'
// "build" members are skipped (and collected in `builds`).
std::string first_difference(const json& a, const json& b, const std::string& path,
                             std::vector<std::pair<json, json>>& builds) {
  if (a.type() != b.type() && !(a.is_number() && b.is_number()))
    return fmt::format("{}: {} vs {}", path.empty() ? "(top)" : path, shown(a), shown(b));
  if (a.is_object()) {
    std::set<std::string> keys;
    for (auto& [k, v] : a.items()) keys.insert(k);
    for (auto& [k, v] : b.items()) keys.insert(k);
    for (const auto& k : keys) {
      const std::string p = path.empty() ? k : path + "." + k;
      if (!a.contains(k)) return fmt::format("{}: missing vs {}", p, shown(b[k]));
      if (!b.contains(k)) return fmt::format("{}: {} vs missing", p, shown(a[k]));
      if (k == "build") {
        if (a[k] != b[k]) builds.emplace_back(a[k], b[k]);
        continue;
      }
      std::string d = first_difference(a[k], b[k], p, builds);
      if (!d.empty()) return d;
    }
    return "";
  }
  if (a.is_array()) {
    for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
      std::string d = first_difference(a[i], b[i], fmt::format("{}[{}]", path, i), builds);
      if (!d.empty()) return d;
    }
    if (a.size() != b.size())
      return fmt::format("{}: {} elements vs {}", path.empty() ? "(top)" : path, a.size(), b.size());
    return "";
  }
  if (a.is_number() && b.is_number()) {  // exact: a double's shortest form reads back to its bits
    if (a.dump() == b.dump()) return "";
  } else if (a == b) {
    return "";
  }
  return fmt::format("{}: {} vs {}", path.empty() ? "(top)" : path, shown(a), shown(b));
}

json parse_or_throw(const std::string& text, const std::string& where) {
  try {
    return parse_json(text);
  } catch (const json::exception& e) {
    throw DataError(fmt::format("{} is not valid JSON ({})", where, e.what()));
  }
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

void add_build_notes(const std::string& name, const std::vector<std::pair<json, json>>& builds, TreeDiff& d) {
  if (builds.empty()) return;
  const json &a = builds.front().first, &b = builds.front().second;
  std::string what;
  for (auto& [k, v] : a.items())
    if (!b.contains(k) || b[k] != v)
      what +=
          fmt::format("{}{} {} vs {}", what.empty() ? "" : ", ", k, shown(v), b.contains(k) ? shown(b[k]) : "missing");
  d.notes.push_back(fmt::format("{}: build differs ({})", name, what.empty() ? "fields" : what));
}

// Compares one pair of files into d.
void diff_files(const std::string& name, const std::string& pa, const std::string& pb, TreeDiff& d) {
  ++d.files_compared;
  const std::string ta = read_file(pa), tb = read_file(pb);
  std::vector<std::pair<json, json>> builds;
  if (ends_with(name, ".json")) {
    if (ta != tb) {
      const std::string diff = first_difference(parse_or_throw(ta, pa), parse_or_throw(tb, pb), "", builds);
      if (!diff.empty())
        d.differences.push_back(name + ": " + diff);
      else if (builds.empty())
        d.differences.push_back(name + ": same values, different layout");
    }
  } else if (ends_with(name, ".jsonl")) {
    const auto la = lines_of(ta), lb = lines_of(tb);
    for (size_t i = 0; i < std::max(la.size(), lb.size()); ++i) {
      if (i >= la.size() || i >= lb.size()) {
        d.differences.push_back(fmt::format("{}: {} lines vs {}", name, la.size(), lb.size()));
        break;
      }
      if (la[i] == lb[i]) continue;
      const std::string where = fmt::format("{} line {}", name, i + 1);
      const std::string diff = first_difference(parse_or_throw(la[i], pa), parse_or_throw(lb[i], pb), "", builds);
      if (!diff.empty()) {
        d.differences.push_back(where + ": " + diff);
        break;
      }
    }
  } else if (ta != tb) {
    const auto la = lines_of(ta), lb = lines_of(tb);
    size_t i = 0;
    while (i < la.size() && i < lb.size() && la[i] == lb[i]) ++i;
    const auto line = [](const std::vector<std::string>& v, size_t k) {
      return k < v.size() ? json(v[k].size() > 60 ? v[k].substr(0, 57) + "..." : v[k]).dump()
                          : std::string("end of file");
    };
    d.differences.push_back(fmt::format("{} line {}: {} vs {}", name, i + 1, line(la, i), line(lb, i)));
  }
  add_build_notes(name, builds, d);
}

std::set<std::string> files_below(const fs::path& root) {
  std::set<std::string> out;
  for (auto& e : fs::recursive_directory_iterator(root))
    if (e.is_regular_file()) out.insert(fs::relative(e.path(), root).generic_string());
  return out;
}

}  // namespace

TreeDiff diff_trees(const std::string& a, const std::string& b) {
  for (const auto& p : {a, b})
    if (!fs::exists(p)) throw IoError(fmt::format("{} does not exist", p));
  TreeDiff d;
  if (!fs::is_directory(a) && !fs::is_directory(b)) {
    diff_files(fs::path(a).filename().string(), a, b, d);
    return d;
  }
  if (fs::is_directory(a) != fs::is_directory(b))
    throw UsageError(fmt::format("diff: {} and {} must both be directories or both files", a, b));
  const auto fa = files_below(a), fb = files_below(b);
  for (const auto& f : fa)
    if (!fb.count(f)) d.differences.push_back(fmt::format("{}: only in {}", f, a));
  for (const auto& f : fb)
    if (!fa.count(f)) d.differences.push_back(fmt::format("{}: only in {}", f, b));
  for (const auto& f : fa)
    if (fb.count(f)) diff_files(f, (fs::path(a) / f).string(), (fs::path(b) / f).string(), d);
  return d;
}

}  // namespace pe
