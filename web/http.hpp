#pragma once
// The HTTP vocabulary of the web layer.
#include <boost/asio/awaitable.hpp>
#include <boost/beast/http.hpp>

namespace ironhold::web {

namespace http = boost::beast::http;
namespace asio = boost::asio;
using Request = http::request<http::string_body>;
using Response = http::response<http::string_body>;

}  // namespace ironhold::web
