// The commands of the captured ipmitool session against ipmi_sim (decrypted payloads from
// ../shared/ipmi-sim/ipmi-session-decode.txt): Ironhold's requests are the same messages, and
// its decoders read the simulator's answers as the simulator's README describes the BMC.
#include "bmc/ipmi/commands.hpp"

#include <catch2/catch.hpp>

#include "bmc/ipmi/lan_message.hpp"
#include "tests/bmc/ipmi/capture.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace commands_test {

using namespace ironhold::bmc::ipmi;
using namespace ironhold::bmc::ipmi::testing;

namespace {

LanMessage message(const Capture& c, int n) {
  auto decoded = decode_lan_message(plaintext(c, n));
  if (auto* error = std::get_if<std::string>(&decoded)) FAIL(*error);
  return std::get<LanMessage>(std::move(decoded));
}

void check_same_request(const LanMessage& sent, const Command& ours) {
  CHECK(sent.netfn == ours.netfn);
  CHECK(sent.command == ours.command);
  CHECK(sent.data == ours.data);
}

// Response data after the completion code, which must be success.
Bytes answer(const LanMessage& response) {
  REQUIRE_FALSE(response.data.empty());
  CHECK(response.data[0] == 0x00);
  return Bytes(response.data.begin() + 1, response.data.end());
}

}  // namespace

TEST_CASE("the captured session's commands are Ironhold's, and its answers decode",
          "[ipmi][commands]") {
  if (!std::filesystem::exists(decode_file)) {
    WARN("skipped: no " << decode_file.string());
    return;
  }
  const Capture c = read_capture();

  check_same_request(message(c, 9), set_session_privilege(4));
  check_same_request(message(c, 13), get_device_id());
  check_same_request(message(c, 19), get_chassis_status());
  // Close Session names the BMC's session ID, the one in the console's packet headers.
  const std::uint32_t bmc_session = static_cast<std::uint32_t>(
      c.raw.at(21)[6] | (c.raw.at(21)[7] << 8) | (c.raw.at(21)[8] << 16) | (c.raw.at(21)[9] << 24));
  check_same_request(message(c, 21), close_session(bmc_session));

  // ipmi_sim's README: device 0x20, revision 1, firmware 1.23, IPMI 2.0, manufacturer 0x0A1B2C,
  // product 0x3D4E.
  const auto id = parse_device_id(answer(message(c, 14)));
  REQUIRE(std::holds_alternative<DeviceId>(id));
  const DeviceId& device = std::get<DeviceId>(id);
  CHECK(device.device_id == 0x20);
  CHECK(device.device_revision == 1);
  CHECK(device.firmware == "1.23");
  CHECK(device.ipmi_version == "2.0");
  CHECK(device.manufacturer_id == 0x0A1B2C);
  CHECK(device.product_id == 0x3D4E);

  // The simulator starts powered off.
  const auto status = parse_chassis_status(answer(message(c, 20)));
  REQUIRE(std::holds_alternative<ChassisStatus>(status));
  CHECK_FALSE(std::get<ChassisStatus>(status).power_on);
  CHECK_FALSE(std::get<ChassisStatus>(status).identify_on);

  // The probes ipmitool sends that ipmi_sim does not know come back as "invalid command".
  CHECK(message(c, 12).data.at(0) == 0xC1);
  CHECK(completion_code_text(message(c, 12).data.at(0)) == "invalid command");
}

TEST_CASE("boot flags round-trip and short answers are refused", "[ipmi][commands]") {
  const BootFlags pxe_once{true, false, true, BootTarget::pxe};
  const Command set = set_boot_flags(pxe_once);
  REQUIRE(set.data.size() == 6);
  CHECK(set.data[0] == 0x05);  // parameter 5, boot flags
  // What Get System Boot Options answers: parameter version 1, parameter 5, the five flag bytes.
  Bytes got{0x01, 0x05};
  got.insert(got.end(), set.data.begin() + 1, set.data.end());
  const auto parsed = parse_boot_flags(got);
  REQUIRE(std::holds_alternative<BootFlags>(parsed));
  CHECK(std::get<BootFlags>(parsed).target == BootTarget::pxe);
  CHECK(std::get<BootFlags>(parsed).efi);
  CHECK_FALSE(std::get<BootFlags>(parsed).persistent);
  CHECK(std::holds_alternative<std::string>(parse_boot_flags(Bytes{0x01, 0x04, 0x80, 0x04})));
  CHECK(std::holds_alternative<std::string>(parse_device_id(Bytes(10, 0))));
  CHECK(std::holds_alternative<std::string>(parse_chassis_status(Bytes{0x01, 0x00})));
  CHECK(completion_code_text(0xD4) == "insufficient privilege level");
  CHECK(completion_code_text(0x80) == "completion code 80h");
}

}  // namespace commands_test
