#include "tasks/charlm/documents.h"

#include <algorithm>

#include "core/errors.h"

namespace pe {

TrainingWindows charlm_training_windows(const CharCorpus& c, Packing p, int n_windows, int T) {
  TrainingWindows w;
  if (p != Packing::Padded) {
    w.start.resize(size_t(n_windows));
    for (int i = 0; i < n_windows; ++i) w.start[size_t(i)] = i;
    w.content.assign(size_t(n_windows), T);
    return w;
  }
  for (int d = 0; d < int(c.doc_starts.size()) && c.doc_starts[size_t(d)] < n_windows; ++d)
    for (long s = c.doc_starts[size_t(d)]; s < c.doc_end(d) && s < n_windows; s += T) {
      w.start.push_back(int(s));
      w.content.push_back(int(std::min<long>(T, c.doc_end(d) - s)));
    }
  return w;
}

std::vector<int> window_pieces(const CharCorpus& c, long start, int T) {
  std::vector<int> lengths;
  for (long row = start; row < start + T;) {
    const long end = std::min(start + T, c.doc_end(c.doc_of(row)));
    lengths.push_back(int(end - row));
    row = end;
  }
  return lengths;
}

void charlm_window(const CharCorpus& c, Packing p, int start, int content, int T, int* x, int* y,
                   BatchCoordinates& at) {
  if (content < 1 || content > T) throw Error("charlm_window: content outside 1 .. T");
  char_window(c, start, T, x, y);
  for (int t = content; t < T; ++t) x[t] = 0, y[t] = -1;  // PAD: no loss, never seen
  const std::vector<int> lengths = p == Packing::Padded ? std::vector<int>{content} : window_pieces(c, start, T);
  at.append(lay_out_window(p, lengths, T));
}

int window_max_position(const CharCorpus& c, Packing layout, long start, int L) {
  if (layout != Packing::IsolatedReset) return L - 1;
  const std::vector<int> pieces = window_pieces(c, start, L);
  return *std::max_element(pieces.begin(), pieces.end()) - 1;
}

}  // namespace pe
