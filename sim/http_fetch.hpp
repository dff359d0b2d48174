#pragma once
// The simulators' own plain-HTTP client (Beast): what a simulated server's PXE ROM, installer and
// firmware updater use to reach Ironhold. Everything it holds lives in the calling coroutine, so
// stopping the io_context mid-request leaves nothing behind.
#include <boost/asio/awaitable.hpp>
#include <boost/beast/http/verb.hpp>
#include <cstddef>
#include <string>

namespace ironhold::sim {

struct FetchResult {
  int status = 0;  // 0: no answer (see error)
  std::string body;
  std::string error;
  std::string content_range;  // the answer's Content-Range, for a ranged GET
};

// One request to an http:// URL (anything else is an error result). `max_body`: a longer answer
// is an error result. `range`: a Range header ("bytes=0-65535"), none when empty.
boost::asio::awaitable<FetchResult> http_fetch(std::string url, boost::beast::http::verb method,
                                               std::string body, std::size_t max_body = 8u << 20,
                                               std::string range = {});

}  // namespace ironhold::sim
