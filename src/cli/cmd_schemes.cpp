// pe-bench schemes: list the positional schemes; --json: each with its settings as the registry
// declares them (what tests/twin_check.py and the PyTorch twin read instead of restating them).
#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <nlohmann/json.hpp>

#include "cli/common.h"
#include "core/keys.h"
#include "schemes/scheme.h"

namespace pe::cli {

namespace {
// [{name, description, min_layers, positionless, settings: {key: {type, default, help, domain}}}], in
// the registry's order.
// The batch modes every scheme reads (docs/architecture.md, "The batch model").
const char* const kModes[] = {"causal",        "bidirectional", "prefix",      "packed-reset",
                              "packed-global", "pad-content",   "pad-storage", "decode"};

// What scheme s does with a key after its query (Scheme::later_keys), from the scheme itself.
std::string later_keys(const SchemeInfo& s) {
  SchemeConfig c;
  c.name = s.name, c.n_layers = s.min_layers, c.train_length = 64, c.bidirectional = true;
  return make_scheme<float>(c)->later_keys();
}

nlohmann::json schemes_json() {
  nlohmann::json out = nlohmann::json::array();
  for (auto& s : scheme_list()) {
    nlohmann::json settings = nlohmann::json::object();
    for (auto& k : s.keys)
      settings[k.key] = {
          {"type", type_name(k.type)}, {"default", k.default_value}, {"help", k.help}, {"domain", domain_of(k)}};
    out.push_back({{"name", s.name},
                   {"description", s.description},
                   {"min_layers", s.min_layers},
                   {"positionless", s.positionless},
                   {"modes", kModes},
                   {"later_keys", later_keys(s)},
                   {"settings", settings}});
  }
  return out;
}
}  // namespace

void register_schemes(CLI::App& app) {
  auto* sub = app.add_subcommand("schemes", "List the positional schemes pe-bench implements");
  auto json = std::make_shared<bool>(false);
  sub->add_flag("--json", *json,
                "print JSON instead: each scheme's name, description and settings (type, declared default, help, "
                "domain), in the registry's order");
  sub->callback([json] {
    if (*json) {
      fmt::print("{}\n", schemes_json().dump(2));
      return;
    }
    size_t w = 0;  // the names' column: the longest name
    for (auto& s : scheme_list()) w = std::max(w, s.name.size());
    for (auto& s : scheme_list()) fmt::print("{:<{}} {}\n", s.name, w, s.description);
    fmt::print(
        "\nEvery scheme reads every batch mode: {}.\nWith a key after the query (bidirectional and prefix "
        "visibility), each takes its encoder form (docs/schemes.md):\n",
        fmt::join(kModes, ", "));
    for (auto& s : scheme_list()) fmt::print("{:<{}} {}\n", s.name, w, later_keys(s));
  });
}

}  // namespace pe::cli
