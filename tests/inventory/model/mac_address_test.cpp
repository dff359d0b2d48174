// MAC addresses in the spellings BMCs, iPXE and people use, and what is not one.
#include "inventory/model/mac_address.hpp"

#include <catch2/catch.hpp>

// This file's names, apart from those of the other test files compiled with it.
namespace mac_address_test {

using ironhold::normalize_mac;

TEST_CASE("MAC addresses are read in their common spellings", "[model][mac]") {
  CHECK(normalize_mac("52:54:00:AB:cd:EF") == "52:54:00:ab:cd:ef");
  CHECK(normalize_mac("52-54-00-ab-cd-ef") == "52:54:00:ab:cd:ef");
  CHECK(normalize_mac("525400ABCDEF") == "52:54:00:ab:cd:ef");
}

TEST_CASE("what is not a MAC address is refused", "[model][mac]") {
  for (const char* bad :
       {"", "52:54:00:ab:cd", "52:54:00:ab:cd:ef:01", "52:54-00:ab:cd:ef", "5:254:00:ab:cd:ef",
        "52:54:00:ab:cd:eg", "52:54:00:ab:cd:ef ", "525400abcde", "52::54:00:ab:cd:ef"}) {
    INFO(bad);
    CHECK_FALSE(normalize_mac(bad));
  }
}

}  // namespace mac_address_test
