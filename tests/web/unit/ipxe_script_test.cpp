// The iPXE script of a node being reprovisioned, read back the way the simulated PXE client
// reads it (sim/redfish/installer.cpp), so both sides agree on the settings' names.
#include "web/ipxe_script.hpp"

#include <catch2/catch.hpp>

#include "sim/redfish/installer.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace ipxe_script_test {

using namespace ironhold;

namespace {

db::ScriptGrant grant(const std::string& image) {
  db::ScriptGrant g;
  g.task_id = "0b7f5a8e-5d0a-4a57-9b61-3f2d7b9e1c44";
  g.node_id = "6a1c1c2e-9f55-4f0c-8d0e-0c6a3a3e2b11";
  g.node_name = "ams1-r1-gpu01";
  g.image = image;
  g.mac = "52:54:00:ab:cd:ef";
  g.token = std::string(64, 'f');
  return g;
}

}  // namespace

TEST_CASE("a netboot directory image boots its kernel with the call-back on the command line",
          "[web][provisioning]") {
  const std::string script = web::render_ipxe_script(grant("http://images.example/ubuntu-24.04/"),
                                                     "http://10.0.0.5:8080/");
  INFO(script);
  CHECK(script.rfind("#!ipxe\n", 0) == 0);
  const auto settings = sim::redfish::ipxe_settings(script);
  CHECK(settings.at("ironhold_callback") == "http://10.0.0.5:8080/api/v1/provisioning/callback");
  CHECK(settings.at("ironhold_token") == std::string(64, 'f'));
  CHECK(settings.at("ironhold_node") == "ams1-r1-gpu01");
  CHECK(settings.at("ironhold_task") == "0b7f5a8e-5d0a-4a57-9b61-3f2d7b9e1c44");
  CHECK(script.find("\nkernel http://images.example/ubuntu-24.04/vmlinuz ") != std::string::npos);
  CHECK(script.find("ironhold.token=${ironhold_token}") != std::string::npos);
  CHECK(script.find("\ninitrd http://images.example/ubuntu-24.04/initrd.img") != std::string::npos);
  CHECK(script.find("\nboot || goto failed\n") != std::string::npos);
  CHECK(script.find("chain ") == std::string::npos);
}

TEST_CASE("a site's own iPXE script is chained with the settings in place", "[web][provisioning]") {
  const std::string script =
      web::render_ipxe_script(grant("https://images.example/site/install.ipxe"), "http://10.0.0.5");
  INFO(script);
  CHECK(script.find("\nchain https://images.example/site/install.ipxe || goto failed\n") !=
        std::string::npos);
  CHECK(script.find("\nkernel ") == std::string::npos);
  CHECK(sim::redfish::ipxe_settings(script).at("ironhold_callback") ==
        "http://10.0.0.5/api/v1/provisioning/callback");
}

TEST_CASE("nothing from a node's name reaches the script as syntax", "[web][provisioning]") {
  auto g = grant("http://images.example/ubuntu/");
  g.node_name = "odd ${name}\nreboot";
  const std::string script = web::render_ipxe_script(g, "http://10.0.0.5:8080");
  INFO(script);
  CHECK(script.find("${name}") == std::string::npos);
  CHECK(script.find("\nreboot\n") == script.rfind("\nreboot\n"));  // only the script's own
  CHECK(sim::redfish::ipxe_settings(script).at("ironhold_node") == "odd___name__reboot");
}

}  // namespace ipxe_script_test
