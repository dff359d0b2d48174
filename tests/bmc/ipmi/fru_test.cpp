// FRU data as ../shared/ipmi-sim/mkfru.py writes it for OpenIPMI's simulator (run here into a
// temporary directory), and the field encodings mkfru.py does not use, from the FRU
// specification's own definitions.
#include "bmc/ipmi/fru.hpp"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "inventory/util/process.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace fru_test {

using namespace ironhold::bmc::ipmi;
namespace fs = std::filesystem;

namespace {

const fs::path mkfru = fs::path(IRONHOLD_SHARED_DIR) / "ipmi-sim" / "mkfru.py";

Bytes read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return Bytes(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

FruData parsed(const Bytes& data) {
  auto result = parse_fru(data);
  if (auto* error = std::get_if<std::string>(&result)) FAIL(*error);
  return std::get<FruData>(std::move(result));
}

}  // namespace

TEST_CASE("the simulator's FRU images parse into chassis, board and product", "[ipmi][fru]") {
  if (!fs::exists(mkfru)) {
    WARN("skipped: no " << mkfru.string());
    return;
  }
  const fs::path dir = fs::temp_directory_path() / ("ironhold-fru-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const auto made =
      ironhold::util::run_process("/usr/bin/python3", {mkfru.string(), dir.string(), "4242"});
  INFO(made.err);
  REQUIRE(made.ok());

  const FruData fru0 = parsed(read_file(dir / "fru0.bin"));
  CHECK(fru0.warnings.empty());
  REQUIRE(fru0.chassis);
  CHECK(fru0.chassis->type == 0x17);
  CHECK(fru0.chassis->part_number == "CH-SIM-1U");
  CHECK(fru0.chassis->serial == "CHS4242");
  REQUIRE(fru0.board);
  CHECK(fru0.board->manufacturer == "Simulated Boards Inc");
  CHECK(fru0.board->product_name == "SIM-MB-01");
  CHECK(fru0.board->serial == "MB4242");
  CHECK(fru0.board->part_number == "PN-MB-0001");
  CHECK(fru0.board->manufactured.value_or("").rfind("2024-01-15T12:00:00", 0) == 0);
  REQUIRE(fru0.product);
  CHECK(fru0.product->manufacturer == "Simulated Systems Inc");
  CHECK(fru0.product->name == "SimServer 1U");
  CHECK(fru0.product->part_number == "SIM-1U-A");
  CHECK(fru0.product->version == "1.0");
  CHECK(fru0.product->serial == "SN4242");
  CHECK(fru0.product->asset_tag == "ASSET-4242");

  const FruData fru1 = parsed(read_file(dir / "fru1.bin"));
  CHECK_FALSE(fru1.chassis);
  REQUIRE(fru1.board);
  CHECK(fru1.board->product_name == "SIM-PSU-800");
  REQUIRE(fru1.product);
  CHECK(fru1.product->name == "PSU 800W");
  CHECK(fru1.product->serial == "PS4242");

  // A damaged area is still read, with a warning; a damaged common header is an error.
  Bytes damaged = read_file(dir / "fru0.bin");
  damaged.at(8 * damaged.at(3) + 10) ^= 0x01;  // a byte inside the board area
  const FruData warned = parsed(damaged);
  REQUIRE(warned.warnings.size() == 1);
  CHECK(warned.warnings[0].find("board") != std::string::npos);
  Bytes bad_header = read_file(dir / "fru0.bin");
  bad_header.at(7) ^= 0xFF;
  CHECK(std::holds_alternative<std::string>(parse_fru(bad_header)));
  // Cut short: the areas run past the data.
  for (std::size_t keep : {0, 7, 8, 20, 60})
    CHECK(std::holds_alternative<std::string>(
        parse_fru(ByteView(read_file(dir / "fru0.bin")).first(keep))));
  fs::remove_all(dir);
}

TEST_CASE("FRU fields decode in each of their four encodings", "[ipmi][fru]") {
  // 6-bit packed ASCII: the specification's example packs "IPMI" as 29h DCh A6h.
  CHECK(decode_fru_field(0x83, Bytes{0x29, 0xDC, 0xA6}) == "IPMI");
  // BCD plus: digits, space, dash and period, high nibble first.
  CHECK(decode_fru_field(0x42, Bytes{0x12, 0xB3}) == "12-3");
  // Binary: shown as hex.
  CHECK(decode_fru_field(0x02, Bytes{0xDE, 0xAD}) == "de ad");
  // 8-bit ASCII, trailing blanks dropped.
  CHECK(decode_fru_field(0xC4, Bytes{'A', 'B', ' ', ' '}) == "AB");
}

}  // namespace fru_test
