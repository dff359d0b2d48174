#pragma once
// The console's session cookie: reading it from a Cookie header (RFC 6265 §5.4: "a=b; c=d") and
// the Set-Cookie that gives or clears it.
#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace ironhold::web {

inline constexpr std::string_view kSessionCookie = "ironhold_session";

// The value of the first cookie called `name` in a Cookie header; nothing when absent.
std::optional<std::string_view> cookie_value(std::string_view header, std::string_view name);

// The Set-Cookie value for the session: HttpOnly (scripts in the page cannot read it),
// SameSite=Strict (no other site's page can make the browser send it), Path=/, Max-Age
// `lifetime`, and Secure when the console is reached over TLS. An empty value with a zero
// lifetime clears it.
std::string session_set_cookie(std::string_view value, std::chrono::seconds lifetime, bool secure);

// The cookie that ties an OpenID Connect sign-in to the browser that began it (its state), so
// that a code obtained elsewhere cannot be slipped into someone else's browser. SameSite=Lax,
// not Strict: the browser comes back from the provider's site, a top-level GET that Lax allows.
// Path: the sign-in routes only.
inline constexpr std::string_view kOidcStateCookie = "ironhold_oidc";
std::string oidc_state_set_cookie(std::string_view value, std::chrono::seconds lifetime,
                                  bool secure);

}  // namespace ironhold::web
