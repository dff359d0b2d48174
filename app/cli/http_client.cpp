#include "app/cli/http_client.hpp"

#include <curl/curl.h>
#include <sys/stat.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <mutex>

namespace ironhold::cli {
namespace {

ErrorKind kind_for_status(long status) {
  switch (status) {
    case 400:
      return ErrorKind::invalid;
    case 401:
      return ErrorKind::unauthenticated;
    case 403:
      return ErrorKind::forbidden;
    case 404:
      return ErrorKind::not_found;
    case 409:
      return ErrorKind::conflict;
    case 422:
      return ErrorKind::unprocessable;
    case 502:
    case 503:
    case 504:
      return ErrorKind::unavailable;
    default:
      return status >= 500 ? ErrorKind::internal : ErrorKind::invalid;
  }
}

void global_init() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

struct SlistDeleter {
  void operator()(curl_slist* list) const { curl_slist_free_all(list); }
};
using Slist = std::unique_ptr<curl_slist, SlistDeleter>;

void add_header(Slist& list, const std::string& header) {
  // Appending returns the list's head: the old head, or the new node when the list was empty.
  curl_slist* head = curl_slist_append(list.get(), header.c_str());
  if (!head) throw std::bad_alloc();
  if (!list) list.reset(head);
}

struct Sink {
  std::string* body;
  std::size_t limit;
  bool overflow = false;
};

size_t write_body(char* data, size_t size, size_t count, void* user) {
  auto* sink = static_cast<Sink*>(user);
  const size_t n = size * count;
  if (sink->body->size() + n > sink->limit) {
    sink->overflow = true;
    return 0;  // makes curl stop with CURLE_WRITE_ERROR
  }
  sink->body->append(data, n);
  return n;
}

std::string trimmed_base(std::string url) {
  while (!url.empty() && url.back() == '/') url.pop_back();
  return url;
}

}  // namespace

ApiError::ApiError(long status, std::string message, std::string field, std::string request_id)
    : Error(kind_for_status(status), std::move(message), std::move(field)),
      status_(status),
      request_id_(std::move(request_id)) {}

struct HttpClient::Handle {
  struct Deleter {
    void operator()(CURL* c) const { curl_easy_cleanup(c); }
  };
  std::unique_ptr<CURL, Deleter> curl;
};

HttpClient::HttpClient(HttpSettings settings)
    : settings_(std::move(settings)), handle_(std::make_unique<Handle>()) {
  settings_.base_url = trimmed_base(std::move(settings_.base_url));
  global_init();
  handle_->curl.reset(curl_easy_init());
  if (!handle_->curl) throw std::bad_alloc();
}

HttpClient::~HttpClient() = default;
HttpClient::HttpClient(HttpClient&&) noexcept = default;
HttpClient& HttpClient::operator=(HttpClient&&) noexcept = default;

// A file being uploaded: curl reads it through read_file as it sends.
struct HttpClient::FileBody {
  std::FILE* file = nullptr;
  curl_off_t size = 0;
};

namespace {

size_t read_file(char* buffer, size_t size, size_t count, void* user) {
  auto* file = static_cast<std::FILE*>(user);
  const size_t n = std::fread(buffer, 1, size * count, file);
  if (n == 0 && std::ferror(file)) return CURL_READFUNC_ABORT;
  return n;
}

}  // namespace

HttpResponse HttpClient::send(std::string_view method, std::string_view target,
                              const nlohmann::json* body) {
  return exchange(method, target, body, nullptr, {});
}

HttpResponse HttpClient::exchange(std::string_view method, std::string_view target,
                                  const nlohmann::json* body, FileBody* file,
                                  const std::vector<std::string>& extra_headers) {
  CURL* c = handle_->curl.get();
  // Reset forgets the previous request's options but keeps the connection cache.
  curl_easy_reset(c);
  const std::string url = settings_.base_url + std::string(target);
  const std::string payload = body ? body->dump() : std::string();
  HttpResponse response;
  Sink sink{&response.body, settings_.max_body};
  char errbuf[CURL_ERROR_SIZE] = {};

  Slist headers;
  add_header(headers, "Accept: application/json, application/problem+json");
  if (body) add_header(headers, "Content-Type: application/json");
  if (file) add_header(headers, "Content-Type: application/octet-stream");
  if (settings_.token) add_header(headers, "Authorization: Bearer " + *settings_.token);
  for (const auto& header : extra_headers) add_header(headers, header);

  const std::string method_str(method);
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  if (method != "GET" && method != "POST")
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method_str.c_str());
  if (body) {
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, payload.c_str());
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(payload.size()));
  }
  if (file) {
    curl_easy_setopt(c, CURLOPT_POST, 1L);
    curl_easy_setopt(c, CURLOPT_READFUNCTION, &read_file);
    curl_easy_setopt(c, CURLOPT_READDATA, file->file);
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, file->size);
  }
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers.get());
  curl_easy_setopt(c, CURLOPT_USERAGENT, "ironhold-cli/0.1");
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, &write_body);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &sink);
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);  // no SIGALRM games; timeouts still apply
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, static_cast<long>(settings_.connect_timeout.count()));
  if (file) {
    // A large upload takes as long as it takes; one that stalls for a minute is given up.
    curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, 60L);
  } else {
    curl_easy_setopt(c, CURLOPT_TIMEOUT, static_cast<long>(settings_.timeout.count()));
  }
  // Only our API, over HTTP(S); a redirect is never followed, so the token goes nowhere else.
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
  if (settings_.ca_file) curl_easy_setopt(c, CURLOPT_CAINFO, settings_.ca_file->c_str());

  const CURLcode rc = curl_easy_perform(c);
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, nullptr);  // errbuf is about to go out of scope
  if (rc != CURLE_OK) {
    if (sink.overflow)
      throw TransportError("the answer from " + settings_.base_url + " is larger than " +
                           std::to_string(settings_.max_body >> 20) + " MiB; giving up");
    const std::string reason = errbuf[0] ? errbuf : curl_easy_strerror(rc);
    if (rc == CURLE_OPERATION_TIMEDOUT)
      throw TransportError("no answer from " + settings_.base_url + " within the time limit (" +
                           reason + ")");
    throw TransportError("cannot reach " + settings_.base_url + ": " + reason);
  }
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &response.status);
  char* content_type = nullptr;
  curl_easy_getinfo(c, CURLINFO_CONTENT_TYPE, &content_type);
  if (content_type) response.content_type = content_type;
  return response;
}

nlohmann::json HttpClient::post_file(std::string_view target, const std::string& path,
                                     const std::vector<std::string>& headers) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> opened(std::fopen(path.c_str(), "rb"),
                                                         &std::fclose);
  if (!opened) throw Error(ErrorKind::invalid, "cannot open " + path + ": " + std::strerror(errno));
  struct stat info {};
  if (::fstat(fileno(opened.get()), &info) != 0 || !S_ISREG(info.st_mode))
    throw Error(ErrorKind::invalid, path + " is not a regular file");
  FileBody file{opened.get(), static_cast<curl_off_t>(info.st_size)};
  return parse_answer("POST", target, exchange("POST", target, nullptr, &file, headers));
}

nlohmann::json HttpClient::call(std::string_view method, std::string_view target,
                                const nlohmann::json* body) {
  return parse_answer(method, target, send(method, target, body));
}

nlohmann::json HttpClient::parse_answer(std::string_view method, std::string_view target,
                                        HttpResponse r) {
  if (r.status >= 400) throw api_error(r);
  if (r.status == 204 || r.body.empty()) return nullptr;
  auto json = nlohmann::json::parse(r.body, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded())
    throw Error(ErrorKind::internal,
                "the server at " + settings_.base_url + " answered " + std::string(method) + " " +
                    std::string(target) + " with something that is not JSON (HTTP " +
                    std::to_string(r.status) + ", " +
                    (r.content_type.empty() ? "no content type" : r.content_type) +
                    "); is --url pointing at an Ironhold server?");
  return json;
}

nlohmann::json HttpClient::get(std::string_view target) {
  return call("GET", target, nullptr);
}
nlohmann::json HttpClient::post(std::string_view target, const nlohmann::json& body) {
  return call("POST", target, &body);
}
nlohmann::json HttpClient::patch(std::string_view target, const nlohmann::json& body) {
  return call("PATCH", target, &body);
}
nlohmann::json HttpClient::put(std::string_view target, const nlohmann::json& body) {
  return call("PUT", target, &body);
}
nlohmann::json HttpClient::del(std::string_view target) {
  return call("DELETE", target, nullptr);
}

std::string url_encode(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    const bool unreserved = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
                            (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' || c == '~';
    if (unreserved) {
      out += ch;
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 0x0F];
    }
  }
  return out;
}

ApiError api_error(const HttpResponse& response) {
  std::string message, field, request_id;
  auto problem = nlohmann::json::parse(response.body, nullptr, /*allow_exceptions=*/false);
  if (problem.is_object()) {
    auto text = [&](const char* key) {
      auto it = problem.find(key);
      return it != problem.end() && it->is_string() ? it->get<std::string>() : std::string();
    };
    message = text("detail");
    if (message.empty()) message = text("title");
    field = text("field");
    request_id = text("request_id");
  }
  if (message.empty()) {
    // Not a problem document (a proxy's HTML page, say): say what came back, briefly.
    message = "the server answered HTTP " + std::to_string(response.status);
    if (!response.body.empty() && !problem.is_object() && response.body.size() <= 200 &&
        response.content_type.starts_with("text/plain"))
      message += ": " + response.body;
  }
  return ApiError(response.status, std::move(message), std::move(field), std::move(request_id));
}

namespace {

// Where a download's bytes go: the file for a success answer, else a bounded buffer for the
// problem document.
struct DownloadSink {
  CURL* curl = nullptr;
  std::FILE* out = nullptr;
  std::string error_body;
  long long bytes = 0;
  bool write_failed = false;
  std::map<std::string, std::string> headers;
};

size_t write_download(char* data, size_t size, size_t count, void* user) {
  auto* sink = static_cast<DownloadSink*>(user);
  const size_t n = size * count;
  long status = 0;
  curl_easy_getinfo(sink->curl, CURLINFO_RESPONSE_CODE, &status);
  if (status >= 300) {
    if (sink->error_body.size() + n > (1u << 20)) return 0;
    sink->error_body.append(data, n);
    return n;
  }
  if (std::fwrite(data, 1, n, sink->out) != n) {
    sink->write_failed = true;
    return 0;
  }
  sink->bytes += static_cast<long long>(n);
  return n;
}

size_t read_header(char* data, size_t size, size_t count, void* user) {
  auto* sink = static_cast<DownloadSink*>(user);
  const std::string_view line(data, size * count);
  const auto colon = line.find(':');
  if (colon != std::string_view::npos) {
    std::string name(line.substr(0, colon));
    for (char& ch : name) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    std::string_view value = line.substr(colon + 1);
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t'))
      value.remove_prefix(1);
    while (!value.empty() && (value.back() == '\r' || value.back() == '\n' || value.back() == ' '))
      value.remove_suffix(1);
    sink->headers[name] = std::string(value);
  }
  return size * count;
}

}  // namespace

HttpClient::Download HttpClient::download(std::string_view target, std::FILE* out) {
  CURL* c = handle_->curl.get();
  curl_easy_reset(c);
  const std::string url = settings_.base_url + std::string(target);
  DownloadSink sink;
  sink.curl = c;
  sink.out = out;
  char errbuf[CURL_ERROR_SIZE] = {};
  Slist headers;
  add_header(headers, "Accept: */*");
  if (settings_.token) add_header(headers, "Authorization: Bearer " + *settings_.token);
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers.get());
  curl_easy_setopt(c, CURLOPT_USERAGENT, "ironhold-cli/0.1");
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, &write_download);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &sink);
  curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, &read_header);
  curl_easy_setopt(c, CURLOPT_HEADERDATA, &sink);
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, static_cast<long>(settings_.connect_timeout.count()));
  // An export takes as long as it takes; one that stalls for a minute is given up.
  curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);
  curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, 60L);
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
  if (settings_.ca_file) curl_easy_setopt(c, CURLOPT_CAINFO, settings_.ca_file->c_str());
  const CURLcode rc = curl_easy_perform(c);
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, nullptr);
  Download result;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &result.status);
  if (rc != CURLE_OK) {
    if (sink.write_failed)
      throw TransportError("cannot write the download: " + std::string(std::strerror(errno)));
    const std::string reason = errbuf[0] ? errbuf : curl_easy_strerror(rc);
    throw TransportError("the download from " + settings_.base_url + " broke off: " + reason);
  }
  if (result.status >= 300) {
    HttpResponse r;
    r.status = result.status;
    r.body = std::move(sink.error_body);
    r.content_type = sink.headers.count("content-type") ? sink.headers["content-type"] : "";
    throw api_error(r);
  }
  result.headers = std::move(sink.headers);
  result.bytes = sink.bytes;
  return result;
}

}  // namespace ironhold::cli
