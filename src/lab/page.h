// The laboratory's page: one self-contained HTML file (styles and script inline, no network) that
// draws the payload (lab/payload.h) it carries inline; src/lab/page.html is its template.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace pe::lab {

// JSON text that is safe inside any HTML script element (docs/lab.md, "What the page embeds and
// how"): `<`, `>`, `&`, U+2028 and U+2029 are written as the escapes \u003c, \u003e, \u0026, \u2028,
// \u2029, so no string in it can end the element, open a comment or a tag, or end a JavaScript line;
// JSON.parse reads back the same data. Strings that are not valid UTF-8 (a path given on the command
// line) carry U+FFFD in place of their bad bytes.
std::string script_json(const nlohmann::json& value);

// The page with the payload inlined, as script_json(payload) inside a script element.
std::string lab_page(const nlohmann::json& payload);

}  // namespace pe::lab
