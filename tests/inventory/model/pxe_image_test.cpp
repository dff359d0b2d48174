// What an owned server can be reprovisioned with, and what base URL installers may call back to:
// only URLs iPXE can fetch and that carry none of its script syntax.
#include "inventory/model/pxe_image.hpp"

#include <catch2/catch.hpp>

// This file's names, apart from those of the other test files compiled with it.
namespace pxe_image_test {

using namespace ironhold;

TEST_CASE("images are http, https or tftp URLs without iPXE syntax", "[model][pxe]") {
  CHECK_FALSE(pxe_image_problem("http://images.example/ubuntu-24.04/"));
  CHECK_FALSE(pxe_image_problem("https://images.example/site/install.ipxe?arch=x86_64"));
  CHECK_FALSE(pxe_image_problem("tftp://10.0.0.1/netboot"));
  for (const char* bad :
       {"ubuntu-24.04", "ftp://images.example/x", "http://", "file:///boot", "http://x/${evil}",
        "http://x/a b", "http://x/\"q\"", "http://x/a\nshell", "http://x/'q'"}) {
    INFO(bad);
    CHECK(pxe_image_problem(bad));
  }
}

TEST_CASE("an image ending in .ipxe is chained, anything else is a kernel directory",
          "[model][pxe]") {
  CHECK(pxe_image_kind("https://images.example/site/install.ipxe") == PxeImageKind::chain_script);
  CHECK(pxe_image_kind("https://images.example/install.ipxe?arch=x86_64") ==
        PxeImageKind::chain_script);
  CHECK(pxe_image_kind("http://images.example/ubuntu-24.04/") == PxeImageKind::kernel_directory);
  CHECK(pxe_image_kind("http://images.example/ipxe") == PxeImageKind::kernel_directory);
}

TEST_CASE("the advertise URL is an http(s) base URL", "[model][pxe]") {
  CHECK_FALSE(advertise_url_problem("http://10.0.0.5:8080"));
  CHECK_FALSE(advertise_url_problem("https://ironhold.example/base"));
  CHECK(advertise_url_problem("10.0.0.5:8080"));
  CHECK(advertise_url_problem("http://x/?a=1"));
  CHECK(advertise_url_problem("http://x/$y"));
}

}  // namespace pxe_image_test
