#include "harness/interop.h"

#include <fmt/format.h>

#include <filesystem>
#include <regex>
#include <set>

#include "core/errors.h"
#include "core/files.h"
#include "core/safetensors.h"
#include "harness/checkpoint.h"
#include "harness/task.h"
#include "models/check_batch.h"
#include "schemes/rope_scaling.h"
#include "schemes/scheme.h"

namespace pe {

using nlohmann::json;

namespace {

// The last part of a pe-bench name: its kind. Linear maps ([in, out] in pe-bench) are transposed to
// nn.Linear's [out, in]; tables keep their rows; plain parameters keep their names.
struct Kind {
  const char* name;
  enum { Linear, Table, Plain } kind;
};
const Kind kKinds[] = {{"w_qkv", Kind::Linear},  {"w_proj", Kind::Linear},   {"w_out", Kind::Linear},
                       {"w_r", Kind::Linear},    {"w_kr", Kind::Linear},     {"w_qr", Kind::Linear},
                       {"u_q", Kind::Linear},    {"u_k", Kind::Linear},      {"tok_emb", Kind::Table},
                       {"table", Kind::Table},   {"t5_bias", Kind::Table},   {"shaw_rk", Kind::Table},
                       {"shaw_rv", Kind::Table}, {"deberta_p", Kind::Table}, {"tupe_p", Kind::Table},
                       {"txl_u", Kind::Plain},   {"txl_v", Kind::Plain}};

json conventions() {
  return {{"linear_weights",
           "pe-bench computes x W with W [in, out]; the exported weight is W transposed, [out, in], "
           "as nn.Linear keeps it (y = x weight^T)"},
          {"tables", "embedding and position tables keep their rows: [rows, dim] (nn.Embedding)"},
          {"qkv", "qkv.weight rows are [W_Q; W_K; W_V] outputs; heads are consecutive groups of head_dim"},
          {"rotary",
           "RoPE turns adjacent pairs (2j, 2j+1) by theta_j, theta_j = base^(-2j/head_dim) unless "
           "frequency_plan.theta gives them; split-half implementations must permute the head's "
           "channels to [0, 2, 4, ..., 1, 3, 5, ...]"},
          {"sinusoidal", "the sinusoidal code interleaves: p[2j] = sin(m theta_j), p[2j+1] = cos(m theta_j)"},
          {"txl_age_code",
           "Transformer-XL's age code interleaves sin and cos the same way (the original puts all "
           "sines first): permute w_r's input columns to convert"},
          {"tied_output", "the char LM's logits are h tok_emb.weight^T (the output is tied to the embedding)"}};
}

}  // namespace

void add_rope_scaling(json& into, const std::string& map, double kappa, int train_len, int head_dim, double base) {
  const MapSpec spec = parse_map(map);  // the map a checkpoint recorded
  if (!has_rope_type(spec)) {
    into["rope_scaling_note"] = fmt::format(
        "map '{}' has no Transformers rope_type; frequency_plan.theta and "
        "logit_scale give its frequencies and content scale",
        map);
    return;
  }
  if (spec.map->rebase) into["rope_theta"] = spec.value;
  into["rope_scaling"] = rope_scaling_dict(spec, kappa, train_len, head_dim, base);
}

namespace {

std::vector<float> transpose(const std::vector<float>& v, int rows, int cols) {
  std::vector<float> t(v.size());
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) t[size_t(c) * rows + r] = v[size_t(r) * cols + c];
  return t;
}

}  // namespace

TorchTensorName torch_tensor_name(const std::string& pe_name) {
  static const std::regex block(R"(^block(\d+)\.(.+)$)"), layer(R"(^pos\.layer(\d+)\.(.+)$)");
  std::smatch m;
  std::string prefix, last = pe_name;
  if (std::regex_match(pe_name, m, block)) {
    prefix = "blocks." + m[1].str() + ".attn.", last = m[2];
  } else if (std::regex_match(pe_name, m, layer)) {
    prefix = "pos.layers." + m[1].str() + ".", last = m[2];
  } else if (pe_name.rfind("pos.", 0) == 0) {
    prefix = "pos.", last = pe_name.substr(4);
  } else if (pe_name == "w_qkv") {
    prefix = "attn.";
  }
  for (auto& k : kKinds)
    if (last == k.name) {
      std::string base = last == "w_qkv" ? "qkv" : last == "w_proj" ? "proj" : last == "w_out" ? "readout" : last;
      return {prefix + base + (k.kind == Kind::Plain ? "" : ".weight"), k.kind == Kind::Linear};
    }
  throw DataError(
      fmt::format("tensor '{}' has no PyTorch name in pe-bench's conversion table (harness/interop.cpp)", pe_name));
}

void check_checkpoint_file(const std::string& path) {
  CheckpointReader reader(path, "");
  const json& task = reader.json_().at("task");
  if (!task.is_string() || !task_exists(task.get<std::string>()))
    throw reader.fail(fmt::format("task {} is not one pe-bench knows ({})", task.dump(), known_tasks()));
  find_task(task.get<std::string>()).reader().check_checkpoint(path);
}

// Every scheme's declared defaults, {scheme: {key: default}}: what a hybrid layer's entry leaves out
// (python/pebench_torch/schemes/hybrid.py reads them here instead of restating the registry).
static json scheme_defaults() {
  json out = json::object();
  for (auto& s : scheme_list()) {
    json keys = json::object();
    for (auto& k : s.keys) keys[k.key] = k.default_value;
    out[s.name] = keys;
  }
  return out;
}

ExportedModel export_checkpoint(const std::string& path) {
  // read as eval and sample read it, first: every tensor against the model's layout, only finite numbers
  check_checkpoint_file(path);
  CheckpointReader reader(path, "");
  const json& cp = reader.json_();
  std::vector<NamedTensor> tensors;
  json table = json::array();
  for (auto& p : cp.at("params")) {
    const std::string name = p.at("name");
    const auto shape = p.at("shape").get<std::vector<int>>();
    if (shape.size() != 2) throw reader.fail(fmt::format("parameter '{}' is not a matrix", name));
    std::vector<float> data;
    for (auto& x : p.at("data")) data.push_back(float(x.get<double>()));
    const TorchTensorName t = torch_tensor_name(name);
    NamedTensor nt{t.name, {shape[0], shape[1]}, data};
    if (t.transposed) nt.shape = {shape[1], shape[0]}, nt.data = transpose(data, shape[0], shape[1]);
    table.push_back({{"pe_bench", name},
                     {"torch", t.name},
                     {"pe_bench_shape", shape},
                     {"torch_shape", nt.shape},
                     {"transposed", t.transposed}});
    tensors.push_back(std::move(nt));
  }
  json meta = cp;
  meta.erase("params");
  const json& scheme = cp.at("scheme");
  const json& model = cp.at("model");
  json config = {{"model_type", "pe_bench"},
                 {"pe_bench_task", cp.at("task")},
                 {"position_scheme", scheme.at("name")},
                 {"hidden_size", scheme.at("d_model")},
                 {"num_attention_heads", scheme.at("n_heads")},
                 {"head_dim", scheme.at("d_head")},
                 {"num_hidden_layers", model.value("n_layers", 1)},
                 {"tensors", table},
                 {"conventions", conventions()},
                 {"scheme_defaults", scheme_defaults()},
                 {"pe_bench_checkpoint", meta}};
  if (model.contains("vocab")) config["vocab_size"] = model["vocab"];
  if (scheme.contains("base")) config["rope_theta"] = scheme["base"];
  const json& training = cp.at("training");
  if (training.contains("train_length")) config["max_position_embeddings"] = training["train_length"];
  if (cp.contains("frequency_plan")) {
    const json& fp = cp["frequency_plan"];
    config["frequency_plan"] = fp;
    add_rope_scaling(config, fp.at("map"), fp.at("read_length").get<double>() / fp.at("train_length").get<double>(),
                     fp.at("train_length"), scheme.at("d_head"), scheme.value("base", 10000.0));
  }
  return {safetensors_bytes(tensors, {{"format", "pt"}, {"producer", "pe-bench export"}}), config.dump(2) + "\n"};
}

ExportedCheck export_check(const CheckBatch& c) {
  std::vector<NamedTensor> tensors{{"logits", c.logits_shape, c.logits}};
  json names = json::object();
  for (auto& g : c.grads) {
    const TorchTensorName t = torch_tensor_name(g.name);
    const int rows = int(g.shape[0]), cols = int(g.shape[1]);
    if (t.transposed)
      tensors.push_back({"grad." + t.name, {cols, rows}, transpose(g.data, rows, cols)});
    else
      tensors.push_back({"grad." + t.name, g.shape, g.data});
    names[t.name] = g.name;
  }
  json j = {{"batch", c.B},
            {"length", c.T},
            {"positions", "0 .. length-1"},
            {"tokens", c.tokens},
            {"targets", c.targets},
            {"loss", c.loss},
            {"loss_is",
             "the mean cross-entropy over the targets; grad.<name> is its gradient (float32, pe-bench's "
             "hand-written backward)"},
            {"logits_shape", c.logits_shape},
            {"reading", c.reading},
            {"tensors", names}};
  const auto floats = [](const std::vector<int>& v) { return std::vector<float>(v.begin(), v.end()); };
  if (!c.at.pos.empty()) {  // a batch mode's coordinates (the default batch states none: the same bytes as before)
    tensors.push_back({"positions", {c.B, c.T}, floats(c.at.pos)});
    tensors.push_back({"documents", {c.B, c.T}, floats(c.at.doc)});
    j["positions"] = c.at.pos;
    j["documents"] = c.at.doc;
    j["loss_is"] =
        "the mean cross-entropy over the scored targets (every token but PAD ones, document -1); grad.<name> is its "
        "gradient (float32, pe-bench's hand-written backward)";
    j["coordinates"] = {{"mode", c.at.mode},
                        {"what", check_mode(c.at.mode).what},
                        {"visibility", c.at.visibility_json()},
                        {"positions",
                         "each token's position, [batch, length] flattened as tokens; check.safetensors 'positions' "
                         "holds them as [batch, length] (F32, whole numbers)"},
                        {"documents",
                         "each token's document, the same layout ('documents' in check.safetensors): a query sees keys "
                         "of its own document only; -1 a PAD token: seen by no query, sees no key, not scored"}};
  }
  if (!c.at.query_rows.empty()) {  // a head read at a row of each sequence's own (positions 0 .. length-1)
    tensors.push_back({"query_rows", {c.B}, floats(c.at.query_rows)});
    j["query_rows"] = c.at.query_rows;
    j["coordinates"] = {{"mode", c.at.mode},
                        {"what", check_mode(c.at.mode).what},
                        {"visibility", c.at.visibility_json()},
                        {"query_rows",
                         "each sequence's query row, [batch]: the head reads there (its query token, at position = "
                         "row) and sees the keys of its visibility (causal: rows up to it; bidirectional: every "
                         "row); logits [batch, classes] are read there; check.safetensors 'query_rows' holds them "
                         "as [batch] (F32, whole numbers)"}};
  }
  if (c.reading.contains("frequency_plan")) {
    const json& fp = c.reading["frequency_plan"];
    add_rope_scaling(j["reading"], c.reading.at("map"),
                     fp.at("read_length").get<double>() / c.reading.at("train_length").get<double>(),
                     c.reading.at("train_length"), c.reading.at("head_dim"), c.reading.at("base"));
  }
  return {safetensors_bytes(tensors, {{"format", "pt"}, {"producer", "pe-bench export --check"}}), j.dump(2) + "\n"};
}

void import_checkpoint(const std::string& dir, const std::string& out) {
  namespace fs = std::filesystem;
  const std::string config_path = (fs::path(dir) / "config.json").string(),
                    tensors_path = (fs::path(dir) / "model.safetensors").string();
  const auto fail = [](const std::string& file, const std::string& why) {
    return DataError(fmt::format("import: {}: {}", file, why));
  };
  for (auto& p : {config_path, tensors_path})
    if (!fs::is_regular_file(p))
      throw DataError(fmt::format("import: {} is missing; --from names a directory that `pe-bench export` wrote", p));
  json config;
  try {
    config = parse_json(read_file(config_path));
  } catch (const json::exception& e) {
    throw fail(config_path, fmt::format("not JSON ({})", e.what()));
  }
  if (!config.is_object() || !config.contains("pe_bench_checkpoint") || !config.contains("tensors"))
    throw fail(config_path,
               "no pe_bench_checkpoint and tensors fields; write it with `pe-bench export` (a PyTorch "
               "model needs the config.json of the export it came from)");
  if (!config["pe_bench_checkpoint"].is_object() || config["pe_bench_checkpoint"].empty())
    throw fail(config_path, fmt::format("pe_bench_checkpoint is {}, not the checkpoint's fields (an object)",
                                        config["pe_bench_checkpoint"].dump().substr(0, 60)));
  if (!config["tensors"].is_array()) throw fail(config_path, "tensors is not a list");
  const SafetensorsFile file = parse_safetensors(read_file(tensors_path), tensors_path);
  json cp = config["pe_bench_checkpoint"];
  json params = json::array();
  std::set<std::string> pe_names, torch_names;
  size_t i = 0;
  for (auto& t : config["tensors"]) {
    const std::string at = fmt::format("tensors[{}]", i++);
    if (!t.is_object() || !t.contains("pe_bench") || !t["pe_bench"].is_string() || !t.contains("torch") ||
        !t["torch"].is_string() || !t.contains("transposed") || !t["transposed"].is_boolean() ||
        !t.contains("pe_bench_shape"))
      throw fail(config_path, fmt::format("{} needs pe_bench and torch (names), pe_bench_shape and transposed", at));
    const std::string pe_name = t["pe_bench"], torch_name = t["torch"];
    const bool transposed = t["transposed"];
    const json& js = t["pe_bench_shape"];
    if (!js.is_array() || js.size() != 2 || !js[0].is_number_unsigned() || !js[1].is_number_unsigned() ||
        js[0].get<uint64_t>() < 1 || js[1].get<uint64_t>() < 1 || js[0].get<uint64_t>() > (1u << 20) ||
        js[1].get<uint64_t>() > (1u << 20))
      throw fail(config_path, fmt::format("{}.pe_bench_shape is {}, not [rows, columns] of 1 to 1048576 each", at,
                                          js.dump().substr(0, 60)));
    const std::vector<int> shape = {js[0].get<int>(), js[1].get<int>()};
    // the conversion is pe-bench's table, not the file's word: a swapped name or a flipped flag is refused
    TorchTensorName expected;
    try {
      expected = torch_tensor_name(pe_name);
    } catch (const DataError& e) {
      throw fail(config_path, fmt::format("{}: {}", at, e.what()));
    }
    if (expected.name != torch_name || expected.transposed != transposed)
      throw fail(config_path,
                 fmt::format("{} pairs '{}' with '{}' (transposed {}), but pe-bench's '{}' is '{}' "
                             "(transposed {}); write config.json with `pe-bench export`",
                             at, pe_name, torch_name, transposed, pe_name, expected.name, expected.transposed));
    if (!pe_names.insert(pe_name).second)
      throw fail(config_path, fmt::format("{} names '{}' a second time", at, pe_name));
    if (!torch_names.insert(torch_name).second)
      throw fail(config_path, fmt::format("{} reads tensor '{}' a second time", at, torch_name));
    const NamedTensor* x = file.find(torch_name);
    if (!x) throw fail(tensors_path, fmt::format("tensor '{}' ({} in pe-bench) is missing", torch_name, pe_name));
    const std::vector<int64_t> want =
        transposed ? std::vector<int64_t>{shape[1], shape[0]} : std::vector<int64_t>{shape[0], shape[1]};
    if (x->shape != want)
      throw fail(tensors_path, fmt::format("tensor '{}' has shape {} but the model needs {}", torch_name,
                                           json(x->shape).dump(), json(want).dump()));
    const std::vector<float> values = transposed ? transpose(x->data, shape[1], shape[0]) : x->data;
    json data = json::array();
    for (float f : values) {
      if (!std::isfinite(f))
        throw fail(tensors_path, fmt::format("tensor '{}' holds a value that is not finite", torch_name));
      data.push_back(shortest_float(f));
    }
    params.push_back({{"name", pe_name}, {"shape", shape}, {"data", std::move(data)}});
  }
  for (auto& x : file.tensors)
    if (!torch_names.count(x.name))
      throw fail(tensors_path, fmt::format("tensor '{}' is not part of the model config.json describes", x.name));
  cp["params"] = params;
  // the checkpoint is read back as eval reads it before it is put in place
  write_file_checked(out, checkpoint_text(cp), [&](const std::string& written) {
    try {
      check_checkpoint_file(written);
    } catch (const CheckpointError& e) {
      throw fail(config_path, fmt::format("the checkpoint it describes would not read: {} (nothing was written)",
                                          e.why.empty() ? e.what() : e.why));
    } catch (const Error& e) {
      throw fail(config_path,
                 fmt::format("the checkpoint it describes would not read: {} (nothing was written)", e.what()));
    }
  });
}

}  // namespace pe
