#pragma once
// Drivers for cloud accounts (OpenStack, EC2, BCC) land here.
#include <span>
#include <string_view>

namespace ironhold::cloudapi {

// The cloud provider names an account may be enrolled with.
std::span<const std::string_view> provider_names();

}  // namespace ironhold::cloudapi
