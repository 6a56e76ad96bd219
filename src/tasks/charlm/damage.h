// The failure lab's measure on the character LM (harness/faults.h): perplexity of a model read at one length on
// windows of The Time Machine's held-out part, the same windows for every model and fault.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "harness/damage_probe.h"

namespace pe {

// The faults of the failure lab read on the committed char LMs (results/charlm-3seeds, results/charlm-quick).
FaultHosting charlm_fault_hosting();
// vocab: the checkpoint's (UsageError when it is not the corpus's); windows 0: 8.
std::unique_ptr<DamageProbe> charlm_damage_probe(const std::vector<std::string>& vocab, int windows);

}  // namespace pe
