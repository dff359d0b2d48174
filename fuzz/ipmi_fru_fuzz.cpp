// libFuzzer target: arbitrary bytes as a BMC may return them, through parse_fru. Nothing may crash
// or read out of bounds; an error is a value.
#include <cstddef>
#include <cstdint>

#include "bmc/ipmi/fru.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto result = ironhold::bmc::ipmi::parse_fru(ironhold::bmc::ipmi::ByteView(data, size));
  (void)result;
  return 0;
}
