#include "curl_client.hpp"

#include <algorithm>

namespace ironhold::test {

namespace {

std::size_t on_body(char* data, std::size_t size, std::size_t n, void* out) {
  static_cast<std::string*>(out)->append(data, size * n);
  return size * n;
}

std::size_t on_header(char* data, std::size_t size, std::size_t n, void* out) {
  std::string line(data, size * n);
  const auto colon = line.find(':');
  if (colon != std::string::npos) {
    std::string name = line.substr(0, colon);
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return std::tolower(c); });
    std::string value = line.substr(colon + 1);
    value.erase(0, value.find_first_not_of(' '));
    while (!value.empty() && (value.back() == '\r' || value.back() == '\n')) value.pop_back();
    (*static_cast<std::map<std::string, std::string>*>(out))[name] = value;
  }
  return size * n;
}

std::string leaf_certificate(CURL* curl) {
  curl_certinfo* info = nullptr;
  if (curl_easy_getinfo(curl, CURLINFO_CERTINFO, &info) != CURLE_OK || !info ||
      info->num_of_certs < 1)
    return {};
  for (curl_slist* item = info->certinfo[0]; item; item = item->next) {
    const std::string line = item->data;
    if (line.rfind("Cert:", 0) == 0) return line.substr(5);
  }
  return {};
}

}  // namespace

CurlReply curl_fetch(const std::string& url, const CurlCall& call) {
  CURL* curl = curl_easy_init();
  CurlReply reply;
  if (!curl) {
    reply.code = CURLE_FAILED_INIT;
    return reply;
  }
  curl_slist* headers = nullptr;
  bool typed = false;  // the caller chose the Content-Type
  for (const auto& h : call.headers) {
    headers = curl_slist_append(headers, h.c_str());
    const std::string_view field = "content-type:";
    typed = typed || (h.size() > field.size() &&
                      std::equal(field.begin(), field.end(), h.begin(), [](char a, char b) {
                        return a == std::tolower(static_cast<unsigned char>(b));
                      }));
  }
  if (!call.body.empty() && !typed)
    headers = curl_slist_append(headers, "Content-Type: application/json");
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, call.method.c_str());
  if (!call.body.empty()) {
    // With its size: a pushed image has NUL bytes.
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(call.body.size()));
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, call.body.data());
  }
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  // The simulator's certificates are self-signed and made at start: no chain to verify here.
  curl_easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, 0L);
  curl_easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, 0L);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, call.timeout_ms);
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  if (call.follow) {
    curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(curl, CURLOPT_MAXREDIRS, call.max_redirects);
  }
  if (call.certinfo) curl_easy_setopt(curl, CURLOPT_CERTINFO, 1L);
  if (!call.basic.empty()) {
    curl_easy_setopt(curl, CURLOPT_HTTPAUTH, CURLAUTH_BASIC);
    curl_easy_setopt(curl, CURLOPT_USERPWD, call.basic.c_str());
  }
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &reply.body);
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &reply.headers);
  const auto start = std::chrono::steady_clock::now();
  reply.code = curl_easy_perform(curl);
  reply.elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - start);
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &reply.status);
  if (call.certinfo) reply.leaf_pem = leaf_certificate(curl);
  curl_slist_free_all(headers);
  curl_easy_cleanup(curl);
  return reply;
}

CurlReply control_call(const std::string& url, const std::string& method,
                       const nlohmann::json& body) {
  CurlCall call;
  call.method = method;
  call.basic.clear();
  if (!body.is_null()) call.body = body.dump();
  return curl_fetch(url, call);
}

}  // namespace ironhold::test
