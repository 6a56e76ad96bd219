#include "lab/page.h"

#include <stdexcept>

namespace pe::lab {

namespace {
const char* const kTemplate =
#include "lab_page.inc"
    ;
const std::string kSlot = "__PE_BENCH_LAB_PAYLOAD__";
}  // namespace

std::string script_json(const nlohmann::json& value) {
  // dump() writes these characters only inside strings (JSON's own syntax is ASCII without them),
  // where a \u escape means the same character
  const std::string text = value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string out;
  out.reserve(text.size() + text.size() / 32);
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '<') {
      out += "\\u003c";
    } else if (c == '>') {
      out += "\\u003e";
    } else if (c == '&') {
      out += "\\u0026";
    } else if (c == '\xE2' && i + 2 < text.size() && text[i + 1] == '\x80' &&
               (text[i + 2] == '\xA8' || text[i + 2] == '\xA9')) {
      out += text[i + 2] == '\xA8' ? "\\u2028" : "\\u2029";  // the line and paragraph separators
      i += 2;
    } else {
      out += c;
    }
  }
  return out;
}

std::string lab_page(const nlohmann::json& payload) {
  std::string page = kTemplate;
  const size_t slot = page.find(kSlot);
  if (slot == std::string::npos) throw std::logic_error("the laboratory's page template has no payload slot");
  page.replace(slot, kSlot.size(), script_json(payload));
  return page;
}

}  // namespace pe::lab
