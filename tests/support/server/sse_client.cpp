#include "tests/support/server/sse_client.hpp"

#include <boost/asio/ip/tcp.hpp>
#include <stdexcept>

namespace ironhold::test {

namespace http = boost::beast::http;
namespace beast = boost::beast;
using tcp = boost::asio::ip::tcp;

SseClient::SseClient(unsigned short port, const std::string& target,
                     const std::optional<std::string>& token,
                     const std::map<std::string, std::string>& headers)
    : stream_(io_) {
  stream_.connect(tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), port));
  http::request<http::empty_body> req{http::verb::get, target, 11};
  req.set(http::field::host, "127.0.0.1");
  req.set(http::field::accept, "text/event-stream");
  if (token) req.set(http::field::authorization, "Bearer " + *token);
  for (const auto& [k, v] : headers) req.set(k, v);
  http::write(stream_, req);
  parser_.body_limit(boost::none);
  stream_.expires_after(std::chrono::seconds(60));
  beast::error_code ec;
  http::async_read_header(stream_, buffer_, parser_,
                          [&ec](beast::error_code e, std::size_t) { ec = e; });
  io_.run();
  if (ec) throw std::runtime_error("no response header: " + ec.message());
  const auto& res = parser_.get();
  status_ = res.result_int();
  for (const auto& field : res) {
    std::string name(field.name_string());
    for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    headers_[name] = std::string(field.value());
  }
}

SseClient::~SseClient() {
  close();
}

std::string SseClient::header(const std::string& name) const {
  const auto it = headers_.find(name);
  return it == headers_.end() ? std::string() : it->second;
}

void SseClient::close() {
  beast::error_code ignored;
  stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
  stream_.close();
}

bool SseClient::read_more(std::chrono::steady_clock::time_point deadline) {
  if (ended_ || broken_) return false;
  if (parser_.is_done()) {
    ended_ = true;
    return false;
  }
  char piece[4096];
  parser_.get().body().data = piece;
  parser_.get().body().size = sizeof piece;
  const auto now = std::chrono::steady_clock::now();
  if (now >= deadline) throw std::runtime_error("the event stream sent nothing in time");
  stream_.expires_after(deadline - now);
  beast::error_code ec;
  io_.restart();
  http::async_read_some(stream_, buffer_, parser_,
                        [&ec](beast::error_code e, std::size_t) { ec = e; });
  io_.run();
  text_.append(piece, sizeof piece - parser_.get().body().size);
  if (ec == http::error::need_buffer) ec = {};
  if (ec == beast::error::timeout)
    throw std::runtime_error("the event stream sent nothing in time");
  if (ec) {
    broken_ = true;
    return false;
  }
  if (parser_.is_done()) ended_ = true;
  return true;
}

// The event stream interpretation of the HTML Living Standard, line by line.
std::optional<SseEvent> SseClient::parse_event() {
  for (;;) {
    const auto end = text_.find_first_of("\r\n");
    if (end == std::string::npos) return std::nullopt;
    if (text_[end] == '\r' && end + 1 == text_.size()) return std::nullopt;  // CR LF split
    const std::string line = text_.substr(0, end);
    const bool crlf = text_[end] == '\r' && text_[end + 1] == '\n';
    text_.erase(0, end + (crlf ? 2 : 1));
    if (line.empty()) {
      // Dispatch: the id moves even when there is no data to dispatch.
      if (!has_data_) {
        type_.clear();
        continue;
      }
      SseEvent event;
      event.id = last_event_id_;
      if (!type_.empty()) event.type = type_;
      event.data = data_;
      data_.clear();
      type_.clear();
      has_data_ = false;
      return event;
    }
    if (line.front() == ':') {
      comments_.push_back(line.substr(line.size() > 1 && line[1] == ' ' ? 2 : 1));
      continue;
    }
    const auto colon = line.find(':');
    const std::string field = line.substr(0, colon);
    std::string value = colon == std::string::npos ? std::string() : line.substr(colon + 1);
    if (!value.empty() && value.front() == ' ') value.erase(0, 1);
    if (field == "data") {
      if (has_data_) data_ += '\n';
      data_ += value;
      has_data_ = true;
    } else if (field == "event") {
      type_ = value;
    } else if (field == "id") {
      if (value.find('\0') == std::string::npos) last_event_id_ = value;
    }
  }
}

SseEvent SseClient::next(std::chrono::seconds cap) {
  if (!pending_.empty()) {
    SseEvent event = std::move(pending_.front());
    pending_.pop_front();
    return event;
  }
  const auto deadline = std::chrono::steady_clock::now() + cap;
  for (;;) {
    if (auto event = parse_event()) return *event;
    if (!read_more(deadline))
      throw std::runtime_error(broken_ ? "the event stream broke off" : "the event stream ended");
  }
}

void SseClient::until_comment(const std::string& text, std::chrono::seconds cap) {
  const auto deadline = std::chrono::steady_clock::now() + cap;
  for (std::size_t seen = 0;;) {
    while (auto event = parse_event()) pending_.push_back(std::move(*event));
    for (; seen < comments_.size(); ++seen)
      if (comments_[seen] == text) return;
    if (!read_more(deadline))
      throw std::runtime_error("the event stream ended before the comment \"" + text + "\"");
  }
}

std::vector<SseEvent> SseClient::until(const std::function<bool(const SseEvent&)>& last,
                                       std::chrono::seconds cap) {
  std::vector<SseEvent> events;
  for (;;) {
    events.push_back(next(cap));
    if (last(events.back())) return events;
  }
}

bool SseClient::ends_cleanly(std::chrono::seconds cap) {
  const auto deadline = std::chrono::steady_clock::now() + cap;
  while (read_more(deadline)) {
  }
  while (parse_event()) {
  }
  return ended_ && !broken_;
}

std::string SseClient::read_body() {
  while (read_more(std::chrono::steady_clock::now() + std::chrono::seconds(60))) {
  }
  return text_;
}

}  // namespace ironhold::test
