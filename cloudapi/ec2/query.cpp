#include "cloudapi/ec2/query.hpp"

#include "cloudapi/common/uri_encode.hpp"
#include "cloudapi/ec2/sigv4.hpp"

namespace ironhold::cloudapi::ec2 {

Ec2Query::Ec2Query(std::string action) : action_(std::move(action)) {
  params_.emplace_back("Action", action_);
  params_.emplace_back("Version", std::string(kEc2ApiVersion));
}

Ec2Query& Ec2Query::add(std::string name, std::string value) {
  params_.emplace_back(std::move(name), std::move(value));
  return *this;
}

Ec2Query& Ec2Query::add_list(std::string_view prefix, const std::vector<std::string>& values) {
  for (std::size_t i = 0; i < values.size(); ++i)
    params_.emplace_back(std::string(prefix) + "." + std::to_string(i + 1), values[i]);
  return *this;
}

Ec2Query& Ec2Query::add_filter(std::string name, const std::vector<std::string>& values) {
  const std::string prefix = "Filter." + std::to_string(++filters_);
  params_.emplace_back(prefix + ".Name", std::move(name));
  return add_list(prefix + ".Value", values);
}

std::string Ec2Query::form_body() const {
  return form_encode(params_);
}

std::string form_encode(const QueryParams& params) {
  std::string out;
  for (const auto& [name, value] : params) {
    if (!out.empty()) out += '&';
    out += rfc3986_encode(name, false);
    out += '=';
    out += rfc3986_encode(value, false);
  }
  return out;
}

}  // namespace ironhold::cloudapi::ec2
