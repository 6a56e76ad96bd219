// The laboratory's page: one self-contained HTML file (styles and script inline, no network) that
// draws the payload (lab/payload.h) it carries inline; src/lab/page.html is its template.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace pe::lab {

// The page with the payload inlined (as JSON inside a script element; "</" written "<\/").
std::string lab_page(const nlohmann::json& payload);

}  // namespace pe::lab
