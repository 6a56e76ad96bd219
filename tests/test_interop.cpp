// Export and import (harness/interop.h, core/safetensors.h): every committed checkpoint of every task
// and scheme goes out and comes back to the same bytes; the safetensors file is what the format says;
// a wrong tensor is named.
#include <doctest/doctest.h>

#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <set>

#include "core/errors.h"
#include "core/files.h"
#include "core/safetensors.h"
#include "harness/checkpoint.h"
#include "harness/interop.h"
#include "harness/task.h"
#include "models/check_batch.h"
#include "schemes/scheme.h"
#include "scratch.h"

using namespace pe;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {
// import's checkpoint as text (written to dir/back.json)
std::string imported(const std::string& dir) {
  import_checkpoint(dir, dir + "/back.json");
  return read_file(dir + "/back.json");
}
void write_export(const std::string& dir, const ExportedModel& m) {
  write_file_atomic(dir + "/model.safetensors", m.safetensors);
  write_file_atomic(dir + "/config.json", m.config);
}
}  // namespace

TEST_CASE("export then import gives every committed checkpoint back byte for byte (every task and scheme)") {
  const std::string dir = pe::test::fresh_scratch_dir("interop");
  int n = 0;
  std::set<std::string> schemes;
  for (const char* runs : {"results/tournament/runs", "results/charlm-quick/runs", "results/passkey-quick/runs"})
    for (auto& path : find_checkpoints(runs)) {
      INFO(path);
      write_export(dir, export_checkpoint(path));
      CHECK(imported(dir) == read_file(path));
      schemes.insert(json::parse(read_file(dir + "/config.json"))["position_scheme"].get<std::string>());
      ++n;
    }
  CHECK(n >= 40);
  CHECK(schemes.size() == scheme_list().size());  // the char LM's runs hold every scheme, the hybrid too
  fs::remove_all(dir);
}

TEST_CASE("the exported tensors: PyTorch names, linear weights [out, in], tables as they are") {
  const std::string path = "results/charlm-quick/runs/charlm/rope/seed0/checkpoint.json";
  const ExportedModel m = export_checkpoint(path);
  const SafetensorsFile f = parse_safetensors(m.safetensors, "model.safetensors");
  const json cp = json::parse(read_file(path));
  const NamedTensor* qkv = f.find("blocks.0.attn.qkv.weight");
  const NamedTensor* emb = f.find("tok_emb.weight");
  REQUIRE(qkv);
  REQUIRE(emb);
  CHECK(qkv->shape == std::vector<int64_t>{384, 128});
  CHECK(emb->shape == std::vector<int64_t>{28, 128});
  for (auto& p : cp["params"]) {
    if (p["name"] != "block0.w_qkv") continue;
    // pe-bench's W[i][o] (row-major [128, 384]) is the weight's [o][i]
    for (auto [i, o] : {std::pair{0, 0}, {3, 200}, {127, 383}})
      CHECK(qkv->data[size_t(o) * 128 + i] == float(p["data"][size_t(i) * 384 + o].get<double>()));
  }
  // the layout of the bytes: header length, a JSON header padded to 8, then F32 little-endian data
  uint64_t n = 0;
  std::memcpy(&n, m.safetensors.data(), 8);
  CHECK(n % 8 == 0);
  const json header = json::parse(m.safetensors.substr(8, n));
  CHECK(header["tok_emb.weight"]["dtype"] == "F32");
  CHECK(header["__metadata__"]["format"] == "pt");
  CHECK(m.safetensors.size() == 8 + n + 4 * (28 * 128 + 2 * (384 * 128 + 128 * 128)));
  // every scheme's declared defaults, from the registry (what a hybrid layer's entry leaves out)
  const json config = json::parse(m.config);
  CHECK(config["scheme_defaults"].size() == scheme_list().size());
  CHECK(config["scheme_defaults"]["rope"]["base"] == 10000.0);
  CHECK(config["scheme_defaults"]["shaw"]["shaw_clip"] == 16);
  CHECK(config["scheme_defaults"]["none"].empty());
  // names for every kind of tensor
  CHECK(torch_tensor_name("pos.layer1.w_r").name == "pos.layers.1.w_r.weight");
  CHECK(torch_tensor_name("pos.layer1.w_r").transposed);
  CHECK(torch_tensor_name("pos.txl_u").name == "pos.txl_u");
  CHECK_FALSE(torch_tensor_name("pos.t5_bias").transposed);
  CHECK(torch_tensor_name("w_out").name == "readout.weight");
  CHECK_THROWS_AS(torch_tensor_name("pos.something_new"), DataError);
}

TEST_CASE("import names what is wrong: a missing tensor, another shape, another dtype, a broken file") {
  const std::string dir = pe::test::fresh_scratch_dir("interop");
  const ExportedModel m = export_checkpoint("results/tournament/runs/cue/alibi/seed0/checkpoint.json");
  const SafetensorsFile f = parse_safetensors(m.safetensors, "x");
  // a tensor dropped
  std::vector<NamedTensor> fewer(f.tensors.begin() + 1, f.tensors.end());
  write_export(dir, {safetensors_bytes(fewer, {}), m.config});
  CHECK_THROWS_WITH_AS(imported(dir), doctest::Contains(("tensor '" + f.tensors[0].name + "'").c_str()), DataError);
  // a tensor of another shape
  std::vector<NamedTensor> reshaped = f.tensors;
  reshaped[0].shape = {reshaped[0].shape[1], reshaped[0].shape[0]};
  write_export(dir, {safetensors_bytes(reshaped, {}), m.config});
  CHECK_THROWS_WITH_AS(imported(dir), doctest::Contains("has shape"), DataError);
  // another dtype: the header says F16
  std::string bytes = m.safetensors;
  const size_t at = bytes.find("\"F32\"");
  bytes.replace(at, 5, "\"F16\"");
  write_export(dir, {bytes, m.config});
  CHECK_THROWS_WITH_AS(imported(dir), doctest::Contains("dtype F16"), DataError);
  // a file cut short
  write_export(dir, {m.safetensors.substr(0, m.safetensors.size() - 4), m.config});
  CHECK_THROWS_AS(imported(dir), DataError);
  write_export(dir, {"abc", m.config});
  CHECK_THROWS_WITH_AS(imported(dir), doctest::Contains("shorter than its 8-byte header"), DataError);
  // an extra tensor the model does not have
  std::vector<NamedTensor> more = f.tensors;
  more.push_back({"extra.weight", {1, 1}, {0.5f}});
  write_export(dir, {safetensors_bytes(more, {}), m.config});
  CHECK_THROWS_WITH_AS(imported(dir), doctest::Contains("'extra.weight' is not part of the model"), DataError);
  // no config.json
  fs::remove(dir + "/config.json");
  CHECK_THROWS_WITH_AS(imported(dir), doctest::Contains("config.json is missing"), DataError);
  fs::remove_all(dir);
}

TEST_CASE("a safetensors header: shapes bounded by the data, whole numbers only, space padding, each tensor once") {
  const auto file = [](std::string header, size_t data) {
    std::string out(8, '\0');
    const uint64_t n = header.size();
    std::memcpy(out.data(), &n, 8);
    return out + header + std::string(data, '\0');
  };
  const auto refused = [&](const std::string& header, size_t data, const char* why) {
    INFO(header);
    CHECK_THROWS_WITH_AS(parse_safetensors(file(header, data), "f"), doctest::Contains(why), DataError);
  };
  CHECK(parse_safetensors(file(R"({"w": {"dtype": "F32", "shape": [2, 1], "data_offsets": [0, 8]}}  )", 8), "f")
            .tensors[0]
            .data.size() == 2);
  CHECK(parse_safetensors(
            file(R"({"w": {"dtype": "F32", "shape": [0, 4611686018427387904], "data_offsets": [0, 0]}})", 0), "f")
            .tensors[0]
            .data.empty());
  refused(R"({"w": {"dtype": "F32", "shape": [4611686018427387904], "data_offsets": [0, 0]}})", 0,
          "more than the file holds");
  refused(R"({"w": {"dtype": "F32", "shape": [4294967296, 4294967296], "data_offsets": [0, 0]}})", 0,
          "more than the file holds");
  refused(R"({"w": {"dtype": "F32", "shape": [9223372036854775807, 9223372036854775807], "data_offsets": [0, 4]}})", 4,
          "more than");
  refused(R"({"w": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4.5]}})", 4, "data_offsets holds 4.5");
  refused(R"({"w": {"dtype": "F32", "shape": [1.0], "data_offsets": [0, 4]}})", 4, "shape holds 1.0");
  refused(R"({"w": {"dtype": "F32", "shape": [-1], "data_offsets": [0, 4]}})", 4, "shape holds -1");
  refused(R"({"w": {"dtype": "F32", "shape": "1", "data_offsets": [0, 4]}})", 4, "not a list of whole numbers");
  refused(std::string(R"({"w": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}})") + std::string(3, '\0'), 4,
          "NUL byte");
  refused(
      R"({"w": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}, "w": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]}})",
      8, "duplicate key 'w'");
  refused(R"({"w": 5})", 0, "not an object");
}

TEST_CASE("a check batch: the model's logits and every tensor's gradient under PyTorch names, the reading stated") {
  const std::string path = "results/tournament/runs/cue/rope/seed0/checkpoint.json";
  const CheckBatch c = find_task("cue").reader().check_batch(path, parse_map("pi"), 64, 0, "causal");
  CHECK(c.B == 4);
  CHECK(c.T == 64);
  CHECK(c.logits_shape == std::vector<int64_t>{4, 8});
  for (int b = 0; b < 4; ++b) CHECK(c.tokens[size_t(b) * 64 + 63] == 16);  // the query token ends each sequence
  const ExportedCheck e = export_check(c);
  const SafetensorsFile f = parse_safetensors(e.safetensors, "check.safetensors");
  const SafetensorsFile model = parse_safetensors(export_checkpoint(path).safetensors, "model.safetensors");
  REQUIRE(f.find("logits"));
  for (auto& t : model.tensors) {  // a gradient for every tensor, shaped like it
    INFO(t.name);
    const NamedTensor* g = f.find("grad." + t.name);
    REQUIRE(g);
    CHECK(g->shape == t.shape);
  }
  CHECK(f.tensors.size() == model.tensors.size() + 1);
  const json j = json::parse(e.json);
  CHECK(j["reading"]["map"] == "pi");
  CHECK(j["reading"]["frequency_plan"]["kappa"] == 2.0);
  CHECK(j["reading"]["rope_scaling"] == json{{"rope_type", "linear"}, {"factor", 2.0}});
  CHECK(j["loss"].get<double>() > 0);
  // the same batch every time
  CHECK(export_check(find_task("cue").reader().check_batch(path, parse_map("pi"), 64, 0, "causal")).safetensors ==
        e.safetensors);
  // a block stack: every position scored, logits [B, T, vocab]
  const CheckBatch s = find_task("charlm").reader().check_batch(
      "results/charlm-quick/runs/charlm/t5/seed0/checkpoint.json", parse_map("none"), 0, 0, "causal");
  CHECK(s.logits_shape == std::vector<int64_t>{4, 128, 28});
  CHECK(json::parse(export_check(s).json)["reading"].contains("frequency_plan") == false);
  // readings that cannot be made are named
  CHECK_THROWS_AS(find_task("cue").reader().check_batch("results/tournament/runs/cue/alibi/seed0/checkpoint.json",
                                                        parse_map("pi"), 64, 0, "causal"),
                  UsageError);
  CHECK_THROWS_AS(find_task("cue").reader().check_batch("results/tournament/runs/cue/learned/seed0/checkpoint.json",
                                                        parse_map("none"), 64, 0, "causal"),
                  UsageError);
  CHECK_THROWS_AS(
      find_task("charlm").reader().check_batch("results/charlm-quick/runs/charlm/rope/seed0-ft-pi/checkpoint.json",
                                               parse_map("yarn"), 0, 0, "causal"),
      UsageError);
}

TEST_CASE(
    "a split-half export: each RoPE layer's query and key rows in rotate_half order, imported back to the bytes") {
  const std::string dir = pe::test::fresh_scratch_dir("interop-split-half");
  // every committed RoPE model and the hybrid (a RoPE layer beside a layer without positions)
  for (const char* path : {"results/charlm-quick/runs/charlm/rope/seed0/checkpoint.json",
                           "results/charlm-quick/runs/charlm/hybrid/seed0/checkpoint.json",
                           "results/tournament/runs/cue/rope/seed0/checkpoint.json",
                           "results/passkey-quick/runs/passkey/rope/seed0/checkpoint.json"}) {
    INFO(path);
    const ExportedModel split = export_checkpoint(path, RopeLayout::SplitHalf), inter = export_checkpoint(path);
    CHECK(json::parse(split.config)["rope_layout"] == "split-half");
    CHECK(json::parse(inter.config)["rope_layout"] == "interleaved");
    write_export(dir, split);
    CHECK(imported(dir) == read_file(path));
    const json cp = json::parse(read_file(path));
    const SplitHalfRows rows = split_half_rows(cp);
    const int H = rows.n_heads, dh = rows.d_head, D = H * dh;
    const SafetensorsFile a = parse_safetensors(split.safetensors, "split"),
                          b = parse_safetensors(inter.safetensors, "interleaved");
    int permuted = 0;
    for (size_t t = 0; t < a.tensors.size(); ++t) {
      const NamedTensor &s = a.tensors[t], &i = b.tensors[t];
      REQUIRE(s.name == i.name);
      if (s.data == i.data) continue;
      ++permuted;
      REQUIRE(s.name.find("qkv.weight") != std::string::npos);
      const size_t cols = size_t(s.shape[1]);
      for (int r = 0; r < 3 * D; ++r) {
        // a query or key head's row j holds interleaved row 2j (j < dh/2) or 2(j - dh/2) + 1; values stay
        const int head = r / dh, j = r % dh,
                  from = r < 2 * D ? head * dh + (j < dh / 2 ? 2 * j : 2 * (j - dh / 2) + 1) : r;
        CHECK(std::equal(s.data.begin() + std::ptrdiff_t(size_t(r) * cols),
                         s.data.begin() + std::ptrdiff_t((r + 1) * cols),
                         i.data.begin() + std::ptrdiff_t(size_t(from) * cols)));
      }
    }
    CHECK(permuted == int(rows.layers.size()));
  }
  // the hybrid's RoPE layer is its first; its second has no positions and stays as it was
  CHECK(
      split_half_rows(json::parse(read_file("results/charlm-quick/runs/charlm/hybrid/seed0/checkpoint.json"))).layers ==
      std::set<int>{0});
  // a model that turns no queries and keys has no pairs to lay out; import refuses a layout it does not know
  const std::string alibi = "results/charlm-quick/runs/charlm/alibi/seed0/checkpoint.json";
  CHECK_THROWS_AS(export_checkpoint(alibi, RopeLayout::SplitHalf), UsageError);
  CHECK(!json::parse(export_checkpoint(alibi).config).contains("rope_layout"));
  CHECK_THROWS_AS(parse_rope_layout("rotate_half"), UsageError);
  json config = json::parse(export_checkpoint("results/charlm-quick/runs/charlm/rope/seed0/checkpoint.json").config);
  config["rope_layout"] = "halves";
  write_file_atomic(dir + "/config.json", config.dump());
  CHECK_THROWS_WITH_AS(imported(dir), doctest::Contains("rope_layout is \"halves\""), DataError);
  // an alibi export that claims split-half is refused: its scheme turns nothing
  write_export(dir, export_checkpoint(alibi));
  config = json::parse(read_file(dir + "/config.json"));
  config["rope_layout"] = "split-half";
  write_file_atomic(dir + "/config.json", config.dump());
  CHECK_THROWS_WITH_AS(imported(dir), doctest::Contains("turns no queries and keys"), DataError);
  fs::remove_all(dir);
}
