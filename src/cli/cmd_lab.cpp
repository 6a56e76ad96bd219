// pe-bench lab: the laboratory — the article's two interactive figures as one self-contained page,
// drawn from pe-bench's own results (lab/payload.h gathers the numbers, lab/page.h the page).
#include <fmt/format.h>

#include "cli/common.h"
#include "core/files.h"
#include "lab/page.h"
#include "lab/payload.h"

namespace pe::cli {

void register_lab(CLI::App& app) {
  struct Opts {
    std::string results = "results", out = "results/lab";
    bool quiet = false;
  };
  auto o = std::make_shared<Opts>();
  auto* sub = app.add_subcommand(
      "lab",
      "Write the laboratory, a page to open in a browser: the geometry (the sinusoidal clocks, the ruler, a trained "
      "head's drift) and the training (every tournament head's score against offset, accuracy by length, the "
      "wavelength census, the laboratory's filing read by every head). Writes <out>/index.html (self-contained: opens "
      "from the file system, no network) and <out>/lab.json (the numbers it draws). Reads <results>/theory.json, "
      "<results>/tournament/ (results.json and the runs) and <results>/filings/lab_filing.json: run `make run` and "
      "`make filings` first on a fresh results directory. Every key read from them is checked (docs/lab.md): a "
      "missing or wrong one is one error line naming the file and the key (exit 4), and nothing is written");
  sub->add_option("--results", o->results, "the results directory to read")->capture_default_str();
  sub->add_option("--out", o->out, "directory to write index.html and lab.json into (together, atomically)")
      ->capture_default_str();
  sub->add_flag("--quiet", o->quiet, "no progress line");
  sub->callback([o] {
    const nlohmann::json payload = lab::lab_payload(lab::LabSources::in(o->results), !o->quiet);
    const std::string page = lab::lab_page(payload);
    // lab.json as the page's payload: a path that is not valid UTF-8 carries U+FFFD in both
    const std::string data = payload.dump(1, ' ', false, nlohmann::json::error_handler_t::replace);
    write_file_set(o->out, {{"index.html", page}, {"lab.json", data + "\n"}});
    fmt::print(
        "wrote {}/index.html ({} KB, the payload inline) and {}/lab.json: {} score curves, {} readers of the "
        "filing; open the page in a browser\n",
        o->out, (page.size() + 1023) / 1024, o->out, payload["scores"]["readers"].size(),
        payload["filing"]["readers"].size());
  });
}

}  // namespace pe::cli
