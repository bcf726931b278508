// SPDX-License-Identifier: MIT
// Unguessable tokens: attempt tokens (which result may end which attempt) and the
// coordinator lease's fencing token. 128 bits from the kernel's CSPRNG (getrandom(2)),
// written as 32 lowercase hex digits so that Redis scripts compare them as plain strings.
// A counter would do for uniqueness, but a peer could then guess the tokens of other
// workers' attempts and end them.
#pragma once

#include <string>

namespace zkmill::farm {

// Throws std::runtime_error if the kernel cannot supply random bytes (never silently weaker).
std::string random_token();

}  // namespace zkmill::farm
