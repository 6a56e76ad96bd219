#include "harness/packing.h"

#include <algorithm>

#include "core/errors.h"

namespace pe {

const std::vector<PackingPolicy>& packing_policies() {
  static const std::vector<PackingPolicy> list = {
      {Packing::None, "none", "one document per window, filling it"},
      {Packing::Padded, "padded", "one document per window, of a drawn length, PAD after it (no loss, never seen)"},
      {Packing::Packed, "packed", "whole documents one after another, attending across each other, positions global"},
      {Packing::IsolatedReset, "isolated-reset", "packed, each document sees only itself, positions from 0 in each"},
      {Packing::IsolatedGlobal, "isolated-global", "packed, each document sees only itself, positions global"},
  };
  return list;
}

std::string packing_names() {
  std::string s;
  for (auto& p : packing_policies()) s += (s.empty() ? "" : ", ") + std::string(p.name);
  return s;
}

std::string packing_help() {
  std::string s;
  for (auto& p : packing_policies()) s += (s.empty() ? "" : "; ") + std::string(p.name) + " (" + p.help + ")";
  return s;
}

Packing packing_from_name(const std::string& name) {
  for (auto& p : packing_policies())
    if (name == p.name) return p.packing;
  throw ConfigError("key 'packing': '" + name + "' is not a packing policy (" + packing_names() + ")");
}

const char* packing_name(Packing p) {
  for (auto& q : packing_policies())
    if (q.packing == p) return q.name;
  throw Error("packing_name: unknown policy");
}

std::vector<int> window_document_lengths(Packing p, Rng& rng, int T, int min_length) {
  if (min_length < 1 || min_length > T) throw Error("window_document_lengths: min_length outside 1 .. T");
  if (p == Packing::None) return {T};
  auto draw = [&](int hi) { return min_length + rng.below(hi - min_length + 1); };
  if (p == Packing::Padded) return {draw(T)};
  std::vector<int> lengths;
  int left = T;
  while (left > 0) {  // left >= min_length here
    int L = draw(left);
    if (left - L < min_length) L = left;  // what would be left could not hold a document
    lengths.push_back(L);
    left -= L;
  }
  return lengths;
}

WindowCoordinates lay_out_window(Packing p, const std::vector<int>& lengths, int T) {
  WindowCoordinates w;
  if (p == Packing::None || p == Packing::Packed) return w;
  w.pos.assign(T, 0);
  w.doc.assign(T, -1);
  int row = 0;
  for (size_t d = 0; d < lengths.size(); ++d)
    for (int i = 0; i < lengths[d]; ++i, ++row) {
      w.pos[row] = p == Packing::IsolatedReset ? i : row;
      w.doc[row] = int(d);
    }
  if (row > T) throw Error("lay_out_window: the documents are longer than the window");
  for (int r = row; r < T; ++r) w.pos[r] = r;  // PAD: invisible; its position continues the count
  return w;
}

}  // namespace pe
