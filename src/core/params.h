// Parameters, gradients and Adam moments are flat buffers; a ParamLayout names the tensors inside
// them, so zeroing, the optimizer, checkpointing and gradient checks are single loops.
#pragma once
#include <fmt/format.h>
#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "core/errors.h"
#include "core/tensor.h"

namespace pe {

struct TensorInfo {
  std::string name;
  int rows = 0, cols = 0;
  size_t offset = 0;
  size_t size() const { return size_t(rows) * size_t(cols); }
};

class ParamLayout {
 public:
  // Declares a [rows, cols] tensor named `name` (within a layer scope, the layer's name for it); returns
  // its id. Names are unique.
  int add(const std::string& short_name, int rows, int cols) {
    const std::string name = scoped(short_name);
    for (auto& t : tensors_)
      if (t.name == name) throw Error("parameter declared twice: " + name);
    tensors_.push_back({name, rows, cols, total_});
    total_ += size_t(rows) * size_t(cols);
    return int(tensors_.size()) - 1;
  }
  int find(const std::string& name) const {
    for (size_t i = 0; i < tensors_.size(); ++i)
      if (tensors_[i].name == name) return int(i);
    return -1;
  }
  const std::vector<TensorInfo>& tensors() const { return tensors_; }
  const TensorInfo& operator[](int id) const { return tensors_[id]; }
  size_t total() const { return total_; }
  // The names declared next belong to layer l of the model (-1: no scope). A hybrid declares each
  // layer's one-layer scheme in its layer's scope, so its tables are named like every other per-layer
  // table: "pos.layer0.X" (the one-layer scheme's only layer) and "pos.X" (its model-wide tables)
  // become "pos.layer<l>.X".
  void set_layer_scope(int l) { layer_scope_ = l; }

 private:
  std::string scoped(const std::string& name) const {
    if (layer_scope_ < 0) return name;
    const std::string pos = "pos.", first_layer = "pos.layer0.";
    if (name.rfind(first_layer, 0) == 0)
      return fmt::format("pos.layer{}.{}", layer_scope_, name.substr(first_layer.size()));
    if (name.rfind(pos, 0) == 0) return fmt::format("pos.layer{}.{}", layer_scope_, name.substr(pos.size()));
    throw Error("a scheme's parameter must be named pos.*: " + name);
  }
  int layer_scope_ = -1;
  std::vector<TensorInfo> tensors_;
  size_t total_ = 0;
};

// Whether two layouts declare the same tensors (names, shapes, offsets) in the same order: a scheme swapped
// into a model must, since it reads its tensors by id.
inline bool same_tensors(const ParamLayout& a, const ParamLayout& b) {
  const auto &x = a.tensors(), &y = b.tensors();
  if (x.size() != y.size()) return false;
  for (size_t i = 0; i < x.size(); ++i)
    if (x[i].name != y[i].name || x[i].rows != y[i].rows || x[i].cols != y[i].cols || x[i].offset != y[i].offset)
      return false;
  return true;
}

// A named view into one flat buffer (values or gradients) laid out by a ParamLayout.
template <class S>
struct ParamView {
  S* base = nullptr;
  const ParamLayout* layout = nullptr;
  MatMap<S> operator()(int id) const {
    const auto& t = (*layout)[id];
    return MatMap<S>(base + t.offset, t.rows, t.cols);
  }
  S* data(int id) const { return base + (*layout)[id].offset; }
};

template <class S>
struct CParamView {
  const S* base = nullptr;
  const ParamLayout* layout = nullptr;
  CParamView() = default;
  CParamView(const S* b, const ParamLayout* l) : base(b), layout(l) {}
  CParamView(const ParamView<S>& v) : base(v.base), layout(v.layout) {}  // NOLINT: implicit by design
  CMatMap<S> operator()(int id) const {
    const auto& t = (*layout)[id];
    return CMatMap<S>(base + t.offset, t.rows, t.cols);
  }
  const S* data(int id) const { return base + (*layout)[id].offset; }
};

// The name of the first tensor of `layout` holding a non-finite value in values, or "" if none.
template <class S>
std::string first_nonfinite(const ParamLayout& layout, const S* values) {
  for (auto& t : layout.tensors())
    for (size_t i = 0; i < t.size(); ++i)
      if (!std::isfinite(values[t.offset + i])) return t.name;
  return "";
}

// Throws TrainingDiverged when the step's loss or any parameter after it is not finite, naming the
// step and the first tensor where it shows.
template <class S>
void check_finite_step(int step, double loss, const ParamLayout& layout, const S* params, const S* grad, double lr) {
  std::string where;
  if (!std::isfinite(loss))
    where = fmt::format("the loss is {}", loss);
  else if (const std::string g = grad ? first_nonfinite(layout, grad) : ""; !g.empty())
    where = "the gradient of " + g + " is not finite";
  else if (const std::string p = first_nonfinite(layout, params); !p.empty())
    where = p + " is not finite";
  if (!where.empty())
    throw TrainingDiverged(
        fmt::format("training diverged at step {}: {}; lower lr (it is {}); nothing was written", step, where, lr));
}

}  // namespace pe
