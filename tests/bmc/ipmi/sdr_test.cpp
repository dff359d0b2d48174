// The SDR repository of ../shared/ipmi-sim (OpenIPMI's sdrcomp input), compiled here by sdrcomp
// itself: every record decodes, and names, sensor numbers, units and thresholds match what the
// source file says, with the thresholds converted by the source's own M, B and exponents.
// sdrcomp writes ID strings 6-bit packed by default and 8-bit with -8: both are read.
#include "bmc/ipmi/sdr.hpp"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "inventory/util/process.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace sdr_test {

using namespace ironhold::bmc::ipmi;
namespace fs = std::filesystem;

namespace {

const fs::path sdrs = fs::path(IRONHOLD_SHARED_DIR) / "ipmi-sim" / "bmc.sdrs";

using Block = std::map<std::string, std::string>;

// "sdr type N ... endsdr" blocks of sdrcomp's input: key, value (quotes dropped).
std::vector<Block> read_source() {
  std::vector<Block> blocks;
  std::ifstream in(sdrs);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string key;
    if (!(words >> key) || key[0] == '#') continue;
    std::string value;
    std::getline(words >> std::ws, value);
    if (key == "sdr" && value.rfind("type ", 0) == 0) {  // not the MC locator's "sdr true"
      blocks.push_back({{"type", value.substr(5)}});
    } else if (key != "endsdr" && !blocks.empty()) {
      if (value.size() >= 2 && value.front() == '"') value = value.substr(1, value.size() - 2);
      blocks.back()[key] = value;
    }
  }
  return blocks;
}

// sdrcomp's output: lines "N:d:<bytes>", bytes written as themselves or as \XX.
std::vector<Bytes> compile(bool eight_bit) {
  const fs::path out = fs::temp_directory_path() / ("ironhold-sdr-" + std::to_string(::getpid()));
  std::vector<std::string> args{"-o", out.string(), sdrs.string()};
  if (eight_bit) args.insert(args.begin(), "-8");
  const auto made = ironhold::util::run_process("/usr/bin/sdrcomp", args);
  INFO(made.err);
  REQUIRE(made.ok());
  std::vector<Bytes> records;
  std::ifstream in(out);
  std::string line;
  while (std::getline(in, line)) {
    const auto marker = line.find(":d:");
    if (marker == std::string::npos) continue;
    Bytes record;
    for (std::size_t i = marker + 3; i < line.size(); ++i) {
      if (line[i] == '\\' && i + 2 < line.size()) {
        record.push_back(static_cast<std::uint8_t>(std::stoul(line.substr(i + 1, 2), nullptr, 16)));
        i += 2;
      } else {
        record.push_back(static_cast<std::uint8_t>(line[i]));
      }
    }
    records.push_back(std::move(record));
  }
  fs::remove(out);
  return records;
}

std::optional<double> source_threshold(const Block& b, const std::string& name) {
  const auto it = b.find(name + "_thresh");
  if (it == b.end()) return std::nullopt;
  const double raw = std::stod(it->second);
  return (std::stod(b.at("m")) * raw +
          std::stod(b.at("b")) * std::pow(10.0, std::stod(b.at("b_exp")))) *
         std::pow(10.0, std::stod(b.at("r_exp")));
}

std::string upper(std::string text) {
  for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return text;
}

void check_threshold(const std::optional<double>& decoded, const std::optional<double>& expected) {
  REQUIRE(decoded.has_value() == expected.has_value());
  if (expected) CHECK(*decoded == Approx(*expected));
}

}  // namespace

TEST_CASE("sdrcomp's records of the simulated BMC decode as their source describes them",
          "[ipmi][sdr]") {
  if (!fs::exists(sdrs)) {
    WARN("skipped: no " << sdrs.string());
    return;
  }
  REQUIRE(fs::exists("/usr/bin/sdrcomp"));  // the openipmi package, installed by the test set-up
  const std::vector<Block> source = read_source();
  for (const bool eight_bit : {true, false}) {
    INFO((eight_bit ? "8-bit" : "6-bit packed") << " ID strings");
    const std::vector<Bytes> records = compile(eight_bit);
    REQUIRE(records.size() == source.size());
    std::map<std::string, SdrRecord> by_name;
    for (const Bytes& bytes : records) {
      auto decoded = decode_sdr(bytes);
      if (auto* error = std::get_if<std::string>(&decoded)) FAIL(*error);
      const SdrRecord& record = std::get<SdrRecord>(decoded);
      by_name[upper(record.name)] = record;
    }
    for (const Block& block : source) {
      const std::string name = block.at("id_string");
      INFO("record " << name);
      // sdrcomp packs some records' names in 6-bit ASCII, which has no lower case letters.
      const std::string key = upper(name);
      REQUIRE(by_name.count(key) == 1);
      if (eight_bit) CHECK(by_name.at(key).name == name);
      const SdrRecord& record = by_name.at(key);
      CHECK(static_cast<unsigned>(record.type) == std::stoul(block.at("type"), nullptr, 0));
      if (block.count("sensor_number"))
        CHECK(record.sensor_number == std::stoul(block.at("sensor_number")));
      if (block.at("type") == "1") {
        REQUIRE(record.conversion);
        CHECK(record.conversion->m == std::stoi(block.at("m")));
        CHECK(record.conversion->r_exp == std::stoi(block.at("r_exp")));
        // Every raw value converts with the source's own formula.
        for (int raw : {0, 1, 100, 200, 255})
          CHECK(record.conversion->convert(static_cast<std::uint8_t>(raw)).value() ==
                Approx((std::stod(block.at("m")) * raw) *
                       std::pow(10.0, std::stod(block.at("r_exp")))));
        check_threshold(record.thresholds.upper_non_recoverable, source_threshold(block, "unr"));
        check_threshold(record.thresholds.upper_critical, source_threshold(block, "uc"));
        check_threshold(record.thresholds.upper_non_critical, source_threshold(block, "unc"));
        check_threshold(record.thresholds.lower_critical, source_threshold(block, "lc"));
        check_threshold(record.thresholds.lower_non_critical, source_threshold(block, "lnc"));
        const std::string unit = block.at("base_unit");
        CHECK(sdr_unit_name(record.base_unit, record.percentage) == (unit == "degrees_C" ? "Cel"
                                                                     : unit == "Volts"   ? "V"
                                                                     : unit == "RPM"     ? "RPM"
                                                                                         : "?"));
      }
      if (block.at("type") == "0x11") {
        REQUIRE(record.fru_device_id);
        CHECK(*record.fru_device_id == std::stoul(block.at("fru_device_address")));
      }
      if (block.at("type") == "18") {
        REQUIRE(record.controller_address);
        CHECK(*record.controller_address ==
              std::stoul(block.at("device_slave_address"), nullptr, 0));
      }
    }
  }
}

TEST_CASE("sensor conversion handles signed formats, signed M and B and linearizations",
          "[ipmi][sdr]") {
  SensorConversion c;
  c.format = SensorConversion::Format::twos_complement;
  c.m = 2;
  c.b = -5;
  c.b_exp = 1;  // B * 10 = -50
  c.r_exp = -1;
  // (2 * -10 + -50) / 10
  CHECK(c.convert(static_cast<std::uint8_t>(-10)).value() == Approx(-7.0));
  c.format = SensorConversion::Format::ones_complement;
  CHECK(c.convert(0xF5).value() == Approx((2 * -10.0 - 50) / 10));  // ~0xF5 = 10
  c.format = SensorConversion::Format::none;
  CHECK_FALSE(c.convert(1));
  SensorConversion inverse;
  inverse.linearization = 7;  // 1/x
  CHECK(inverse.convert(4).value() == Approx(0.25));
  CHECK_FALSE(inverse.convert(0));
  SensorConversion root;
  root.linearization = 10;
  CHECK(root.convert(81).value() == Approx(9.0));
  // Truncated and short records are refused with the record's id.
  CHECK(std::holds_alternative<std::string>(decode_sdr(Bytes{0x01, 0x00, 0x51})));
  CHECK(std::holds_alternative<std::string>(decode_sdr(Bytes{0x07, 0x00, 0x51, 0x01, 0x30, 0x20})));
  const auto short_full = decode_sdr(Bytes{0x07, 0x00, 0x51, 0x01, 0x01, 0x20});
  REQUIRE(std::holds_alternative<std::string>(short_full));
  CHECK(std::get<std::string>(short_full).find("7") != std::string::npos);
}

}  // namespace sdr_test
