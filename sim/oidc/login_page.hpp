#pragma once
// The HTML the simulated identity provider shows a browser: its sign-in form and the page that
// refuses an authorization request it cannot send back to the client. Browser tests drive the form
// by its element ids (username, password, sign-in, deny, error), so those are part of the contract.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ironhold::sim::oidc {

// &, <, >, " and ' as character references: safe in element content and quoted attributes.
std::string html_escape(std::string_view text);

struct LoginPage {
  std::string client_id;
  // The authorization request's parameters, posted back as hidden inputs so that the POST to
  // /authorize carries the whole request again.
  std::vector<std::pair<std::string, std::string>> request;
  std::string username;  // shown again after a failed attempt
  std::string error;     // empty: no message
};

std::string render_login_page(const LoginPage& page);

// A page that says why the request was refused, for the errors that must not be redirected to the
// client (an unknown client or redirect_uri: RFC 6749 section 4.1.2.1).
std::string render_error_page(std::string_view title, std::string_view message);

}  // namespace ironhold::sim::oidc
