#include "sim/oidc/login_page.hpp"

namespace ironhold::sim::oidc {

namespace {

constexpr std::string_view kStyle =
    "body{font-family:sans-serif;max-width:24rem;margin:4rem auto}"
    "label,input{display:block;width:100%;margin:.3rem 0}"
    "#error{color:#a00}";

std::string head(std::string_view title) {
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>";
  out += html_escape(title);
  out += "</title><style>";
  out += kStyle;
  out += "</style></head><body>\n";
  return out;
}

}  // namespace

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string render_login_page(const LoginPage& page) {
  std::string out = head("Sign in");
  out += "<h1>Sign in</h1>\n<p>to continue to <strong>" + html_escape(page.client_id) +
         "</strong> (Ironhold's simulated identity provider)</p>\n";
  if (!page.error.empty())
    out += "<p id=\"error\" role=\"alert\">" + html_escape(page.error) + "</p>\n";
  out += "<form method=\"post\" action=\"/authorize\">\n";
  for (const auto& [name, value] : page.request)
    out += "<input type=\"hidden\" name=\"" + html_escape(name) + "\" value=\"" +
           html_escape(value) + "\">\n";
  out +=
      "<label for=\"username\">User name</label>"
      "<input id=\"username\" name=\"username\" autocomplete=\"username\" value=\"" +
      html_escape(page.username) + "\" autofocus>\n";
  out +=
      "<label for=\"password\">Password</label>"
      "<input id=\"password\" name=\"password\" type=\"password\" "
      "autocomplete=\"current-password\">\n";
  out += "<input id=\"sign-in\" type=\"submit\" value=\"Sign in\">\n";
  // formnovalidate: denying needs no credentials.
  out +=
      "<button id=\"deny\" name=\"deny\" value=\"1\" type=\"submit\" formnovalidate>Deny"
      "</button>\n</form>\n</body></html>\n";
  return out;
}

std::string render_error_page(std::string_view title, std::string_view message) {
  return head(title) + "<h1>" + html_escape(title) + "</h1>\n<p id=\"error\">" +
         html_escape(message) + "</p>\n</body></html>\n";
}

}  // namespace ironhold::sim::oidc
