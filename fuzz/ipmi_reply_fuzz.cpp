// libFuzzer target: every decoder of what a BMC answers besides the packet layer: the RMCP+
// set-up messages (Open Session Response, RAKP 2 and 4, and the console's own messages as a
// BMC would read them) and the response data of every command the driver sends. The first byte
// picks the decoder. Nothing may crash or read out of bounds; a set-up message that decodes must
// encode to bytes that decode to the same fields.
#include <cstddef>
#include <cstdint>

#include "bmc/ipmi/commands.hpp"
#include "bmc/ipmi/repository_commands.hpp"
#include "bmc/ipmi/session_setup.hpp"

using namespace ironhold::bmc::ipmi;

namespace {

template <class T, class Decode>
void round_trip(ByteView data, Decode decode) {
  auto first = decode(data);
  auto* message = std::get_if<T>(&first);
  if (message == nullptr) return;
  const Bytes again = encode(*message);
  auto second = decode(again);
  auto* reread = std::get_if<T>(&second);
  if (reread == nullptr || encode(*reread) != again) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* bytes, std::size_t size) {
  if (size == 0) return 0;
  const ByteView data(bytes + 1, size - 1);
  switch (bytes[0] % 20) {
    case 0:
      round_trip<OpenSessionResponse>(data, decode_open_session_response);
      break;
    case 1:
      round_trip<Rakp2>(data, decode_rakp2);
      break;
    case 2:
      round_trip<Rakp4>(data, decode_rakp4);
      break;
    case 3:
      round_trip<OpenSessionRequest>(data, decode_open_session_request);
      break;
    case 4:
      round_trip<Rakp1>(data, decode_rakp1);
      break;
    case 5:
      round_trip<Rakp3>(data, decode_rakp3);
      break;
    case 6:
      (void)parse_device_id(data);
      break;
    case 7:
      (void)parse_chassis_status(data);
      break;
    case 8:
      (void)parse_boot_flags(data);
      break;
    case 9:
      (void)parse_reservation(data);
      break;
    case 10:
      (void)parse_sdr_chunk(data);
      break;
    case 11:
      (void)parse_sensor_reading(data);
      break;
    case 12:
      (void)parse_sel_info(data);
      break;
    case 13:
      (void)parse_sel_chunk(data);
      break;
    case 14:
      (void)parse_fru_area_info(data);
      break;
    case 15:
      (void)parse_fru_data(data);
      break;
    case 16:
      (void)parse_system_guid(data);
      break;
    case 17:
      if (auto page = parse_cipher_suite_page(data); std::holds_alternative<Bytes>(page))
        (void)cipher_suite_ids(std::get<Bytes>(page));
      break;
    case 18:
      (void)cipher_suite_ids(data);
      break;
    default:
      (void)rmcp_status_text(data.empty() ? 0 : data[0]);
      (void)completion_code_text(data.empty() ? 0 : data[0]);
      break;
  }
  return 0;
}
