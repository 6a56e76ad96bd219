// pe-bench schemes: list the positional schemes.
#include <fmt/format.h>

#include "cli/common.h"
#include "schemes/scheme.h"

namespace pe::cli {

void register_schemes(CLI::App& app) {
  auto* sub = app.add_subcommand("schemes", "List the positional schemes pe-bench implements");
  sub->callback([] {
    for (auto& s : scheme_list()) fmt::print("{:<12} {}\n", s.name, s.description);
  });
}

}  // namespace pe::cli
