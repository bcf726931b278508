// SPDX-License-Identifier: MIT
// Where a worker keeps what it derives from its keys when the key directory cannot take it
// (systemd's ProtectSystem makes worker.key_dir read-only; another user's keys): circuit id
// memos (key-ids/, farm/key_id.hpp) and recorded PCE matrices (pce/, worker_tasks.cpp).
// Everything there can be rebuilt from the keys, so the directory may be emptied at any time.
#pragma once

#include <string>

namespace zkmill::farm {

// $CACHE_DIRECTORY (systemd's CacheDirectory=; its first entry), else $XDG_CACHE_HOME/zkmill,
// else $HOME/.cache/zkmill; "" when none of them is set.
std::string default_cache_dir();

}  // namespace zkmill::farm
