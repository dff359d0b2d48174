// libFuzzer target: arbitrary bytes as a BMC may return them, through decode_sel_entry. Nothing may
// crash or read out of bounds; an error is a value.
#include <cstddef>
#include <cstdint>

#include "bmc/ipmi/sel.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto result = ironhold::bmc::ipmi::decode_sel_entry(ironhold::bmc::ipmi::ByteView(data, size));
  (void)result;
  return 0;
}
