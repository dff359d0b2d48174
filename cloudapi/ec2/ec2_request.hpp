#pragma once
// One EC2 Query API call as it goes on the wire: POST of the form body to the endpoint, with the
// headers EC2 expects signed by SigV4 (host, content-type, x-amz-date, x-amz-security-token).
#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "cloudapi/ec2/query.hpp"
#include "cloudapi/ec2/sigv4.hpp"

namespace ironhold::cloudapi::ec2 {

inline constexpr std::string_view kFormContentType =
    "application/x-www-form-urlencoded; charset=utf-8";

// "https://ec2.<region>.amazonaws.com/"
std::string default_endpoint(std::string_view region);

// What the Host header of a request to `url` says: host[:port], the port left out when it is the
// scheme's default (as HTTP clients and botocore do). Nothing when the URL is not absolute http(s).
std::optional<std::string> host_header_for(std::string_view url);

struct SignedEc2Request {
  std::string method = "POST";
  std::string url;
  SigV4Headers headers;  // Host, Content-Type, X-Amz-Date, [X-Amz-Security-Token], Authorization
  std::string body;
};

// Throws ironhold::Error (invalid) when the endpoint is not an absolute http(s) URL.
SignedEc2Request sign_ec2_query(const Ec2Query& query, std::string_view endpoint_url,
                                const AwsCredentials& credentials, std::string_view region,
                                std::chrono::system_clock::time_point when);

}  // namespace ironhold::cloudapi::ec2
