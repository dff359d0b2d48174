#include "cloudapi/ec2/ec2_request.hpp"

#include <boost/url/parse.hpp>

#include "inventory/error.hpp"

namespace ironhold::cloudapi::ec2 {

std::string default_endpoint(std::string_view region) {
  return "https://ec2." + std::string(region) + ".amazonaws.com/";
}

std::optional<std::string> host_header_for(std::string_view url) {
  const auto parsed = boost::urls::parse_uri(url);
  if (!parsed || !parsed->has_authority() || parsed->host().empty()) return std::nullopt;
  const std::string scheme(parsed->scheme());
  if (scheme != "http" && scheme != "https") return std::nullopt;
  std::string host(parsed->encoded_host_address());
  if (parsed->has_port()) {
    const std::string port(parsed->port());
    const bool default_port =
        (scheme == "http" && port == "80") || (scheme == "https" && port == "443");
    if (!default_port && !port.empty()) host += ":" + port;
  }
  return host;
}

SignedEc2Request sign_ec2_query(const Ec2Query& query, std::string_view endpoint_url,
                                const AwsCredentials& credentials, std::string_view region,
                                std::chrono::system_clock::time_point when) {
  const auto host = host_header_for(endpoint_url);
  if (!host) throw invalid("the EC2 endpoint is not an http(s) URL", "endpoint");
  const auto parsed = boost::urls::parse_uri(endpoint_url);
  std::string path(parsed->encoded_path());
  if (path.empty()) path = "/";

  SignedEc2Request out;
  out.url = std::string(endpoint_url);
  out.body = query.form_body();
  out.headers = {{"Host", *host}, {"Content-Type", std::string(kFormContentType)}};

  SigV4Request request{"POST", path, out.headers, out.body};
  SigV4Options options;
  options.region = std::string(region);
  options.service = "ec2";
  const SigV4Result signature = sign_v4(request, credentials, options, when);
  out.headers.insert(out.headers.end(), signature.headers_to_add.begin(),
                     signature.headers_to_add.end());
  return out;
}

}  // namespace ironhold::cloudapi::ec2
