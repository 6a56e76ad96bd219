#include "tasks/charlm/document_reading.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/errors.h"
#include "core/fpenv.h"
#include "core/math.h"
#include "core/parallel.h"

namespace pe {

DocumentPerplexities charlm_document_perplexities(BlockStack<float>& model, const CharCorpus& corpus,
                                                  const std::vector<int>& lengths, long first, long end) {
  DocumentPerplexities out;
  if (lengths.empty()) return out;
  const int longest = *std::max_element(lengths.begin(), lengths.end());
  std::vector<int> docs;
  for (int d = 0; d < int(corpus.doc_starts.size()); ++d)
    if (corpus.doc_starts[size_t(d)] >= first && corpus.doc_end(d) < end &&
        corpus.doc_end(d) < long(corpus.ids.size()))  // its last target (at doc_end) is inside [first, end)
      docs.push_back(d);
  if (docs.empty())
    throw DataError(fmt::format("read_layouts documents: no paragraph of {} lies inside the validation text [{}, {})",
                                corpus.path, first, end));
  model.prepare(longest);
  std::vector<std::vector<double>> loss(docs.size());  // [document][position]
  std::vector<BlockStackCache<float>> caches(std::max(1, max_threads()));
#pragma omp parallel for schedule(dynamic, 1) if (!in_parallel())
  for (int k = 0; k < int(docs.size()); ++k) {
    const ScopedFlushToZero ftz;
    auto& cache = caches[thread_index()];
    const int d = docs[size_t(k)];
    const int L = int(std::min<long>(longest, corpus.doc_end(d) - corpus.doc_starts[size_t(d)]));
    std::vector<int> x(L), y(L);
    char_window(corpus, corpus.doc_starts[size_t(d)], L, x.data(), y.data());
    model.forward(x.data(), y.data(), 1, L, cache);
    loss[size_t(k)].assign(cache.token_loss.begin(), cache.token_loss.begin() + L);
  }
  out.documents = int(docs.size());
  std::vector<double> sum(size_t(longest), 0.0);
  std::vector<long> count(size_t(longest), 0);
  for (auto& l : loss)
    for (size_t t = 0; t < l.size(); ++t) sum[t] += l[t], ++count[t];
  out.position_loss.resize(size_t(longest));
  for (int t = 0; t < longest; ++t)
    out.position_loss[size_t(t)] =
        count[size_t(t)] ? sum[size_t(t)] / double(count[size_t(t)]) : std::numeric_limits<double>::quiet_NaN();
  for (int L : lengths) {
    PerplexityResult r;
    r.length = L;
    double s = 0;
    long n = 0;
    int reach = 0;
    for (auto& l : loss) {  // each paragraph's tokens below L, in order
      const size_t m = std::min(l.size(), size_t(L));
      for (size_t t = 0; t < m; ++t) s += l[t];
      n += long(m);
      reach += l.size() >= size_t(L) ? 1 : 0;
    }
    r.loss = s / double(n);
    r.perplexity = math::exp(r.loss);
    r.position_loss.assign(out.position_loss.begin(), out.position_loss.begin() + L);
    out.results.push_back(std::move(r));
    out.tokens.push_back(n), out.reaching.push_back(reach);
  }
  return out;
}

}  // namespace pe
