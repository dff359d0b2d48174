// The Redfish driver's virtual media against the simulated BMC's virtual CD over real HTTPS: a
// mount shows in the BMC's own record, a second mount of the same image sends nothing, another
// image is ejected first, and ejecting twice is harmless. The pure parts (which slot, what body)
// against VirtualMedia documents as services write them.
#include "bmc/redfish/virtual_media.hpp"

#include <catch2/catch.hpp>

#include "bmc/redfish/redfish_driver.hpp"
#include "driver_test_fixture.hpp"
#include "tests/support/project_mockups.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace virtual_media_test {

using ironhold::DriverErrorCode;
using ironhold::bmc::redfish::cd_slot;
using ironhold::bmc::redfish::insert_media_body;
using ironhold::bmc::redfish::RedfishDriver;
using ironhold::bmc::redfish::url_without_query;
using ironhold::test::IoThreads;
using ironhold::test::SimulatedBmc;
using nlohmann::json;

TEST_CASE("The driver mounts an image in the BMC's virtual CD and ejects it",
          "[bmc][redfish][virtual-media]") {
  SimulatedBmc bmc(ironhold::test::project_mockup("hgx-gpu-server"));
  IoThreads io;
  RedfishDriver driver(io.io.get_executor());
  const std::string first = "http://127.0.0.1:9/api/v1/boot-images/a/content?expires=1&signature=s";
  const std::string second =
      "http://127.0.0.1:9/api/v1/boot-images/b/content?expires=1&signature=t";

  auto mounted = io.run(driver.insert_virtual_media(bmc.target(), "", first));
  INFO(mounted.detail);
  REQUIRE_FALSE(mounted.error);
  CHECK(bmc.state().virtual_media()["image"] == first);
  CHECK(bmc.state().counters().media_inserts == 1);
  // The detail names the image without its signature.
  CHECK(mounted.detail.find("signature") == std::string::npos);
  CHECK(mounted.detail.find(url_without_query(first)) != std::string::npos);

  // The same image again (a resumed task): nothing is sent.
  auto again = io.run(driver.insert_virtual_media(bmc.target(), "", first));
  REQUIRE_FALSE(again.error);
  CHECK(bmc.state().counters().media_inserts == 1);

  // Another image: the first is ejected, then the second mounted.
  auto replaced = io.run(driver.insert_virtual_media(bmc.target(), "", second));
  REQUIRE_FALSE(replaced.error);
  CHECK(bmc.state().virtual_media()["image"] == second);
  CHECK(bmc.state().counters().media_ejects == 1);
  CHECK(bmc.state().counters().media_inserts == 2);

  auto ejected = io.run(driver.eject_virtual_media(bmc.target(), ""));
  REQUIRE_FALSE(ejected.error);
  CHECK(bmc.state().virtual_media()["inserted"] == false);
  auto nothing = io.run(driver.eject_virtual_media(bmc.target(), ""));
  REQUIRE_FALSE(nothing.error);
  CHECK_THAT(nothing.detail, Catch::Contains("nothing mounted"));
  CHECK(bmc.state().counters().media_ejects == 2);

  // The BMC refuses what is not a URL it can fetch; the driver says so.
  auto refused = io.run(driver.insert_virtual_media(bmc.target(), "", "ftp://127.0.0.1/x.iso"));
  REQUIRE(refused.error);
  CHECK(refused.error->code == DriverErrorCode::rejected);
  io.run(driver.shutdown());
}

TEST_CASE("Which slot is the CD, and what InsertMedia is sent", "[bmc][redfish][virtual-media]") {
  const json cd = {
      {"@odata.id", "/redfish/v1/Managers/1/VirtualMedia/2"},
      {"MediaTypes", {"CD", "DVD"}},
      {"Inserted", false},
      {"Image", nullptr},
      {"Actions",
       {{"#VirtualMedia.InsertMedia",
         {{"target", "/redfish/v1/Managers/1/VirtualMedia/2/Actions/VirtualMedia.InsertMedia"},
          {"TransferProtocolType@Redfish.AllowableValues", {"HTTP", "HTTPS", "NFS"}}}},
        {"#VirtualMedia.EjectMedia",
         {{"target", "/redfish/v1/Managers/1/VirtualMedia/2/Actions/VirtualMedia.EjectMedia"}}}}}};
  const json floppy = {{"MediaTypes", {"Floppy", "USBStick"}}, {"Inserted", false}};
  CHECK_FALSE(cd_slot(floppy));
  const auto slot = cd_slot(cd);
  REQUIRE(slot);
  CHECK(slot->insert_target ==
        "/redfish/v1/Managers/1/VirtualMedia/2/Actions/VirtualMedia.InsertMedia");
  CHECK(slot->eject_target ==
        "/redfish/v1/Managers/1/VirtualMedia/2/Actions/VirtualMedia.EjectMedia");
  const json body = insert_media_body(*slot, "https://h/x.iso");
  CHECK(body["Image"] == "https://h/x.iso");
  CHECK(body["Inserted"] == true);
  CHECK(body["WriteProtected"] == true);
  CHECK(body["TransferProtocolType"] == "HTTPS");
  // A BMC that lists no protocols gets none (some refuse the parameter).
  json plain = cd;
  plain["Actions"]["#VirtualMedia.InsertMedia"].erase(
      "TransferProtocolType@Redfish.AllowableValues");
  CHECK_FALSE(
      insert_media_body(*cd_slot(plain), "http://h/x.iso").contains("TransferProtocolType"));
  // An older service without the actions: the slot is PATCHed.
  json old = cd;
  old.erase("Actions");
  CHECK(cd_slot(old)->insert_target.empty());
  CHECK(url_without_query("http://h/x.iso?expires=1&signature=abc") == "http://h/x.iso");
}

}  // namespace virtual_media_test
