#include "sim/cloud/ec2/ec2_auth.hpp"

#include <algorithm>

#include "cloudapi/ec2/sigv4.hpp"
#include "sim/cloud/ec2/ec2_xml_writer.hpp"

namespace ironhold::sim::cloud::ec2 {
namespace sigv4 = ironhold::cloudapi::ec2;

namespace {

ApiReply auth_failure() {
  return error_reply(401, "AuthFailure",
                     "AWS was not able to validate the provided access credentials");
}

ApiReply signature_mismatch() {
  return error_reply(403, "SignatureDoesNotMatch",
                     "The request signature we calculated does not match the signature you "
                     "provided. Check your AWS Secret Access Key and signing method. Consult the "
                     "service documentation for details.");
}

// Compares without stopping at the first difference, so timing says nothing about the signature.
bool same_signature(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (std::size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

}  // namespace

std::optional<ApiReply> check_signature(const ApiRequest& request, const AuthSettings& settings,
                                        std::chrono::system_clock::time_point now) {
  const auto header = request.header("Authorization");
  if (!header) return auth_failure();
  const auto auth = sigv4::parse_authorization(*header);
  if (!auth)
    return error_reply(400, "IncompleteSignature",
                       "The Authorization header is not a well-formed AWS4-HMAC-SHA256 value");
  if (auth->access_key_id != settings.access_key_id || auth->service != "ec2" ||
      auth->region != settings.region)
    return auth_failure();

  const auto date_header = request.header("X-Amz-Date");
  const auto date = date_header ? sigv4::parse_amz_date(*date_header) : std::nullopt;
  if (!date)
    return error_reply(400, "IncompleteSignature",
                       "Authorization header requires existence of a valid 'X-Amz-Date' header");
  const auto skew = now > *date ? now - *date : *date - now;
  if (skew > settings.max_clock_skew)
    return error_reply(400, "RequestExpired",
                       "Request has expired. Timestamp date is " + *date_header);

  if (settings.session_token && request.header("X-Amz-Security-Token") != settings.session_token)
    return auth_failure();

  const auto& names = auth->signed_headers;
  const bool lists_required = std::find(names.begin(), names.end(), "host") != names.end() &&
                              std::find(names.begin(), names.end(), "x-amz-date") != names.end();
  if (!lists_required || !std::is_sorted(names.begin(), names.end()) ||
      auth->date != date_header->substr(0, 8))
    return signature_mismatch();

  const std::string canonical =
      sigv4::canonical_request(request.method, request.target, request.headers, names,
                               sigv4::sha256_hex(request.body), true);
  const std::string scope = sigv4::credential_scope(auth->date, auth->region, auth->service);
  const std::string to_sign = sigv4::string_to_sign(*date_header, scope, canonical);
  const std::string expected = sigv4::signature_of(settings.secret_access_key, auth->date,
                                                   auth->region, auth->service, to_sign);
  if (!same_signature(expected, auth->signature)) return signature_mismatch();
  return std::nullopt;
}

}  // namespace ironhold::sim::cloud::ec2
