#include "tasks/cue/checkpoint.h"

namespace pe {

using nlohmann::json;

json make_checkpoint(const CueHead<float>& model, const json& training, const std::string& task) {
  return checkpoint_envelope(task, model.config().to_json(), model.config().scheme, training, model.layout(),
                             model.params().data());
}

LoadedCheckpoint load_checkpoint(const std::string& path, const std::string& task) {
  CheckpointReader r(path, task);
  return r.fields([&] {
    CueModelConfig cfg;
    const json& m = r.json_().at("model");
    cfg.task.alphabet = m.at("alphabet");
    cfg.task.query_token = m.value("query_token", true);
    // a head without a query token reads documents, not the random cue stream: no mark_prob
    cfg.task.mark_prob = cfg.task.query_token ? m.at("mark_prob").get<double>() : 0.0;
    cfg.d_model = m.at("d_model");
    cfg.embed_init_std = m.at("embed_init_std");
    cfg.scheme = r.scheme();
    LoadedCheckpoint out;
    out.model = std::make_unique<CueHead<float>>(cfg);
    r.params(out.model->layout(), out.model->params().data());
    out.meta = r.meta();
    out.path = path;
    return out;
  });
}

}  // namespace pe
