#include "inventory/model/bmc_options.hpp"

#include <openssl/bio.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <algorithm>
#include <memory>
#include <set>

#include "inventory/error.hpp"

namespace ironhold {
namespace {

using nlohmann::json;

bool is_https_option(const std::string& key) {
  return key == "tls" || key == "ca_bundle";
}
// Options of every Redfish endpoint, https or plain http.
bool is_redfish_option(const std::string& key) {
  return key == "max_requests_per_second";
}
bool is_ipmi_option(const std::string& key) {
  return key == "cipher_suites" || key == "privilege" || key == "kg";
}

// Counts the certificates in a PEM bundle; 0 when it holds none or is not PEM.
int count_pem_certificates(const std::string& pem) {
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(
      BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())), &BIO_free);
  if (!bio) return 0;
  int count = 0;
  while (X509* cert = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)) {
    X509_free(cert);
    ++count;
  }
  return count;
}

std::string string_option(const json& in, const char* key) {
  const auto& v = in.at(key);
  if (!v.is_string())
    throw invalid(std::string("\"options.") + key + "\" must be a string",
                  std::string("options.") + key);
  return v.get<std::string>();
}

}  // namespace

void validate_bmc_options(const json& in, const std::string& scheme, json& out,
                          std::optional<std::string>& kg) {
  out = json::object();
  for (const auto& [key, value] : in.items()) {
    const std::string field = "options." + key;
    if (!is_https_option(key) && !is_ipmi_option(key) && !is_redfish_option(key))
      throw unprocessable("unknown option \"" + key.substr(0, 80) +
                              "\" (known: tls, ca_bundle, max_requests_per_second, "
                              "cipher_suites, privilege, kg)",
                          field);
    if (value.is_null()) continue;
    if (!scheme.empty() && is_https_option(key) && scheme != "https")
      throw unprocessable("option \"" + key + "\" applies to https:// endpoints only", field);
    if (!scheme.empty() && is_redfish_option(key) && scheme != "https" && scheme != "http")
      throw unprocessable("option \"" + key +
                              "\" applies to Redfish (https:// or http://) "
                              "endpoints only",
                          field);
    if (!scheme.empty() && is_ipmi_option(key) && scheme != "ipmi")
      throw unprocessable("option \"" + key + "\" applies to ipmi:// endpoints only", field);
  }
  auto has = [&](const char* key) { return in.contains(key) && !in.at(key).is_null(); };

  if (has("tls")) {
    const auto tls = string_option(in, "tls");
    if (tls != "pin" && tls != "ca" && tls != "insecure")
      throw unprocessable("\"options.tls\" must be pin, ca or insecure", "options.tls");
    out["tls"] = tls;
  }
  if (has("ca_bundle")) {
    const auto pem = string_option(in, "ca_bundle");
    if (pem.size() > 256 * 1024)
      throw unprocessable("\"options.ca_bundle\" is larger than 256 KiB", "options.ca_bundle");
    if (count_pem_certificates(pem) == 0)
      throw unprocessable("\"options.ca_bundle\" holds no PEM certificate", "options.ca_bundle");
    out["ca_bundle"] = pem;
  }
  const bool tls_ca = out.value("tls", "") == "ca";
  if (tls_ca && !out.contains("ca_bundle"))
    throw unprocessable("\"options.tls\": ca needs \"options.ca_bundle\" (PEM)",
                        "options.ca_bundle");
  if (!tls_ca && out.contains("ca_bundle"))
    throw unprocessable("\"options.ca_bundle\" is used only with \"tls\": \"ca\"",
                        "options.ca_bundle");

  if (has("max_requests_per_second")) {
    // Some BMCs fall over under a burst of requests even one at a time (their web server
    // restarts): this spaces every request to the BMC out, polls and actions alike.
    const auto& rate = in.at("max_requests_per_second");
    if (!rate.is_number())
      throw invalid("\"options.max_requests_per_second\" must be a number",
                    "options.max_requests_per_second");
    const double value = rate.get<double>();
    if (!(value >= 0.1 && value <= 1000))
      throw unprocessable("\"options.max_requests_per_second\" must be from 0.1 to 1000",
                          "options.max_requests_per_second");
    out["max_requests_per_second"] = value;
  }
  if (has("cipher_suites")) {
    const auto& suites = in.at("cipher_suites");
    if (!suites.is_array())
      throw invalid("\"options.cipher_suites\" must be an array of integers",
                    "options.cipher_suites");
    if (suites.empty() || suites.size() > 20)
      throw unprocessable("\"options.cipher_suites\" must list 1 to 20 suites",
                          "options.cipher_suites");
    std::set<long long> seen;
    for (const auto& s : suites) {
      if (!s.is_number_integer())
        throw invalid("\"options.cipher_suites\" must be an array of integers",
                      "options.cipher_suites");
      const auto id = s.get<long long>();
      // The suites the IPMI driver implements. 0 (no authentication, no integrity, no
      // encryption) is used only when listed here: listing it is the explicit consent.
      if (id != 0 && id != 3 && id != 17)
        throw unprocessable(
            "the IPMI driver implements cipher suites 17, 3 and (without any "
            "security, only when listed) 0; got " +
                std::to_string(id),
            "options.cipher_suites");
      if (!seen.insert(id).second)
        throw unprocessable(
            "\"options.cipher_suites\" lists suite " + std::to_string(id) + " twice",
            "options.cipher_suites");
    }
    out["cipher_suites"] = suites;
  }
  if (has("privilege")) {
    const auto privilege = string_option(in, "privilege");
    if (privilege != "operator" && privilege != "admin")
      throw unprocessable("\"options.privilege\" must be operator or admin", "options.privilege");
    out["privilege"] = privilege;
  }
  if (has("kg")) {
    const auto key = string_option(in, "kg");
    const bool hex =
        !key.empty() && key.size() % 2 == 0 && key.size() <= 40 &&
        std::all_of(key.begin(), key.end(), [](unsigned char c) { return std::isxdigit(c); });
    if (!hex)
      throw unprocessable("\"options.kg\" must be the BMC key as up to 40 hex digits (20 bytes)",
                          "options.kg");
    kg = key;
  }
}

}  // namespace ironhold
