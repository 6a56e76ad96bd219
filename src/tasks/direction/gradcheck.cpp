#include "tasks/direction/gradcheck.h"

#include "tasks/cue/gradcheck.h"
#include "tasks/direction/data.h"

namespace pe {

std::vector<GradCheckRow> gradcheck_direction(const std::string& scheme) {
  if (scheme_info(scheme).min_layers > 1) return {};  // one head, one layer
  std::vector<GradCheckRow> rows;
  for (const char* rule : {"before", "nearest"}) {
    CueModelConfig cfg;
    cfg.task.alphabet = 4;
    cfg.task.mark_prob = 0.4;  // several marks on each side
    cfg.task.rule = rule;
    cfg.d_model = 8;
    cfg.scheme.name = scheme;
    cfg.scheme.train_length = 10;
    cfg.scheme.bidirectional = true;
    const CueBatch batch = direction_train_batch(cfg.task, 11, 0, 3, 9);
    for (GradCheckRow& r : gradcheck_head(std::string("direction ") + rule + "/" + scheme, cfg, batch)) {
      r.mode = "bidirectional";
      rows.push_back(std::move(r));
    }
  }
  return rows;
}

}  // namespace pe
