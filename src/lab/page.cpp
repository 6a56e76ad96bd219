#include "lab/page.h"

#include <stdexcept>

namespace pe::lab {

namespace {
const char* const kTemplate =
#include "lab_page.inc"
    ;
const std::string kSlot = "__PE_BENCH_LAB_PAYLOAD__";
}  // namespace

std::string lab_page(const nlohmann::json& payload) {
  std::string data = payload.dump();
  for (size_t at = data.find("</"); at != std::string::npos; at = data.find("</", at + 3)) data.replace(at, 2, "<\\/");
  std::string page = kTemplate;
  const size_t slot = page.find(kSlot);
  if (slot == std::string::npos) throw std::logic_error("the laboratory's page template has no payload slot");
  page.replace(slot, kSlot.size(), data);
  return page;
}

}  // namespace pe::lab
