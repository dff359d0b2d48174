// Reprovisioning owned servers from a boot image mounted as virtual media, end to end: an ISO is
// uploaded to /api/v1/boot-images; the task mounts it in the simulated BMC's virtual CD through
// VirtualMedia.InsertMedia (a signed URL of this service), sets a one-time boot from Cd and
// restarts the server; the simulated firmware reads the image's first 64 KiB with a ranged GET,
// its installer asks /api/v1/provisioning/config for its settings by MAC and calls back; the task
// ejects the image. What the simulator read is compared with the bytes the test uploaded.
#include <catch2/catch.hpp>
#include <cstring>

#include "inventory/crypto/primitives.hpp"
#include "inventory/crypto/sha256_stream.hpp"
#include "sim/ipmi/fleet.hpp"
#include "sim/redfish/fleet.hpp"
#include "tests/support/project_mockups.hpp"
#include "tests/web/poller/poller_helpers.hpp"
#include "tests/web/tasks/fleet_helpers.hpp"
#include "tests/web/tasks/task_helpers.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace virtual_media_reprovision_e2e_test {

using namespace ironhold;
using namespace ironhold::test;
using nlohmann::json;

namespace {

sim::RedfishFleetOptions media_fleet() {
  sim::RedfishFleetOptions o;
  o.mockup_dir = project_mockup("hgx-gpu-server");
  o.listen = "127.0.89.40:0";
  o.reset_delay = 200ms;
  o.installer.install_time = 500ms;  // no pxe_url: only a CD boot installs anything
  return o;
}

// Bytes that look like what they are for the test: an ISO of 200 KB, every byte position-coded,
// so a read from the wrong offset cannot match.
std::string iso_bytes() {
  std::string iso(200'000, '\0');
  for (std::size_t i = 0; i < iso.size(); ++i) iso[i] = static_cast<char>((i * 7 + i / 251) & 0xFF);
  std::memcpy(iso.data() + 32768 + 1, "CD001", 5);  // the ISO 9660 volume descriptor's mark
  return iso;
}

std::string sha256_hex(std::string_view bytes) {
  crypto::Sha256Stream hash;
  hash.update(bytes);
  return crypto::to_hex(hash.finish());
}

std::string upload_iso(TestServer& server, const std::string& bytes) {
  HttpRequest r;
  r.method = "POST";
  r.target = "/api/v1/boot-images?name=installer-24.04.iso&version=24.04";
  r.body = bytes;
  r.token = server.token("admin");
  r.content_type = "application/octet-stream";
  const auto created = http_request(server.port(), r);
  INFO(created.body);
  REQUIRE(created.status == 201);
  CHECK(created.header("location") ==
        "/api/v1/boot-images/" + created.json()["id"].get<std::string>());
  return created.json()["id"];
}

}  // namespace

TEST_CASE("an owned server is reprovisioned from a boot image mounted as virtual media",
          "[tasks][provisioning][virtual-media][e2e]") {
  TestServer server({}, {}, fast_poller());
  sim::RedfishFleet fleet(media_fleet());
  fleet.start();
  const auto token = server.token("operator");
  const std::string id = enroll_available(server, token, fleet, 0, "gpu-vm-01");
  const std::string iso = iso_bytes();
  const std::string image = upload_iso(server, iso);

  // Boot images are their own catalogue: not firmware.
  const auto boot_list = http_get(server.port(), "/api/v1/boot-images", token).json();
  REQUIRE(boot_list["items"].size() == 1);
  CHECK(boot_list["items"][0]["sha256"] == sha256_hex(iso));
  CHECK(boot_list["items"][0]["size"] == iso.size());
  CHECK(http_get(server.port(), "/api/v1/firmware/images", token).json()["items"].empty());
  CHECK(post_action(server, token, id, "firmware", {{"image", image}}).status == 422);

  const auto res =
      post_action(server, token, id, "reprovision", {{"via", "virtual-media"}, {"image", image}});
  INFO(res.body);
  REQUIRE(res.status == 202);
  const json task = wait_task_end(server, token, res.json()["id"]);
  INFO(task.dump(2));
  REQUIRE(task["state"] == "succeeded");
  for (const char* step : {"prepare", "media", "boot", "restart", "install", "eject"})
    CHECK(step_of(task, step)["state"] == "succeeded");
  CHECK(task["parameters"]["via"] == "virtual-media");
  CHECK(task["parameters"]["image_name"] == "installer-24.04.iso");
  CHECK(task["result"]["via"] == "virtual-media");
  CHECK(task["result"]["installer_message"] == "installed by the simulated installer");
  CHECK(http_get(server.port(), "/api/v1/nodes/" + id, token).json()["lifecycle"] == "deployed");
  // The signed URL's signature is a credential for the image: no step or result shows it.
  CHECK(task.dump().find("signature=") == std::string::npos);
  CHECK(step_of(task, "media")["detail"].get<std::string>().find("/api/v1/boot-images/" + image) !=
        std::string::npos);

  // The simulated BMC: one mount, one CD boot, one eject, nothing left in the CD; one-time boot.
  const json bmc = fleet.describe(0);
  INFO(bmc.dump(2));
  CHECK(bmc["counters"]["media_inserts"] == 1);
  CHECK(bmc["counters"]["media_boots"] == 1);
  CHECK(bmc["counters"]["media_ejects"] == 1);
  CHECK(bmc["counters"]["network_boots"] == 0);
  CHECK(bmc["virtual_media"]["inserted"] == false);
  CHECK(bmc["installer"]["callbacks"] == 1);
  // It read the image this service keeps: the first 64 KiB of what was uploaded, by a range.
  const json& last = bmc["installer"]["last"];
  CHECK(last["media_status"] == 206);
  CHECK(last["media_sha256_read"] == sha256_hex(std::string_view(iso).substr(0, 65536)));
  CHECK(last["media_content_range"] == "bytes 0-65535/" + std::to_string(iso.size()));
  CHECK(last["config_status"] == 200);

  // Again without naming the image: the last one reprovisioned this way.
  const std::string again =
      start_task(server, token, id, "reprovision", {{"via", "virtual-media"}});
  const json second = wait_task_end(server, token, again);
  CHECK(second["state"] == "succeeded");
  CHECK(second["parameters"]["image"] == image);
  CHECK(fleet.describe(0)["counters"]["media_inserts"] == 2);
}

TEST_CASE("a boot image is served whole or by byte ranges, only through a signed URL",
          "[provisioning][virtual-media][e2e]") {
  TestServer server;
  const std::string iso = iso_bytes();
  const std::string image = upload_iso(server, iso);
  const auto signed_url = http_send(server.port(), "POST", "/api/v1/boot-images/" + image + "/url",
                                    {{"expires_in_s", 600}}, server.token("operator"));
  REQUIRE(signed_url.status == 200);
  const std::string url = signed_url.json()["url"];
  const std::string target = url.substr(url.find("/api/v1/"));
  CHECK(target.rfind("/api/v1/boot-images/" + image + "/content?", 0) == 0);

  const auto whole = http_get(server.port(), target, std::nullopt);
  REQUIRE(whole.status == 200);
  CHECK(whole.body == iso);
  CHECK(whole.header("accept-ranges") == "bytes");
  CHECK(whole.header("x-checksum-sha256") == sha256_hex(iso));

  auto ranged = [&](const std::string& range) {
    HttpRequest r;
    r.target = target;
    r.headers["Range"] = range;
    return http_request(server.port(), r);
  };
  // Across the 1 MiB chunks the image is kept in? 200 KB is one chunk: offsets inside it.
  const auto middle = ranged("bytes=32768-32773");
  CHECK(middle.status == 206);
  CHECK(middle.body == iso.substr(32768, 6));
  CHECK(middle.header("content-range") == "bytes 32768-32773/" + std::to_string(iso.size()));
  const auto tail = ranged("bytes=-10");
  CHECK(tail.status == 206);
  CHECK(tail.body == iso.substr(iso.size() - 10));
  const auto open_ended = ranged("bytes=199990-");
  CHECK(open_ended.body == iso.substr(199990));
  CHECK(ranged("bytes=300000-").status == 416);
  CHECK(ranged("bytes=300000-").header("content-range") == "bytes */" + std::to_string(iso.size()));
  // A firmware URL's signature does not open a boot image, nor an altered one.
  std::string forged = target;
  forged.replace(forged.find("/boot-images/"), 13, "/firmware/images/");
  CHECK(http_get(server.port(), forged, std::nullopt).status == 403);
  CHECK(http_get(server.port(), target.substr(0, target.size() - 2) + "00", std::nullopt).status ==
        403);

  // Deleted: its URLs serve nothing.
  CHECK(http_send(server.port(), "DELETE", "/api/v1/boot-images/" + image, json(),
                  server.token("admin"))
            .status == 204);
  CHECK(http_get(server.port(), target, std::nullopt).status == 404);
}

TEST_CASE("a virtual-media reprovision is refused where it cannot work, before anything is sent",
          "[tasks][provisioning][virtual-media][e2e]") {
  TestServer server({}, {}, fast_poller());
  sim::RedfishFleet fleet(media_fleet());
  fleet.start();
  sim::IpmiFleetOptions ipmi_options;
  ipmi_options.listen = "127.0.89.41:0";
  sim::IpmiFleet ipmi(ipmi_options);
  ipmi.start();
  const auto token = server.token("operator");
  const std::string id = enroll_available(server, token, fleet, 0, "gpu-vm-02");

  // No such boot image; a firmware image is not one; "via" must be a known way.
  auto refused = post_action(server, token, id, "reprovision",
                             {{"via", "virtual-media"}, {"image", "not-an-image"}});
  CHECK(refused.status == 422);
  CHECK_THAT(refused.body, Catch::Contains("boot image"));
  CHECK(post_action(server, token, id, "reprovision", {{"via", "usb-stick"}}).status == 422);
  // Never reprovisioned this way: no image to reuse.
  CHECK(post_action(server, token, id, "reprovision", {{"via", "virtual-media"}}).status == 422);

  // An IPMI server has no virtual media.
  const auto enrolled =
      http_send(server.port(), "POST", "/api/v1/nodes",
                {{"name", "ipmi-vm"},
                 {"driver", "ipmi"},
                 {"endpoint", ipmi.endpoint(0)},
                 {"credentials", {{"username", "admin"}, {"password", "password"}}}},
                token);
  REQUIRE(enrolled.status == 201);
  const std::string ipmi_node = enrolled.json()["id"];
  REQUIRE(wait_for_node(server, token, ipmi_node, [](const json& n) {
            return n["lifecycle"] == "available";
          })["lifecycle"] == "available");
  const std::string image = upload_iso(server, iso_bytes());
  const auto ipmi_refused = post_action(server, token, ipmi_node, "reprovision",
                                        {{"via", "virtual-media"}, {"image", image}});
  CHECK(ipmi_refused.status == 422);
  CHECK_THAT(ipmi_refused.body, Catch::Contains("IPMI"));
  CHECK(fleet.describe(0)["counters"]["media_inserts"] == 0);
}

}  // namespace virtual_media_reprovision_e2e_test
