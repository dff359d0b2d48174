#include "cloudapi/openstack/tls_choice.hpp"

#include <fstream>
#include <sstream>

namespace ironhold::cloudapi::openstack {

namespace {

// Debian's bundle of the system's trusted CAs, read once.
const std::string& system_ca_bundle() {
  static const std::string bundle = [] {
    std::ifstream in("/etc/ssl/certs/ca-certificates.crt", std::ios::binary);
    std::ostringstream out;
    out << in.rdbuf();
    return out.str();
  }();
  return bundle;
}

}  // namespace

bmc::http::TlsPolicy tls_for(std::string_view url, const nlohmann::json& options) {
  bmc::http::TlsPolicy policy;
  if (url.substr(0, 7) == "http://") {
    policy.mode = bmc::http::TlsPolicy::Mode::none;
    return policy;
  }
  if (options.is_object()) {
    if (const auto tls = options.find("tls");
        tls != options.end() && tls->is_string() && tls->get<std::string>() == "insecure") {
      policy.mode = bmc::http::TlsPolicy::Mode::insecure;
      return policy;
    }
    if (const auto bundle = options.find("ca_bundle");
        bundle != options.end() && bundle->is_string() && !bundle->get<std::string>().empty()) {
      policy.mode = bmc::http::TlsPolicy::Mode::ca;
      policy.ca_bundle_pem = bundle->get<std::string>();
      return policy;
    }
  }
  policy.mode = bmc::http::TlsPolicy::Mode::ca;
  policy.ca_bundle_pem = system_ca_bundle();
  return policy;
}

}  // namespace ironhold::cloudapi::openstack
