#pragma once
// A blocking libcurl client for the simulator tests: one request, everything the wire gave back
// (the curl result too, since the faults under test are failures of the transfer itself).
#include <curl/curl.h>

#include <chrono>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ironhold::test {

struct CurlCall {
  std::string method = "GET";
  std::string body;
  std::vector<std::string> headers;
  std::string basic = "admin:password";  // empty: no credentials
  long timeout_ms = 10'000;
  bool follow = false;  // follow redirects, at most max_redirects
  long max_redirects = 5;
  bool certinfo = false;  // collect the server's leaf certificate (PEM)
};

struct CurlReply {
  CURLcode code = CURLE_OK;
  long status = 0;
  std::string body;
  std::map<std::string, std::string> headers;  // lower-case names
  std::string leaf_pem;                        // with certinfo
  std::chrono::milliseconds elapsed{0};

  bool ok() const { return code == CURLE_OK; }
  nlohmann::json doc() const { return nlohmann::json::parse(body, nullptr, false); }
};

CurlReply curl_fetch(const std::string& url, const CurlCall& call = {});

// Same, for JSON in and out of the control API (no credentials).
CurlReply control_call(const std::string& url, const std::string& method,
                       const nlohmann::json& body = nullptr);

}  // namespace ironhold::test
