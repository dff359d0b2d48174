#include "cloudapi/cloudapi.hpp"

namespace ironhold::cloudapi {

std::span<const std::string_view> provider_names() {
  static constexpr std::string_view names[] = {"openstack", "ec2", "bcc"};
  return names;
}

}  // namespace ironhold::cloudapi
