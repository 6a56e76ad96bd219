#include "harness/interop.h"

#include <fmt/format.h>

#include <filesystem>
#include <regex>
#include <set>

#include "core/errors.h"
#include "core/files.h"
#include "core/keys.h"
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
const Kind kKinds[] = {
    {"w_qkv", Kind::Linear},  {"w_proj", Kind::Linear},   {"w_out", Kind::Linear},    {"w_r", Kind::Linear},
    {"w_kr", Kind::Linear},   {"w_qr", Kind::Linear},     {"u_q", Kind::Linear},      {"u_k", Kind::Linear},
    {"tok_emb", Kind::Table}, {"table", Kind::Table},     {"t5_bias", Kind::Table},   {"shaw_rk", Kind::Table},
    {"shaw_rv", Kind::Table}, {"deberta_p", Kind::Table}, {"tupe_p", Kind::Table},    {"cope_e", Kind::Table},
    {"txl_u", Kind::Plain},   {"txl_v", Kind::Plain},     {"kerple", Kind::Plain},    {"alibi_slope", Kind::Plain},
    {"fire_in", Kind::Plain}, {"fire_out", Kind::Plain},  {"fire_scale", Kind::Plain}};

json conventions() {
  return {{"linear_weights",
           "pe-bench computes x W with W [in, out]; the exported weight is W transposed, [out, in], "
           "as nn.Linear keeps it (y = x weight^T)"},
          {"tables", "embedding and position tables keep their rows: [rows, dim] (nn.Embedding)"},
          {"qkv", "qkv.weight rows are [W_Q; W_K; W_V] outputs; heads are consecutive groups of head_dim"},
          {"rotary",
           "RoPE turns pair j by theta_j, theta_j = base^(-2j/head_dim) unless frequency_plan.theta gives "
           "them; rope_layout names the pairs: interleaved, channels (2j, 2j+1) of a head (pe-bench's own), "
           "or split-half, channels (j, j + head_dim/2) (Transformers' rotate_half), where each head's query "
           "and key rows of qkv.weight were permuted to [0, 2, 4, ..., 1, 3, 5, ...]"},
          {"xpos",
           "xpos turns the pairs as rotary does and scales pair j of a query at position m by zeta_j^(m/B), of a key "
           "at n by zeta_j^(-n/B): zeta_j = (2j/head_dim + xpos_zeta_offset) / (1 + xpos_zeta_offset), B = "
           "xpos_scale_base (the scheme block's settings)"},
          {"sinusoidal",
           "the sinusoidal code is sinusoidal_scale times p(m), which interleaves: p[2j] = sin(m theta_j), p[2j+1] = "
           "cos(m theta_j); sinusoidal_layout concatenated puts every sine first: p[j] = sin(m theta_j), p[d/2 + j] "
           "= cos(m theta_j)"},
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

RopeLayout parse_rope_layout(const std::string& name) {
  if (name == "interleaved") return RopeLayout::Interleaved;
  if (name == "split-half") return RopeLayout::SplitHalf;
  throw UsageError(
      fmt::format("--rope-layout is '{}': choose interleaved (pe-bench's pairs (2j, 2j+1)) or "
                  "split-half (Transformers' rotate_half pairs (j, j + head_dim/2))",
                  name));
}

namespace {

// The layer of a query/key/value tensor's name: block<l>.w_qkv (a block stack) or w_qkv (a head); -1 else.
int qkv_layer(const std::string& pe_name) {
  static const std::regex block(R"(^block(\d+)\.w_qkv$)");
  std::smatch m;
  if (std::regex_match(pe_name, m, block)) return std::stoi(m[1].str());
  return pe_name == "w_qkv" ? 0 : -1;
}

}  // namespace

SplitHalfRows split_half_rows(const json& cp) {
  SchemeConfig cfg = scheme_config_from_json(cp.at("scheme"));
  if (!scheme_exists(cfg.name)) throw DataError(fmt::format("unknown scheme '{}'", cfg.name));
  cfg.train_length = checked_int32(cp.at("training").at("train_length"), "training.train_length", 2);
  cfg.n_layers = checked_int32(cp.at("model").value("n_layers", json(1)), "model.n_layers", 1, 64);
  const auto scheme = make_scheme<double>(cfg);
  SplitHalfRows rows;
  rows.n_heads = cfg.n_heads, rows.d_head = cfg.d_head;
  scheme->prepare(1);
  // a layer turns queries and keys when its transform moves a vector of ones at position 1
  for (int l = 0; l < cfg.n_layers; ++l) {
    const std::vector<double> ones(size_t(cfg.n_heads) * cfg.d_head, 1.0);
    std::vector<double> x = ones;
    const int pos = 1;
    scheme->qk_forward(l, Qk::Query, &pos, 1, x.data());
    if (x != ones) rows.layers.insert(l);
  }
  return rows;
}

void SplitHalfRows::permute(const std::string& pe_name, std::vector<float>& data, int rows, int cols, bool back) const {
  if (!layers.count(qkv_layer(pe_name))) return;
  const int D = n_heads * d_head, half = d_head / 2;
  if (rows != 3 * D || size_t(rows) * size_t(cols) != data.size())
    throw DataError(
        fmt::format("tensor '{}' is [{}, {}], not the [3 x {}, in] of a qkv weight", pe_name, rows, cols, D));
  const std::vector<float> from = data;
  for (int head = 0; head < 2 * n_heads; ++head)  // the query heads, then the key heads
    for (int j = 0; j < d_head; ++j) {
      // split-half row j of a head holds interleaved row 2j (j < half) or 2(j - half) + 1
      const size_t split = size_t(head) * d_head + j,
                   inter = size_t(head) * d_head + (j < half ? 2 * j : 2 * (j - half) + 1);
      const size_t to_row = back ? inter : split, from_row = back ? split : inter;
      std::copy_n(from.begin() + std::ptrdiff_t(from_row * cols), cols, data.begin() + std::ptrdiff_t(to_row * cols));
    }
}

ExportedModel export_checkpoint(const std::string& path, RopeLayout layout) {
  // read as eval and sample read it, first: every tensor against the model's layout, only finite numbers
  check_checkpoint_file(path);
  CheckpointReader reader(path, "");
  const json& cp = reader.json_();
  const SplitHalfRows pairs = split_half_rows(cp);
  if (layout == RopeLayout::SplitHalf && pairs.layers.empty())
    throw UsageError(
        fmt::format("--rope-layout split-half: the model's scheme '{}' turns no queries and keys, so "
                    "there are no RoPE pairs to lay out; leave --rope-layout interleaved",
                    cp.at("scheme").at("name").get<std::string>()));
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
    if (layout == RopeLayout::SplitHalf) pairs.permute(name, nt.data, int(nt.shape[0]), int(nt.shape[1]), false);
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
  if (!pairs.layers.empty()) config["rope_layout"] = layout == RopeLayout::SplitHalf ? "split-half" : "interleaved";
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

ExportedCheck export_check(const CheckBatch& c, const SplitHalfRows* pairs) {
  std::vector<NamedTensor> tensors{{"logits", c.logits_shape, c.logits}};
  json names = json::object();
  for (auto& g : c.grads) {
    const TorchTensorName t = torch_tensor_name(g.name);
    const int rows = int(g.shape[0]), cols = int(g.shape[1]);
    NamedTensor grad{"grad." + t.name, g.shape, g.data};
    if (t.transposed) grad.shape = {cols, rows}, grad.data = transpose(g.data, rows, cols);
    if (pairs) pairs->permute(g.name, grad.data, int(grad.shape[0]), int(grad.shape[1]), false);
    tensors.push_back(std::move(grad));
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
  // a split-half export's query and key rows go back to pe-bench's pairs (the rows are pe-bench's
  // reading of the checkpoint's scheme, not the file's word)
  SplitHalfRows pairs;
  if (config.contains("rope_layout")) {
    const json& layout = config["rope_layout"];
    if (layout != "interleaved" && layout != "split-half")
      throw fail(config_path,
                 fmt::format("rope_layout is {}, not \"interleaved\" or \"split-half\"", layout.dump().substr(0, 60)));
    if (layout == "split-half") {
      try {
        pairs = split_half_rows(cp);
      } catch (const std::exception& e) {
        throw fail(config_path, fmt::format("pe_bench_checkpoint does not describe a model: {}", e.what()));
      }
      if (pairs.layers.empty())
        throw fail(config_path, "rope_layout is \"split-half\" but the model's scheme turns no queries and keys");
    }
  }
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
    std::vector<float> values = x->data;
    pairs.permute(pe_name, values, int(want[0]), int(want[1]), true);
    if (transposed) values = transpose(values, shape[1], shape[0]);
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
