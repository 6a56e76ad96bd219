#include "models/token_loop.h"

#include <sstream>

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
}

void TokenLoop::step(int step) {
  const TokenLoopSettings& st = settings_;
  batches_.next(step, x_, y_);
  if (st.lr_at) trainer_.adam().set_lr(st.lr_at(step));
  // a batch may hold fewer than st.batch sequences (an order read from a file keeps a partial batch)
  const double loss = trainer_.step(x_.data(), y_.data(), int(x_.size() / size_t(st.length)), st.length);
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
  return TrainingState{step, model_.params(), trainer_.adam().first_moment(), trainer_.adam().second_moment(),
                       trainer_.adam().steps(), loop, ""};
}

double final_loss_of(const std::string& metrics_lines, int steps, int* covered) {
  std::vector<std::pair<int, double>> logged;  // (step, loss_avg), oldest first
  std::istringstream in(metrics_lines);
  std::string line;
  while (std::getline(in, line))
    if (!line.empty()) {
      const json j = json::parse(line);
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

}  // namespace pe
