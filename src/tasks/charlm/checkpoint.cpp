#include "tasks/charlm/checkpoint.h"

#include <cmath>

#include <fmt/format.h>

#include "core/keys.h"
#include "harness/block_stack_checkpoint.h"
#include "harness/config.h"

namespace pe {

using nlohmann::json;

json make_charlm_checkpoint(const BlockStack<float>& model, const std::vector<std::string>& vocab, const json& training,
                            const json& frequency_plan) {
  const BlockStackConfig& c = model.config();
  const json section = block_stack_section(c);
  json extra = {{"vocab", vocab}};
  if (!frequency_plan.is_null()) extra["frequency_plan"] = frequency_plan;
  return checkpoint_envelope("charlm", section, c.scheme, training, model.layout(), model.params().data(), extra);
}

LoadedCharLM load_charlm_checkpoint(const std::string& path) {
  CheckpointReader r(path, "charlm");
  return r.fields([&] {
    const json& j = r.json_();
    LoadedCharLM out;
    out.model = read_block_stack(r);
    out.vocab = j.at("vocab").get<std::vector<std::string>>();
    if (int(out.vocab.size()) != out.model->config().vocab)
      throw r.fail(
          fmt::format("{} vocabulary entries but the model reads {}", out.vocab.size(), out.model->config().vocab));
    if (const json& tr = j.at("training"); tr.contains("corpus_sha1")) {
      const json& h = tr.at("corpus_sha1");
      if (!h.is_string() || h.get<std::string>().size() != 40 ||
          h.get<std::string>().find_first_not_of("0123456789abcdef") != std::string::npos)
        throw r.fail(fmt::format("training.corpus_sha1 is {}, not a sha1 (40 lowercase hex digits)", h.dump()));
      out.corpus_sha1 = h.get<std::string>();
    }
    if (j.contains("frequency_plan")) {
      const json& fp = j.at("frequency_plan");
      try {  // the map as the table reads it now
        out.plan_map = parse_map(fp.at("map").get<std::string>());
      } catch (const UsageError& e) {
        throw r.fail(std::string("frequency_plan.map: ") + e.what());
      }
      out.plan_train_length = checked_int32(fp.at("train_length"), "frequency_plan.train_length", 2, kMaxLength);
      out.plan_read_length = checked_int32(fp.at("read_length"), "frequency_plan.read_length", 2, kMaxLength);
      if (!out.model->scheme().accepts_frequency_plan())
        throw r.fail("a frequency plan for a scheme without frequencies");
      FrequencyPlan plan = out.model->scheme().plan_for(*out.plan_map, out.plan_train_length, out.plan_read_length);
      // The frequencies it was tuned with (older checkpoints: recomputed from the map).
      auto tuned = [&](const json& f, FrequencyPlan& into, const std::string& where) {
        const auto theta = f.at("theta").get<std::vector<double>>();
        const double scale = f.at("logit_scale").get<double>();
        if (theta.size() != into.theta.size())
          throw r.fail(
              fmt::format("{}theta has {} planes but the heads have {}", where, theta.size(), into.theta.size()));
        for (double t : theta)
          if (!std::isfinite(t) || t < 0) throw r.fail(where + "theta holds a negative or non-finite frequency");
        if (!std::isfinite(scale) || !(scale > 0)) throw r.fail(where + "logit_scale must be a positive number");
        into.theta = theta;
        into.logit_scale = scale;
        if (f.contains("warp")) {
          const auto w = f.at("warp").get<std::vector<double>>();
          if (w.size() != 2 || !(w[0] >= 0) || !(w[1] >= 1)) throw r.fail(where + "warp must be [w >= 0, s >= 1]");
          into.warp_window = w[0], into.warp_factor = w[1];
        }
      };
      if (fp.contains("theta")) tuned(fp, plan, "frequency_plan.");
      if (fp.contains("layers") != !plan.layers.empty())
        throw r.fail(fp.contains("layers") ? "frequency_plan.layers given, but the model's layers turn alike"
                                           : "frequency_plan has no layers, but the model's RoPE layers turn "
                                             "differently (each needs its own frequencies)");
      if (fp.contains("layers") && fp.contains("theta")) {
        const json& layers = fp.at("layers");
        if (!layers.is_array() || layers.size() != plan.layers.size())
          throw r.fail(fmt::format("frequency_plan.layers must list the model's {} layers", plan.layers.size()));
        for (size_t l = 0; l < plan.layers.size(); ++l) {
          const std::string where = fmt::format("frequency_plan.layers[{}].", l);
          if (layers[l].is_null() != plan.layers[l].theta.empty())
            throw r.fail(fmt::format(
                "frequency_plan.layers[{}] {}", l,
                layers[l].is_null() ? "is null, but the layer turns" : "is given to a layer without frequencies"));
          if (!layers[l].is_null()) tuned(layers[l], plan.layers[l], where);
        }
      }
      out.model->scheme().set_frequency_plan(std::move(plan));
    }
    out.meta = r.meta();
    out.path = path;
    return out;
  });
}

}  // namespace pe
