#pragma once
// How the OpenStack driver trusts a cloud's certificate. Unlike a BMC, a cloud endpoint has a
// CA-signed certificate (public or the company's): http:// URLs go in plain, https:// ones are
// verified against the account's options["ca_bundle"] (PEM) or the system's CA bundle, and
// options["tls"] = "insecure" turns verification off (an operator's explicit choice).
#include <nlohmann/json.hpp>
#include <string_view>

#include "bmc/http/tls_policy.hpp"

namespace ironhold::cloudapi::openstack {

bmc::http::TlsPolicy tls_for(std::string_view url, const nlohmann::json& options);

}  // namespace ironhold::cloudapi::openstack
