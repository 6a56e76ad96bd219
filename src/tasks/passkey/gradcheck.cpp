// The passkey model's gradient check: the loss counts only the answer rows (targets below 0 are
// ignored), so the check covers the masked loss as well as the block stack.
#include "tasks/passkey/gradcheck.h"

#include "core/rng.h"
#include "models/block_stack.h"
#include "tasks/passkey/data.h"

namespace pe {

std::vector<GradCheckRow> gradcheck_passkey(const std::string& scheme) {
  PasskeySpec spec;
  spec.symbols = 2, spec.alphabet = 3, spec.filler = 2;
  BlockStackConfig cfg;
  cfg.vocab = spec.vocab();
  cfg.d_model = 8;
  cfg.n_heads = 2;
  cfg.embed_init_std = 0.5;  // large enough that every path carries gradient
  cfg.scheme.name = scheme;
  cfg.scheme.train_length = 16;
  const int B = 2, T = 9;
  std::vector<int> x(B * T), y(B * T);
  for (int b = 0; b < B; ++b)
    passkey_sequence(spec, stream_key({kTagCheck, 29, uint64_t(b)}), T, -1, &x[b * T], &y[b * T]);
  return gradcheck_block_stack_depths("passkey", cfg, 6, x, y, B, T);
}

}  // namespace pe
