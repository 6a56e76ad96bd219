// The declarations probe's sequences (docs/tasks.md, "Code with distant declarations"): a toy program of statements
// `v = c ;` (a constant) and `v = w ;` (a copy), then PRINT u, whose answer (at u) is u's value. A chain of L
// statements (L from chain_lengths) carries a constant to u through L - 1 copies:
//   u_1 = c ;  ...  u_2 = u_1 ;  ...  u_L = u_{L-1} ;  ...  PRINT u_L      answer: c
// The chain's variables are distinct and assigned only there; every other statement (the filler code) assigns
// one of the other variables a constant or another such variable, uniformly. A sequence of n tokens is
// (n - 2) mod 4 empty statements `;`, S = (n - 2) / 4 statements, and PRINT u_L. The chain's first statement
// (the root declaration) is statement r = round(d (S - L)), the other L - 1 at distinct statements after it,
// drawn uniformly. Cells: each L with the root far (d = 0, the program's first statement), in the middle
// (d = 1/2) or near (d = 1, the chain the program's last L statements); training draws L and d in [0, 1]
// uniformly. Vocabulary: variables x0.., constants c0.., =, ;, PRINT.
#pragma once

#include "harness/probe_task.h"

namespace pe {

ProbeKind declarations_kind();

}  // namespace pe
