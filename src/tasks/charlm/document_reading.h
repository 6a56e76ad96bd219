// Reading a char LM on whole documents (read_layouts "documents"; docs/tasks.md, Packing): each
// validation paragraph read alone from position 0, as a model trained with one document per window
// (padded) or with positions reset at each paragraph sees its text. The figures of a length L are
// over every token at a position below L in its paragraph (a paragraph shorter than L gives all of
// its tokens); the loss by position is the mean at each position over the paragraphs that reach it.
#pragma once
#include <vector>

#include "models/block_stack.h"
#include "tasks/charlm/corpus.h"
#include "tasks/charlm/training.h"

namespace pe {

struct DocumentPerplexities {
  std::vector<PerplexityResult> results;  // per length of `lengths` (each <= the longest one read)
  std::vector<long> tokens;               // per length: the tokens its figure averages over
  std::vector<int> reaching;              // per length: the paragraphs at least that long
  int documents = 0;                      // paragraphs read
  std::vector<double> position_loss;      // [longest]: mean at each position (NaN where none reaches)
};

// The paragraphs that start at or after `first` and whose last target lies before `end` (corpus
// indices: a paragraph [s, e) predicts ids[s+1 .. e], so e < end), each read alone
// to at most the longest of `lengths`; every length's loss is the mean over its tokens. DataError when
// no paragraph lies inside. Deterministic: each paragraph's losses are kept, then summed in order.
DocumentPerplexities charlm_document_perplexities(BlockStack<float>& model, const CharCorpus& corpus,
                                                  const std::vector<int>& lengths, long first, long end);

}  // namespace pe
