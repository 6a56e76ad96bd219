// Reading a whole filings document with a trained head (models/cue_head.h): the one-pass reader
// (every position scored in one causal pass), the plain per-position pass it must equal, and a
// cue-trained head's reading (the document so far, then its query token).
#pragma once
#include <string>
#include <vector>

#include "models/cue_head.h"
#include "schemes/frequency_maps.h"

namespace pe {

// Reads its angles for a document of n tokens: the trained plan, or `map` at kappa = n /
// train_length (tasks/cue/evaluation.h's rule, per document); then prepares n positions.
void plan_for_document(CueHead<float>& model, const MapSpec& map, int train_length, int n);

// One causal pass over tokens [n] (positions 0..n-1): the head's answer at every position ([n]).
// logits (optional): [n, classes].
std::vector<int> read_one_pass(const CueHead<float>& model, const std::vector<int>& tokens, CueWorkspace<float>& ws,
                               std::vector<float>* logits = nullptr);
// The same answers by the plain forward pass, once per position t on tokens 0..t (the query at t).
std::vector<int> read_per_position(const CueHead<float>& model, const std::vector<int>& tokens,
                                   std::vector<float>* logits = nullptr);
// A head trained on the cue stream: at each position t, tokens 0..t then its query token (at t + 1).
std::vector<int> read_with_query_token(const CueHead<float>& model, const std::vector<int>& tokens);

}  // namespace pe
