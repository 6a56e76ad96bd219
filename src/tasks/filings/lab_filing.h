// The laboratory's filing (issue 26; the article's account of it): an MD&A section of 209 tokens
// that names Marrow Freight six times, Dunmore Aerospace and Siskin Apparel once each, and at token
// 64 Fenwick Logistics, never to be named again; forty-five tokens later comes "a result the company
// called disappointing". From token 64 on (145 positions) the answer is Fenwick Logistics, while the
// company named most — and first — is Marrow Freight.
#pragma once
#include "tasks/filings/corpus.h"

namespace pe {

inline constexpr int kLabFilingLength = 209, kLabFilingLastMention = 64;

FilingsDocument lab_filing();

}  // namespace pe
