// SPDX-License-Identifier: MIT
// The Lua scripts of FarmStore's atomic transitions (farm_store_scripts.cpp, which also lists
// the Redis keys they touch). Only farm_store.cpp runs them.
#pragma once

namespace zkmill::farm::lua {

extern const char* const kSubmit;
extern const char* const kClaim;
extern const char* const kSynthDone;
extern const char* const kProveDone;
extern const char* const kFail;
extern const char* const kPromote;
extern const char* const kCancel;
extern const char* const kFinish;
extern const char* const kRenewLease;
extern const char* const kDropLease;
extern const char* const kSetFields;
extern const char* const kExpireEnded;
extern const char* const kIndexEnded;

}  // namespace zkmill::farm::lua
