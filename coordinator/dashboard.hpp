// SPDX-License-Identifier: MIT
// The live dashboard served at / by HttpApi: one self-contained HTML page (inline CSS and
// JavaScript, no external resources, no build step) compiled into the binary, so it works
// offline and needs nothing installed beyond zkmill. It polls the JSON API (GET /api/v1/farm
// every second, GET /api/v1/jobs/{id} for the jobs it shows) and draws the throughput chart
// on a canvas itself. With coordinator.api_token_file set, open it as
// http://HOST:PORT/#token=TOKEN (the token stays in the tab's sessionStorage and is sent as a
// bearer header; a fragment never reaches the server's logs).
#pragma once

#include <string_view>

namespace zkmill::farm {

std::string_view dashboard_html();

}  // namespace zkmill::farm
