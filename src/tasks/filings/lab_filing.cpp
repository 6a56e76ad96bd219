#include "tasks/filings/lab_filing.h"

namespace pe {

FilingsDocument lab_filing() {
  // pe-bench's own wording of the shape the article describes (token indices from 0)
  static const char* const kText =
      "management's discussion and analysis of results of operations of @M for the fiscal year 2023 "
      "net revenue at @M increased 6 percent driven by higher freight volumes "
      "@M acquired @D during the second quarter "
      "@M faces competition from @S in its principal markets "
      "gross margin at @M declined 40 basis points "
      "in the fourth quarter @M agreed to sell its regional trucking unit to @F "  // @F: token 64
      "for 38 million in cash at closing and the unit was reported as a discontinued operation "
      "the buyer will assume the unit's leases and about 600 employees will transfer with it "
      "revenue in the unit fell 12 percent in the year as demand weakened "
      "a result the company called disappointing "  // token 109
      "the following discussion should be read together with the consolidated financial statements and the "
      "related notes included elsewhere in this report "
      "results for interim periods are not necessarily indicative of the results that may be expected for the full "
      "year "
      "liquidity remained adequate and the company was in compliance with all covenants under its credit agreement "
      "at the end of the period "
      "capital expenditures were 41 million and were primarily related to capacity expansion and maintenance of "
      "existing facilities "
      "critical accounting estimates include the valuation of inventory goodwill and deferred tax assets and pensions";
  return filings_document_from_text(
      "lab", "mdna", kText,
      {{"@M", "Marrow Freight"}, {"@D", "Dunmore Aerospace"}, {"@S", "Siskin Apparel"}, {"@F", "Fenwick Logistics"}});
}

}  // namespace pe
