// SEL entries as ../shared/ipmi-sim/bmc.emu adds them to OpenIPMI's simulator (sel_add: record
// type and 13 bytes), decoded to what the comments beside them say they are.
#include "bmc/ipmi/sel.hpp"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

// This file's names, apart from those of the other test files compiled with it.
namespace sel_test {

using namespace ironhold;
using namespace ironhold::bmc::ipmi;
namespace fs = std::filesystem;

namespace {

const fs::path emu = fs::path(IRONHOLD_SHARED_DIR) / "ipmi-sim" / "bmc.emu";

// Each "sel_add MC TYPE b1 .. b13" as the 16-byte entry Get SEL Entry returns (record IDs 1..n).
std::vector<Bytes> sel_entries() {
  std::vector<Bytes> out;
  std::ifstream in(emu);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string command, mc, word;
    if (!(words >> command >> mc) || command != "sel_add") continue;
    Bytes entry{static_cast<std::uint8_t>(out.size() + 1), 0x00};
    while (words >> word) entry.push_back(static_cast<std::uint8_t>(std::stoul(word, nullptr, 0)));
    out.push_back(std::move(entry));
  }
  return out;
}

SelEntry decoded(const Bytes& bytes) {
  auto result = decode_sel_entry(bytes);
  if (auto* error = std::get_if<std::string>(&result)) FAIL(*error);
  return std::get<SelEntry>(std::move(result));
}

}  // namespace

TEST_CASE("the simulator's SEL entries decode as bmc.emu describes them", "[ipmi][sel]") {
  if (!fs::exists(emu)) {
    WARN("skipped: no " << emu.string());
    return;
  }
  const std::vector<Bytes> entries = sel_entries();
  REQUIRE(entries.size() == 6);
  for (const Bytes& e : entries) REQUIRE(e.size() == 16);

  // CPU Temp upper non-critical going high, asserted then deasserted (reading 86, threshold 85).
  const SelEntry hot = decoded(entries[0]);
  CHECK(hot.record_type == 0x02);
  CHECK(hot.pre_init);  // timestamp 0: before the BMC's clock was set
  CHECK(hot.sensor_type == 0x01);
  CHECK(hot.sensor_number == 1);
  CHECK(hot.event_type == 0x01);
  CHECK_FALSE(hot.deassertion);
  CHECK(hot.severity == Severity::warning);
  CHECK(hot.description.find("upper non-critical going high") != std::string::npos);
  CHECK(hot.description.find("reading 56h, threshold 55h") != std::string::npos);  // 86, 85
  const SelEntry cooled = decoded(entries[1]);
  CHECK(cooled.deassertion);
  CHECK(cooled.severity == Severity::info);

  // PSU1 power supply input lost, asserted then deasserted.
  const SelEntry lost = decoded(entries[2]);
  CHECK(lost.sensor_type == 0x08);
  CHECK(lost.sensor_number == 5);
  CHECK(lost.severity == Severity::critical);
  CHECK(lost.description == "Power Supply #5: input lost, asserted");
  CHECK(decoded(entries[3]).description == "Power Supply #5: input lost, deasserted");

  // Watchdog 2: timer expired, hard reset.
  const SelEntry watchdog = decoded(entries[4]);
  CHECK(watchdog.sensor_type == 0x23);
  CHECK(watchdog.description.find("hard reset") != std::string::npos);
  CHECK(watchdog.severity == Severity::warning);

  // OEM timestamped record: its data is kept, not interpreted.
  const SelEntry oem = decoded(entries[5]);
  CHECK(oem.record_type == 0xC1);
  CHECK(oem.timestamp);
  CHECK(oem.event_data.size() == 9);
  CHECK(oem.description.rfind("OEM record c1", 0) == 0);
}

TEST_CASE("SEL entries of the wrong size, OEM records without timestamps and unknown types",
          "[ipmi][sel]") {
  CHECK(std::holds_alternative<std::string>(decode_sel_entry(Bytes(15, 0))));
  Bytes oem(16, 0xAB);
  oem[2] = 0xE5;
  const SelEntry no_time = decoded(oem);
  CHECK_FALSE(no_time.timestamp);
  CHECK(no_time.event_data.size() == 13);
  // 2026-01-01T00:00:00Z is 1767225600 = 0x6955B900, little-endian in bytes 3-6.
  Bytes unknown{0x10, 0x00, 0x02, 0x00, 0xB9, 0x55, 0x69, 0x20,
                0x00, 0x04, 0x99, 0x07, 0x6F, 0x03, 0xFF, 0xFF};
  const SelEntry odd = decoded(unknown);
  CHECK(odd.timestamp == 1767225600u);
  CHECK_FALSE(odd.pre_init);
  CHECK(odd.description == "Sensor type 99 #7: sensor-specific event 3, asserted");
  CHECK(odd.severity == Severity::info);
}

}  // namespace sel_test
