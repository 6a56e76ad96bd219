#include "experiments/checkpoint.h"

#include <fmt/format.h>

#include "core/errors.h"
#include "core/files.h"

namespace pe {

using nlohmann::json;

json scheme_config_to_json(const SchemeConfig& c) {
  return {{"name", c.name},
          {"d_model", c.d_model},
          {"n_heads", c.n_heads},
          {"d_head", c.d_head},
          {"base", c.base},
          {"learned_rows", c.learned_rows},
          {"learned_init_std", c.learned_init_std},
          {"alibi_slopes", c.alibi_slopes},
          {"rotary_fraction", c.rotary_fraction}};
}

SchemeConfig scheme_config_from_json(const json& j) {
  SchemeConfig c;
  c.name = j.at("name").get<std::string>();
  c.d_model = j.at("d_model");
  c.n_heads = j.at("n_heads");
  c.d_head = j.at("d_head");
  c.base = j.at("base");
  c.learned_rows = j.at("learned_rows");
  c.learned_init_std = j.at("learned_init_std");
  c.alibi_slopes = j.at("alibi_slopes").get<std::vector<double>>();
  c.rotary_fraction = j.at("rotary_fraction");
  return c;
}

json make_checkpoint(const CueHead<float>& model, const json& training) {
  json params = json::array();
  for (auto& t : model.layout().tensors()) {
    json data = json::array();
    const float* p = model.params().data() + t.offset;
    for (size_t i = 0; i < t.size(); ++i) data.push_back(shortest_float(p[i]));
    params.push_back({{"name", t.name}, {"shape", {t.rows, t.cols}}, {"data", std::move(data)}});
  }
  return {{"format", kCheckpointFormat},
          {"version", kCheckpointVersion},
          {"task", "cue"},
          {"model", model.config().to_json()},
          {"scheme", scheme_config_to_json(model.config().scheme)},
          {"training", training},
          {"params", std::move(params)}};
}

std::string checkpoint_text(const json& cp) {
  json head = cp;
  head.erase("params");
  std::string text = head.dump(2);
  text.resize(text.size() - 2);  // "\n}"
  text += ",\n  \"params\": [";
  bool first = true;
  for (auto& p : cp.at("params")) {
    text += fmt::format("{}\n    {{\"name\": {}, \"shape\": {},\n     \"data\": {}}}", first ? "" : ",",
                        p.at("name").dump(), p.at("shape").dump(), p.at("data").dump());
    first = false;
  }
  text += "\n  ]\n}\n";
  return text;
}

LoadedCheckpoint load_checkpoint(const std::string& path) {
  auto fail = [&](const std::string& why) {
    return CheckpointError(fmt::format("checkpoint {}: {}; retrain it with `pe-bench train` or pass another file", path, why));
  };
  if (!file_exists(path)) throw CheckpointError(fmt::format("checkpoint {} not found; train one with `pe-bench train` first", path));
  json j;
  try {
    j = json::parse(read_file(path));
  } catch (const json::parse_error& e) {
    throw fail(fmt::format("not valid JSON ({})", e.what()));
  }
  try {
    if (!j.is_object() || j.value("format", "") != kCheckpointFormat) throw fail("not a pe-bench checkpoint (format field missing or different)");
    const int version = j.at("version");
    if (version != kCheckpointVersion)
      throw fail(fmt::format("format version {} but this pe-bench reads version {}", version, kCheckpointVersion));
    if (j.at("task") != "cue") throw fail(fmt::format("task '{}' is not known", j.at("task").dump()));
    CueModelConfig cfg;
    const json& m = j.at("model");
    cfg.task.alphabet = m.at("alphabet");
    cfg.task.mark_prob = m.at("mark_prob");
    cfg.d_model = m.at("d_model");
    cfg.embed_init_std = m.at("embed_init_std");
    cfg.scheme = scheme_config_from_json(j.at("scheme"));
    if (!scheme_exists(cfg.scheme.name)) throw fail(fmt::format("unknown scheme '{}'", cfg.scheme.name));
    LoadedCheckpoint out;
    out.model = std::make_unique<CueHead<float>>(cfg);
    auto& model = *out.model;
    const json& params = j.at("params");
    if (params.size() != model.layout().tensors().size())
      throw fail(fmt::format("{} parameter tensors but the model has {}", params.size(), model.layout().tensors().size()));
    for (auto& t : model.layout().tensors()) {
      const json* found = nullptr;
      for (auto& p : params)
        if (p.at("name") == t.name) found = &p;
      if (!found) throw fail(fmt::format("parameter '{}' is missing", t.name));
      const auto shape = found->at("shape").get<std::vector<int>>();
      if (shape != std::vector<int>{t.rows, t.cols})
        throw fail(fmt::format("parameter '{}' has shape {} but the model expects [{}, {}]", t.name,
                               found->at("shape").dump(), t.rows, t.cols));
      const json& data = found->at("data");
      if (!data.is_array() || data.size() != t.size())
        throw fail(fmt::format("parameter '{}' holds {} values, expected {}", t.name, data.size(), t.size()));
      float* dst = model.params().data() + t.offset;
      for (size_t i = 0; i < t.size(); ++i) {
        if (!data[i].is_number()) throw fail(fmt::format("parameter '{}' value {} is not a number", t.name, i));
        dst[i] = float(data[i].get<double>());
      }
    }
    j.erase("params");
    out.meta = std::move(j);
    out.path = path;
    return out;
  } catch (const json::exception& e) {
    throw fail(fmt::format("malformed ({})", e.what()));
  } catch (const UsageError& e) {
    throw fail(e.what());
  }
}

}  // namespace pe
