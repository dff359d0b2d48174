#include "web/auth/oidc_http.hpp"

#include <curl/curl.h>
#include <openssl/evp.h>

#include <cctype>
#include <memory>

#include "inventory/error.hpp"
#include "inventory/util/concat.hpp"

namespace ironhold::web::auth {
namespace oidc_http_detail {

constexpr std::size_t kMaxAnswerBytes = 1 << 20;

struct Sink {
  std::string body;
  bool overflowed = false;
};

std::size_t collect(char* data, std::size_t size, std::size_t count, void* user) {
  auto* sink = static_cast<Sink*>(user);
  const std::size_t n = size * count;
  if (sink->body.size() + n > kMaxAnswerBytes) {
    sink->overflowed = true;
    return 0;  // aborts the transfer
  }
  sink->body.append(data, n);
  return n;
}

struct CurlFree {
  void operator()(CURL* c) const { curl_easy_cleanup(c); }
};
struct SlistFree {
  void operator()(curl_slist* l) const { curl_slist_free_all(l); }
};

std::string base64(std::string_view text) {
  std::string out(4 * ((text.size() + 2) / 3) + 1, '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(text.data()),
                                static_cast<int>(text.size()));
  out.resize(static_cast<std::size_t>(n));
  return out;
}

OidcHttpResponse perform(const OidcConfig& config, const std::string& url, const std::string* form,
                         const std::string& authorization) {
  std::unique_ptr<CURL, CurlFree> curl(curl_easy_init());
  if (!curl) throw Error(ErrorKind::internal, "libcurl could not make a handle");
  Sink sink;
  char error[CURL_ERROR_SIZE] = {0};
  CURL* c = curl.get();
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, config.allow_plain_http ? "https,http" : "https");
  curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, static_cast<long>(config.timeout.count() * 1000));
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(config.timeout.count() * 1000));
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, collect);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &sink);
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, error);
  curl_easy_setopt(c, CURLOPT_USERAGENT, "ironhold");
  if (!config.ca_file.empty()) curl_easy_setopt(c, CURLOPT_CAINFO, config.ca_file.c_str());
  std::unique_ptr<curl_slist, SlistFree> headers(
      curl_slist_append(nullptr, "Accept: application/json"));
  if (!authorization.empty())
    headers.reset(curl_slist_append(headers.release(), authorization.c_str()));
  if (form) {
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, form->c_str());
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, static_cast<long>(form->size()));
    headers.reset(
        curl_slist_append(headers.release(), "Content-Type: application/x-www-form-urlencoded"));
  }
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers.get());
  const CURLcode rc = curl_easy_perform(c);
  if (sink.overflowed)
    throw Error(ErrorKind::unavailable,
                util::concat("the identity provider's answer at ", url, " is over 1 MiB"));
  if (rc != CURLE_OK)
    throw Error(ErrorKind::unavailable,
                util::concat("the identity provider at ", url, " cannot be reached: ",
                             error[0] ? std::string(error) : std::string(curl_easy_strerror(rc))));
  OidcHttpResponse out;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &out.status);
  const char* type = nullptr;
  curl_easy_getinfo(c, CURLINFO_CONTENT_TYPE, &type);
  if (type) out.content_type = type;
  out.body = std::move(sink.body);
  return out;
}

}  // namespace oidc_http_detail

std::string oauth_encode(std::string_view text) {
  static constexpr char hex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

OidcHttpResponse oidc_get(const OidcConfig& config, const std::string& url) {
  return oidc_http_detail::perform(config, url, nullptr, "");
}

OidcHttpResponse oidc_post_form(const OidcConfig& config, const std::string& url,
                                const std::vector<std::pair<std::string, std::string>>& form) {
  using namespace oidc_http_detail;
  std::string body;
  for (const auto& [name, value] : form)
    body += util::concat(body.empty() ? "" : "&", oauth_encode(name), "=", oauth_encode(value));
  std::string authorization;
  if (!config.client_secret.empty())
    authorization =
        "Authorization: Basic " + base64(util::concat(oauth_encode(config.client_id), ":",
                                                      oauth_encode(config.client_secret)));
  return perform(config, url, &body, authorization);
}

}  // namespace ironhold::web::auth
