#include "core/safetensors.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <functional>

#include <nlohmann/json.hpp>

#include "core/errors.h"
#include "core/files.h"

namespace pe {

using nlohmann::json;

namespace {
static_assert(sizeof(float) == 4, "F32 is a 4-byte float");

void put_u64(std::string& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(char((v >> (8 * i)) & 0xff));
}
uint64_t get_u64(const std::string& in) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | uint64_t(uint8_t(in[size_t(i)]));
  return v;
}
void put_f32(std::string& out, float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  for (int i = 0; i < 4; ++i) out.push_back(char((u >> (8 * i)) & 0xff));
}
float get_f32(const char* p) {
  uint32_t u = 0;
  for (int i = 3; i >= 0; --i) u = (u << 8) | uint32_t(uint8_t(p[i]));
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
// The number of elements of a shape read from a file, or -1 when it exceeds `limit` (checked before
// each product, so no product of the file's dimensions can overflow).
int64_t bounded_elements(const std::vector<int64_t>& shape, int64_t limit) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d == 0) return 0;
    if (d > limit || n > limit / d) return -1;
    n *= d;
  }
  return n;
}
// A JSON array of non-negative integers (a shape, data offsets): a fraction, a sign or a string is
// refused, never truncated.
std::vector<int64_t> whole_numbers(const json& j, const char* what,
                                   const std::function<DataError(const std::string&)>& fail) {
  if (!j.is_array()) throw fail(fmt::format("its {} is not a list of whole numbers", what));
  std::vector<int64_t> out;
  for (auto& x : j) {
    if (!x.is_number_integer() || (!x.is_number_unsigned() && x.get<int64_t>() < 0))
      throw fail(fmt::format("its {} holds {}, not a non-negative whole number", what, x.dump()));
    const uint64_t u = x.get<uint64_t>();
    if (u > uint64_t(INT64_MAX)) throw fail(fmt::format("its {} holds {}, past any file", what, x.dump()));
    out.push_back(int64_t(u));
  }
  return out;
}
}  // namespace

std::string safetensors_bytes(const std::vector<NamedTensor>& tensors,
                              const std::map<std::string, std::string>& metadata) {
  // the header: an ordered JSON object (nlohmann's sorts keys; offsets say where each tensor lies)
  json header = json::object();
  uint64_t at = 0;
  for (auto& t : tensors) {
    const uint64_t bytes = uint64_t(t.data.size()) * 4;
    header[t.name] = {{"dtype", "F32"}, {"shape", t.shape}, {"data_offsets", {at, at + bytes}}};
    at += bytes;
  }
  if (!metadata.empty()) header["__metadata__"] = metadata;
  std::string text = header.dump();
  while (text.size() % 8 != 0) text.push_back(' ');
  std::string out;
  out.reserve(8 + text.size() + at);
  put_u64(out, text.size());
  out += text;
  for (auto& t : tensors)
    for (float f : t.data) put_f32(out, f);
  return out;
}

const NamedTensor* SafetensorsFile::find(const std::string& name) const {
  for (auto& t : tensors)
    if (t.name == name) return &t;
  return nullptr;
}

SafetensorsFile parse_safetensors(const std::string& bytes, const std::string& path) {
  const auto fail = [&](const std::string& why) {
    return DataError(fmt::format("{} is not a readable safetensors file: {}", path, why));
  };
  if (bytes.size() < 8) throw fail("shorter than its 8-byte header length");
  const uint64_t n = get_u64(bytes);
  if (n > bytes.size() - 8) throw fail(fmt::format("its header length {} runs past the end of the file", n));
  const std::string header_text = bytes.substr(8, size_t(n));
  // the header is JSON padded with spaces (the format's rule); a NUL or other padding is refused
  if (header_text.find('\0') != std::string::npos) throw fail("its header holds a NUL byte");
  json header;
  try {
    header = parse_json(header_text);  // a tensor named twice is refused here (duplicate key)
  } catch (const json::exception& e) {
    throw fail(fmt::format("its header is not JSON ({})", e.what()));
  }
  if (!header.is_object()) throw fail("its header is not a JSON object");
  const size_t base = 8 + size_t(n), data_bytes = bytes.size() - base;
  SafetensorsFile f;
  std::vector<std::pair<uint64_t, uint64_t>> spans;
  for (auto& [name, spec] : header.items()) {
    if (name == "__metadata__") {
      if (!spec.is_object()) throw fail("__metadata__ is not an object of strings");
      for (auto& [k, v] : spec.items()) {
        if (!v.is_string()) throw fail(fmt::format("__metadata__.{} is not a string", k));
        f.metadata[k] = v.get<std::string>();
      }
      continue;
    }
    const auto tensor_fail = [&](const std::string& why) { return fail(fmt::format("tensor '{}': {}", name, why)); };
    try {
      if (!spec.is_object()) throw tensor_fail("its description is not an object");
      const std::string dtype = spec.at("dtype");
      if (dtype != "F32")
        throw DataError(
            fmt::format("{}: tensor '{}' has dtype {}; pe-bench reads F32 only (convert it with "
                        "tensor.float() before saving)",
                        path, name, dtype));
      NamedTensor t;
      t.name = name;
      t.shape = whole_numbers(spec.at("shape"), "shape", tensor_fail);
      const auto off = whole_numbers(spec.at("data_offsets"), "data_offsets", tensor_fail);
      if (off.size() != 2 || off[0] > off[1] || uint64_t(off[1]) > data_bytes)
        throw fail(fmt::format("tensor '{}' has data offsets outside the data", name));
      // bounded by the data there is: a shape whose product passes it is refused before it is multiplied out
      const int64_t count = bounded_elements(t.shape, int64_t(data_bytes / 4));
      if (count < 0 || uint64_t(off[1] - off[0]) != uint64_t(count) * 4)
        throw fail(fmt::format("tensor '{}' holds {} bytes, its shape {} needs {}", name, off[1] - off[0],
                               json(t.shape).dump(),
                               count < 0 ? "more than the file holds" : std::to_string(count * 4)));
      t.data.resize(size_t(count));
      for (size_t i = 0; i < t.data.size(); ++i) t.data[i] = get_f32(bytes.data() + base + off[0] + 4 * i);
      spans.push_back({uint64_t(off[0]), uint64_t(off[1])});
      f.tensors.push_back(std::move(t));
    } catch (const json::exception& e) {
      throw fail(fmt::format("tensor '{}' is described wrongly ({})", name, e.what()));
    }
  }
  // the data offsets must tile the data: no overlap, no gap
  std::vector<size_t> order(f.tensors.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return spans[a] < spans[b]; });
  uint64_t at = 0;
  for (size_t i : order) {
    if (spans[i].first != at)
      throw fail(fmt::format("tensor '{}' does not start where the one before it ends", f.tensors[i].name));
    at = spans[i].second;
  }
  if (at != data_bytes) throw fail(fmt::format("{} bytes of data follow the last tensor", data_bytes - at));
  std::vector<NamedTensor> sorted;
  for (size_t i : order) sorted.push_back(std::move(f.tensors[i]));
  f.tensors = std::move(sorted);
  return f;
}

}  // namespace pe
