#include "harness/checkpoint.h"

#include <fmt/format.h>

#include "core/errors.h"
#include "core/files.h"
#include "core/build_info.h"

#include <cmath>
#include <algorithm>
#include <filesystem>
#include <functional>
#include <set>

namespace pe {

using nlohmann::json;

// The scheme section: its name and shape, the five published schemes' settings (every checkpoint
// has carried them), and the settings the scheme declares itself (none for those five, so their
// checkpoints keep their bytes).
const std::set<std::string> kSchemeSection = {"name", "d_model", "n_heads", "d_head", "base", "learned_rows",
                                               "learned_init_std", "alibi_slopes", "rotary_fraction"};
json scheme_config_to_json(const SchemeConfig& c) {
  json j = {{"name", c.name},
          {"d_model", c.d_model},
          {"n_heads", c.n_heads},
          {"d_head", c.d_head},
          {"base", c.base},
          {"learned_rows", c.learned_rows},
          {"learned_init_std", c.learned_init_std},
          {"alibi_slopes", c.alibi_slopes},
          {"rotary_fraction", c.rotary_fraction}};
  SchemeConfig filled = c;
  fill_scheme_settings(filled);
  for (auto& [k, v] : filled.settings.items()) j[k] = v;
  return j;
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
  // everything else is a setting the scheme declares (a missing one takes its default)
  for (auto& [k, v] : j.items())
    if (!kSchemeSection.count(k)) c.settings[k] = v;
  return c;
}

namespace {

// Every tensor of a layout by name, with shape and row-major data.
json params_json(const ParamLayout& layout, const float* values) {
  json params = json::array();
  for (auto& t : layout.tensors()) {
    json data = json::array();
    const float* p = values + t.offset;
    for (size_t i = 0; i < t.size(); ++i) data.push_back(shortest_float(p[i]));
    params.push_back({{"name", t.name}, {"shape", {t.rows, t.cols}}, {"data", std::move(data)}});
  }
  return params;
}

using FailFn = std::function<CheckpointError(const std::string&)>;

// Fills dst (laid out by `layout`) from a checkpoint's params array; every tensor must be there
// with its shape and only numbers.
void read_params(const json& params, const ParamLayout& layout, float* values, const FailFn& fail) {
  if (params.size() != layout.tensors().size())
    throw fail(fmt::format("{} parameter tensors but the model has {}", params.size(), layout.tensors().size()));
  for (auto& t : layout.tensors()) {
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
    float* dst = values + t.offset;
    for (size_t i = 0; i < t.size(); ++i) {
      if (!data[i].is_number()) throw fail(fmt::format("parameter '{}' value {} is not a number", t.name, i));
      dst[i] = float(data[i].get<double>());
    }
  }
}

FailFn failure_for(const std::string& path) {
  return [path](const std::string& why) {
    return CheckpointError(
        fmt::format("checkpoint {}: {}; retrain it with `pe-bench train` or pass another file", path, why));
  };
}

// Reads and parses a checkpoint file and checks its format, version and task.
json read_checkpoint_json(const std::string& path, const std::string& task) {
  const FailFn fail = failure_for(path);
  if (!file_exists(path)) throw CheckpointError(fmt::format("checkpoint {} not found; train one with `pe-bench train` first", path));
  json j;
  try {
    j = json::parse(read_file(path));
  } catch (const json::parse_error& e) {
    throw fail(fmt::format("not valid JSON ({})", e.what()));
  }
  if (!j.is_object() || j.value("format", "") != kCheckpointFormat) throw fail("not a pe-bench checkpoint (format field missing or different)");
  if (!j.contains("version") || !j["version"].is_number_integer()) throw fail("no format version");
  const int version = j.at("version");
  if (version != kCheckpointVersion)
    throw fail(fmt::format("format version {} but this pe-bench reads version {}", version, kCheckpointVersion));
  const json t = j.value("task", json());
  if (!task.empty() && t != task)
    throw fail(fmt::format("it holds a model of task {}, not {}", t.dump(), task));
  return j;
}

// Runs `read` over a parsed checkpoint. A missing or mistyped field (json) or a setting the scheme
// code refuses (UsageError) becomes one CheckpointError that names the file.
template <class F>
auto read_fields(const FailFn& fail, F&& read) {
  try {
    return read();
  } catch (const json::exception& e) {
    throw fail(fmt::format("malformed ({})", e.what()));
  } catch (const UsageError& e) {
    throw fail(e.what());
  }
}

SchemeConfig read_scheme(const json& j, const FailFn& fail) {
  SchemeConfig s = scheme_config_from_json(j.at("scheme"));
  if (!scheme_exists(s.name)) throw fail(fmt::format("unknown scheme '{}'", s.name));
  return s;
}

}  // namespace

json make_checkpoint(const CueHead<float>& model, const json& training) {
  return {{"format", kCheckpointFormat},
          {"version", kCheckpointVersion},
          {"task", "cue"},
          {"model", model.config().to_json()},
          {"scheme", scheme_config_to_json(model.config().scheme)},
          {"training", training},
          {"build", build_info_json()},
          {"params", params_json(model.layout(), model.params().data())}};
}

json make_charlm_checkpoint(const CharLM<float>& model, const std::vector<std::string>& vocab, const json& training,
                            const json& frequency_plan) {
  const CharLMConfig& c = model.config();
  json cp = {{"format", kCheckpointFormat},
             {"version", kCheckpointVersion},
             {"task", "charlm"},
             {"model",
              {{"vocab", c.vocab},
               {"d_model", c.d_model},
               {"n_heads", c.n_heads},
               {"n_layers", c.n_layers},
               {"embed_init_std", c.embed_init_std}}},
             {"scheme", scheme_config_to_json(c.scheme)},
             {"vocab", vocab},
             {"training", training},
             {"build", build_info_json()}};
  if (!frequency_plan.is_null()) cp["frequency_plan"] = frequency_plan;
  cp["params"] = params_json(model.layout(), model.params().data());
  return cp;
}

std::string checkpoint_task(const std::string& path) {
  const json j = read_checkpoint_json(path, "");
  if (!j.contains("task") || !j["task"].is_string()) throw failure_for(path)("no task field");
  return j["task"];
}

LoadedCharLM load_charlm_checkpoint(const std::string& path) {
  const FailFn fail = failure_for(path);
  json j = read_checkpoint_json(path, "charlm");
  return read_fields(fail, [&] {
    CharLMConfig cfg;
    const json& m = j.at("model");
    cfg.vocab = m.at("vocab");
    cfg.d_model = m.at("d_model");
    cfg.n_heads = m.at("n_heads");
    cfg.n_layers = m.at("n_layers");
    cfg.embed_init_std = m.at("embed_init_std");
    if (cfg.vocab < 2 || cfg.d_model < 2 || cfg.n_heads < 1 || cfg.n_layers < 1 || cfg.d_model % cfg.n_heads)
      throw fail("model sizes do not make sense");
    cfg.scheme = read_scheme(j, fail);
    LoadedCharLM out;
    out.vocab = j.at("vocab").get<std::vector<std::string>>();
    if (int(out.vocab.size()) != cfg.vocab)
      throw fail(fmt::format("{} vocabulary entries but the model reads {}", out.vocab.size(), cfg.vocab));
    out.model = std::make_unique<CharLM<float>>(cfg);
    read_params(j.at("params"), out.model->layout(), out.model->params().data(), fail);
    j.erase("params");
    if (j.contains("frequency_plan")) {
      const json& fp = j["frequency_plan"];
      out.plan_map = fp.at("map");
      out.plan_train_length = fp.at("train_length");
      out.plan_read_length = fp.at("read_length");
      if (!out.model->scheme().accepts_frequency_plan()) throw fail("a frequency plan for a scheme without frequencies");
      FrequencyPlan plan = out.model->scheme().plan_for(out.plan_map, out.plan_train_length, out.plan_read_length);
      if (fp.contains("theta")) {  // the frequencies it was tuned with (older checkpoints: recomputed)
        const auto theta = fp.at("theta").get<std::vector<double>>();
        const double scale = fp.at("logit_scale").get<double>();
        if (theta.size() != plan.theta.size())
          throw fail(fmt::format("frequency_plan.theta has {} planes but the heads have {}", theta.size(), plan.theta.size()));
        for (double t : theta)
          if (!std::isfinite(t) || t < 0) throw fail("frequency_plan.theta holds a negative or non-finite frequency");
        if (!std::isfinite(scale) || !(scale > 0)) throw fail("frequency_plan.logit_scale must be a positive number");
        plan.theta = theta;
        plan.logit_scale = scale;
      }
      out.model->scheme().set_frequency_plan(std::move(plan));
    }
    out.meta = std::move(j);
    out.path = path;
    return out;
  });
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
  const FailFn fail = failure_for(path);
  json j = read_checkpoint_json(path, "cue");
  return read_fields(fail, [&] {
    CueModelConfig cfg;
    const json& m = j.at("model");
    cfg.task.alphabet = m.at("alphabet");
    cfg.task.mark_prob = m.at("mark_prob");
    cfg.d_model = m.at("d_model");
    cfg.embed_init_std = m.at("embed_init_std");
    cfg.scheme = read_scheme(j, fail);
    LoadedCheckpoint out;
    out.model = std::make_unique<CueHead<float>>(cfg);
    read_params(j.at("params"), out.model->layout(), out.model->params().data(), fail);
    j.erase("params");
    out.meta = std::move(j);
    out.path = path;
    return out;
  });
}

std::vector<std::string> find_checkpoints(const std::string& dir, const std::string& task) {
  namespace fs = std::filesystem;
  if (!fs::is_directory(dir))
    throw UsageError(fmt::format("runs directory {} not found; train first (pe-bench train) or pass --runs-dir", dir));
  std::vector<std::string> out;
  for (auto& entry : fs::recursive_directory_iterator(dir))
    if (entry.is_regular_file() && entry.path().filename() == "checkpoint.json") {
      const std::string path = entry.path().string();
      bool keep = true;
      if (!task.empty()) try {
          keep = checkpoint_task(path) == task;
        } catch (const CheckpointError&) {  // unreadable: kept, so loading it reports the problem
        }
      if (keep) out.push_back(path);
    }
  std::sort(out.begin(), out.end());
  if (out.empty())
    throw UsageError(fmt::format("no {}checkpoint.json under {}; train first (pe-bench train{})",
                                 task.empty() ? "" : task + " ", dir, task.empty() ? "" : " --task " + task));
  return out;
}

}  // namespace pe
