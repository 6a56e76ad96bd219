// A positional scheme is one object. It declares where it acts — the embedding state, the Q/K
// transform, the score bias — owns its parameters (declared into the model's flat buffers) and
// implements the forward and backward of each hook. Models call the hooks; they never look at names.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/errors.h"
#include "core/params.h"
#include "core/rng.h"
#include "schemes/frequency_plan.h"

namespace pe {

struct SchemeConfig {
  std::string name;
  int d_model = 16;   // width of the embedding state
  int n_heads = 1;    // heads per attention layer
  int d_head = 16;    // width of one head (even)
  double base = 10000.0;
  int learned_rows = 32;              // rows of the learned table
  double learned_init_std = 0.3;      // N(0, std^2) init of learned rows
  std::vector<double> alibi_slopes;   // empty: the reference rule for n_heads
  double rotary_fraction = 1.0;       // rope: fraction of planes that rotate
};

template <class S>
class Scheme {
 public:
  explicit Scheme(SchemeConfig cfg) : cfg_(std::move(cfg)) {}
  virtual ~Scheme() = default;
  const SchemeConfig& config() const { return cfg_; }
  virtual std::string name() const = 0;

  // Parameters: declared into the model's layout (names prefixed "pos."), initialised from rng.
  virtual void declare(ParamLayout& layout) {}
  virtual void init(ParamView<S> params, Rng& rng) const {}

  // Largest position the scheme can represent, or -1 when every position is defined.
  virtual int max_position() const { return -1; }
  bool can_read(int position) const { return max_position() < 0 || position <= max_position(); }

  // Where it acts.
  virtual bool acts_on_embedding() const { return false; }
  virtual bool acts_on_qk() const { return false; }
  virtual bool acts_on_scores() const { return false; }

  // Embedding state. out: [n, d_model]; out[i] += p(pos[i]).
  virtual void embed_forward(CParamView<S> P, const int* pos, int n, S* out) const {}
  // dout: [n, d_model]; adds dL/dp into the scheme's gradients.
  virtual void embed_backward(CParamView<S> P, ParamView<S> G, const int* pos, int n, const S* dout) const {}

  // Q/K transform, in place. x: [n, n_heads * d_head], row i at position pos[i]. Call prepare()
  // with the largest position first (it fills caches; not thread-safe, the transforms are).
  virtual void prepare(int max_pos) {}
  virtual void qk_forward(const int* pos, int n, S* x) const {}
  // dx: [n, n_heads * d_head], in place: dL/d(input) from dL/d(output).
  virtual void qk_backward(const int* pos, int n, S* dx) const {}
  // Multiplier on the content score q.k/sqrt(d) (1 except for maps such as YaRN).
  virtual S content_scale() const { return S(1); }

  // Context-extension maps: a scheme that reads its angles from a FrequencyPlan builds the plan of
  // a map for a (training length, read length) pair and accepts it at read time.
  virtual bool accepts_frequency_plan() const { return false; }
  virtual FrequencyPlan plan_for(const std::string& map, int train_len, int read_len) const {
    throw UsageError(name() + " has no frequencies to rescale");
  }
  virtual void set_frequency_plan(FrequencyPlan plan) { throw UsageError(name() + " has no frequencies to rescale"); }

  // Score bias. scores: [nk], the scaled content scores of one query row of one head; adds
  // the bias for keys at kpos. Only visible keys are passed.
  virtual void bias_forward(CParamView<S> P, int head, int qpos, const int* kpos, int nk, S* scores) const {}
  // dscores: [nk], dL/d(score); adds into the scheme's gradients (learned biases).
  virtual void bias_backward(CParamView<S> P, ParamView<S> G, int head, int qpos, const int* kpos, int nk,
                             const S* dscores) const {}

 protected:
  SchemeConfig cfg_;
};

// The registry: names, one-line descriptions, and construction in float or double.
struct SchemeInfo {
  std::string name, description;
};
const std::vector<SchemeInfo>& scheme_list();
bool scheme_exists(const std::string& name);
// Throws UsageError listing the known schemes when the name is unknown.
template <class S>
std::unique_ptr<Scheme<S>> make_scheme(const SchemeConfig& cfg);

// ALiBi slopes for H heads by the reference rule (schemes.md).
std::vector<double> alibi_reference_slopes(int n_heads);

}  // namespace pe
