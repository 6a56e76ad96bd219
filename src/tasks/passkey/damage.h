// The failure lab's measure on the passkey task (harness/faults.h): whole-passkey accuracy of a model read
// at one length, on test items of the shared test stream spread evenly over 11 depths (items 0: 220).
#pragma once
#include <cstdint>
#include <memory>

#include "harness/damage_probe.h"
#include "tasks/passkey/data.h"

namespace pe {

// The faults of the failure lab read on the committed passkey models (results/passkey, results/passkey-quick).
FaultHosting passkey_fault_hosting();
std::unique_ptr<DamageProbe> passkey_damage_probe(const PasskeySpec& spec, int items, uint64_t test_seed);

}  // namespace pe
