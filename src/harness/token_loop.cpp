#include "harness/token_loop.h"

#include "core/math.h"

#include <sstream>

#include "core/errors.h"
#include "core/files.h"
#include "core/params.h"

namespace pe {

using nlohmann::json;

TokenLoop::TokenLoop(BlockStack<float>& model, TokenBatches& batches, TokenLoopSettings settings)
    : model_(model), batches_(batches), settings_(std::move(settings)), trainer_(model, settings_.adam) {}

void TokenLoop::resume(const TrainingState& s) {
  model_.params() = s.params;
  trainer_.adam().restore(s.adam_m, s.adam_v, s.adam_steps);
  if (!batches_.position().is_null()) batches_.seek(loop_field(s, "stream", LoopField::Object), s.path);
  lines_ = loop_field(s, "metrics", LoopField::String);
  since_ = loop_field(s, "since", LoopField::Number);
  count_ = loop_field(s, "count", LoopField::Int);
  final_loss_ = loop_field(s, "final_loss", LoopField::Number);
  memory_.clear();
  if (settings_.mem_len > 0) {
    const json& m = loop_field(s, "memory", LoopField::Object);
    const size_t L = size_t(model_.config().n_layers);
    const bool ok = m.contains("rows") && m["rows"].is_number_integer() && m["rows"].get<int>() >= 0 &&
                    m["rows"].get<int>() <= settings_.mem_len && m.contains("h") && m["h"].is_array() &&
                    (m["rows"].get<int>() == 0 || m["h"].size() == L);
    if (!ok)
      throw CheckpointError(s.path +
                            ": loop.memory is not a segment memory of this model (rows 0 .. mem_len, one "
                            "list of states per block); remove the file to train that run from scratch");
    memory_.M = m["rows"].get<int>();
    const size_t n = size_t(settings_.batch) * memory_.M * model_.config().d_model;
    for (size_t l = 0; memory_.M > 0 && l < L; ++l) {
      const json& h = m["h"][l];
      if (!h.is_array() || h.size() != n)
        throw CheckpointError(s.path + ": loop.memory.h[" + std::to_string(l) + "] does not hold " + std::to_string(n) +
                              " states; remove the file to train that run from scratch");
      std::vector<float> v;
      v.reserve(n);
      for (const json& x : h) {
        if (!x.is_number()) throw CheckpointError(s.path + ": loop.memory holds a value that is not a number");
        v.push_back(x.get<float>());
      }
      memory_.h.push_back(std::move(v));
    }
  }
}

void TokenLoop::step(int step) {
  const TokenLoopSettings& st = settings_;
  batches_.next(step, x_, y_);
  if (st.lr_at) trainer_.adam().set_lr(st.lr_at(step));
  // a batch may hold fewer than st.batch sequences (an order read from a file keeps a partial batch)
  const int B = int(x_.size() / size_t(st.length));
  double loss = 0;
  const TokenCoordinates* at = batches_.coordinates();
  if (st.mem_len > 0) {
    if (at) throw Error("TokenLoop: a segment memory takes no per-token coordinates (packed documents)");
    if (batches_.starts_streams()) memory_.clear();
    loss = trainer_.step(x_.data(), y_.data(), B, st.length, memory_, st.mem_len);
  } else {
    loss = trainer_.step(x_.data(), y_.data(), B, st.length, at);
  }
  check_finite_step<float>(step, loss, model_.layout(), model_.params().data(), nullptr, st.adam.lr);
  since_ += loss, ++count_;
  if (step % st.log_every == 0 || step == st.steps) {
    final_loss_ = since_ / count_;
    lines_ += json{{"step", step}, {"loss", loss}, {"loss_avg", final_loss_}}.dump() + "\n";
    if (st.progress) st.progress(step, st.steps, final_loss_);
    since_ = 0, count_ = 0;
  }
}

TrainingState TokenLoop::state(int step) const {
  json loop = {{"metrics", lines_}, {"since", since_}, {"count", count_}, {"final_loss", final_loss_}};
  if (const json p = batches_.position(); !p.is_null()) loop["stream"] = p;
  if (settings_.mem_len > 0) loop["memory"] = {{"rows", memory_.M}, {"h", memory_.h}};
  return TrainingState{step,
                       model_.params(),
                       trainer_.adam().first_moment(),
                       trainer_.adam().second_moment(),
                       trainer_.adam().steps(),
                       loop,
                       ""};
}

double final_loss_of(const std::string& metrics_lines, int steps, int* covered) {
  std::vector<std::pair<int, double>> logged;  // (step, loss_avg), oldest first
  std::istringstream in(metrics_lines);
  std::string line;
  while (std::getline(in, line))
    if (!line.empty()) {
      const json j = parse_json(line);
      logged.emplace_back(j.at("step").get<int>(), j.at("loss_avg").get<double>());
    }
  double sum = 0;
  int n = 0;
  for (size_t i = logged.size(); i-- > 0 && n < steps;) {
    const int interval = logged[i].first - (i > 0 ? logged[i - 1].first : 0);
    sum += logged[i].second * double(interval);
    n += interval;
  }
  *covered = n;
  return n > 0 ? sum / double(n) : 0.0;
}

json TokenLoop::training() const {
  json t = settings_.training;
  t["steps"] = settings_.steps;
  int covered = 0;
  t["final_loss"] = final_loss_of(lines_, settings_.final_steps, &covered);
  t["final_loss_steps"] = covered;
  return t;
}

std::function<double(int)> half_cosine_lr(double lr, double floor, int steps) {
  return [lr, floor, steps](int step) {
    const double t = steps > 1 ? double(step - 1) / (steps - 1) : 0.0;
    return lr * (floor + (1 - floor) * 0.5 * (1 + math::cos(M_PI * t)));
  };
}

}  // namespace pe
