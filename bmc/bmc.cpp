#include "bmc/bmc.hpp"

namespace ironhold::bmc {

std::span<const std::string_view> driver_names() {
  static constexpr std::string_view names[] = {"redfish", "ipmi"};
  return names;
}

}  // namespace ironhold::bmc
