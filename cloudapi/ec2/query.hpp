#pragma once
// The parameters of an EC2 Query API request (Action, Version, InstanceId.N,
// Filter.N.Name/Value.M, ...) and the form body they make.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ironhold::cloudapi::ec2 {

inline constexpr std::string_view kEc2ApiVersion = "2016-11-15";

using QueryParams = std::vector<std::pair<std::string, std::string>>;

class Ec2Query {
 public:
  // Starts with Action=<action> and Version=2016-11-15.
  explicit Ec2Query(std::string action);

  const std::string& action() const { return action_; }
  const QueryParams& params() const { return params_; }

  Ec2Query& add(std::string name, std::string value);
  // <prefix>.1=values[0], <prefix>.2=values[1], ... (the Query API's list form).
  Ec2Query& add_list(std::string_view prefix, const std::vector<std::string>& values);
  // Filter.N.Name=name and Filter.N.Value.M=values[M-1], N counting the filters added so far.
  Ec2Query& add_filter(std::string name, const std::vector<std::string>& values);

  // "Action=DescribeInstances&Version=2016-11-15&..." with RFC 3986 encoding (space as %20).
  std::string form_body() const;

 private:
  std::string action_;
  QueryParams params_;
  int filters_ = 0;
};

std::string form_encode(const QueryParams& params);

}  // namespace ironhold::cloudapi::ec2
