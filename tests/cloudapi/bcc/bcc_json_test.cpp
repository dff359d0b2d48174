// BCC bodies built by hand from the Go SDK's key names (bcc-model-fields.json; no openly licensed
// real body exists), read into the normalized model.
#include "cloudapi/bcc/bcc_json.hpp"

#include <catch2/catch.hpp>

#include "cloudapi/bcc/bcc_status.hpp"
#include "inventory/error.hpp"
#include "tests/cloudapi/bcc/bcc_samples.hpp"

namespace ironhold::cloudapi::bcc {
namespace bcc_json_test {
namespace {

using nlohmann::json;

const char* const kListBody = R"({
  "marker": "",
  "isTruncated": true,
  "nextMarker": "i-h800b",
  "maxKeys": 2,
  "instances": [
    {"id": "i-a100a", "name": "train-a100-1", "status": "Running", "spec": "bcc.lgn5.c128m1024.8a100",
     "instanceType": "G1", "cpuCount": 128, "memoryCapacityInGB": 1024, "gpuCard": "A100",
     "cardCount": "8", "zoneName": "cn-bj-a", "imageId": "m-ubuntu2204",
     "createTime": "2024-03-05T08:09:10Z", "internalIp": "192.168.0.4", "publicIp": "106.12.0.9",
     "repairStatus": "normal", "tags": [{"tagKey": "team", "tagValue": "vision"},
                                        {"tagKey": "env", "tagValue": "prod"}],
     "someFieldFromTheFuture": {"x": [1, 2]}},
    {"id": "i-h800b", "name": "train-h800-1", "status": "Stopped", "spec": "bcc.lgn6.c192m2048.8h800",
     "cpuCount": 192, "memoryCapacityInGB": 2048, "gpuCard": "H800", "cardCount": 8,
     "zoneName": "cn-bj-d", "repairStatus": "repairing"}
  ]
})";

}  // namespace

TEST_CASE("BCC list page: paging fields and instances mapped", "[bcc][cloudapi]") {
  const BccListPage page = parse_list_instances(kListBody);
  CHECK(page.is_truncated);
  CHECK(page.next_marker == "i-h800b");
  CHECK(page.max_keys == 2);
  REQUIRE(page.instances.size() == 2);

  const CloudInstance a100 = instance_from_model(page.instances[0]);
  CHECK(a100.provider_id == "i-a100a");
  CHECK(a100.name == "train-a100-1");
  CHECK(a100.provider_state == "Running");
  CHECK(a100.power_state == PowerState::on);
  CHECK_FALSE(a100.gone);
  CHECK(a100.health == Health::ok);
  CHECK(a100.zone == std::optional<std::string>("cn-bj-a"));
  CHECK(a100.instance_type == std::optional<std::string>("bcc.lgn5.c128m1024.8a100"));
  CHECK(a100.image_id == std::optional<std::string>("m-ubuntu2204"));
  CHECK(a100.launched_at == std::optional<std::string>("2024-03-05T08:09:10Z"));
  CHECK(a100.summary.cpu_count == 128);
  CHECK(a100.summary.memory_gib == std::optional<double>(1024.0));
  CHECK(a100.summary.gpu_model == std::optional<std::string>("NVIDIA A100"));
  CHECK(a100.summary.gpu_count == 8);
  REQUIRE(a100.components.size() == 8);
  CHECK(a100.components[0].kind == ComponentKind::gpu);
  CHECK(a100.components[7].slot == "GPU7");
  CHECK(a100.tags == json{{"team", "vision"}, {"env", "prod"}});
  CHECK(a100.details.at("internalIp") == "192.168.0.4");
  CHECK(a100.details.at("publicIp") == "106.12.0.9");

  // cardCount as a number is read too; a repair in progress is a warning.
  const CloudInstance h800 = instance_from_model(page.instances[1]);
  CHECK(h800.power_state == PowerState::off);
  CHECK(h800.summary.gpu_model == std::optional<std::string>("NVIDIA H800"));
  CHECK(h800.summary.gpu_count == 8);
  CHECK(h800.health == Health::warning);
  CHECK(h800.status_detail == std::optional<std::string>("repairStatus repairing"));
  CHECK(h800.tags == json::object());
}

TEST_CASE("BCC instance detail: statuses that are not plain on/off", "[bcc][cloudapi]") {
  const auto with_status = [](const std::string& status) {
    const json body = {{"instance",
                        {{"id", "i-x"},
                         {"status", status},
                         {"gpuCard", "A10"},
                         {"cardCount", "1"},
                         {"repairStatus", "normal"}}}};
    return instance_from_model(parse_instance_detail(body.dump()));
  };
  const auto error = with_status("Error");
  CHECK(error.power_state == PowerState::unknown);
  CHECK(error.health == Health::critical);
  CHECK(error.summary.gpu_model == std::optional<std::string>("NVIDIA A10"));
  CHECK(error.summary.gpu_count == 1);

  const auto expired = with_status("Expired");
  CHECK(expired.power_state == PowerState::off);
  CHECK(expired.status_detail == std::optional<std::string>("expired"));

  CHECK(with_status("Deleted").gone);
  CHECK(with_status("Recycled").gone);
  CHECK(with_status("Starting").power_state == PowerState::transitioning);
  CHECK(with_status("ImageProcessing").power_state == PowerState::transitioning);
  const auto odd = with_status("Hibernating");
  CHECK(odd.power_state == PowerState::unknown);
  CHECK_FALSE(odd.gone);
  CHECK(odd.provider_state == "Hibernating");
}

TEST_CASE("BCC status table covers every InstanceStatus of the Go SDK", "[bcc][cloudapi]") {
  const auto fields = test::bcc::baidu_sample("bcc-model-fields.json");
  if (!fields) return;
  // PROVIDERS.md's mapping, written out here independently of the driver's table.
  const std::map<std::string, PowerState> expected_power{
      {"Running", PowerState::on},
      {"Stopped", PowerState::off},
      {"Starting", PowerState::transitioning},
      {"Stopping", PowerState::transitioning},
      {"Scaling", PowerState::transitioning},
      {"SnapshotProcessing", PowerState::transitioning},
      {"ImageProcessing", PowerState::transitioning},
      {"ChangeVpc", PowerState::transitioning},
      {"Error", PowerState::unknown},
      {"Expired", PowerState::off},
      {"Recycled", PowerState::off},
      {"Deleted", PowerState::off}};
  for (const auto& status : fields->at("enums").at("InstanceStatus")) {
    const std::string name = status.get<std::string>();
    INFO("status " << name);
    const auto it = std::find_if(bcc_status_table().begin(), bcc_status_table().end(),
                                 [&](const BccStatusMeaning& m) { return m.status == name; });
    REQUIRE(it != bcc_status_table().end());
    REQUIRE(expected_power.count(name) == 1);
    CHECK(it->power == expected_power.at(name));
    CHECK(it->gone == (name == "Deleted" || name == "Recycled"));
  }
}

TEST_CASE("BCC GPU facts come from flavorSpec when the instance has no gpuCard",
          "[bcc][cloudapi]") {
  const char* const flavor_body = R"({"zoneResources": [
    {"zoneName": "cn-bj-a", "bccResources": {"flavorGroups": [
      {"groupId": "gpu", "flavors": [
        {"spec": "bcc.lgn7.c96m1024.8h20", "gpuCardType": "H20", "gpuCardCount": 8,
         "cpuCount": 96, "memoryCapacityInGB": 1024, "productType": "PostPaid"},
        {"spec": "bcc.g5.c8m32", "gpuCardType": "", "gpuCardCount": 0, "cpuCount": 8,
         "memoryCapacityInGB": 32}]}]}},
    {"zoneName": "cn-bj-d"}]})";
  const BccFlavorCatalog catalog = parse_flavor_spec(flavor_body);
  REQUIRE(catalog.count("bcc.lgn7.c96m1024.8h20") == 1);
  CHECK(catalog.at("bcc.lgn7.c96m1024.8h20").gpu_card_count == 8);

  const json model = {
      {"id", "i-h20"},   {"status", "Running"}, {"spec", "bcc.lgn7.c96m1024.8h20"}, {"gpuCard", ""},
      {"cardCount", ""}, {"cpuCount", 96},      {"memoryCapacityInGB", 1024}};
  CHECK(needs_flavor_facts(model));
  CHECK(instance_from_model(model).summary.gpu_count == 0);
  const auto joined = instance_from_model(model, &catalog);
  CHECK(joined.summary.gpu_model == std::optional<std::string>("NVIDIA H20"));
  CHECK(joined.summary.gpu_count == 8);

  json cpu_only = model;
  cpu_only["spec"] = "bcc.g5.c8m32";
  CHECK(instance_from_model(cpu_only, &catalog).summary.gpu_count == 0);
  json zero_cards = {{"id", "i-z"}, {"gpuCard", "A100"}, {"cardCount", "0"}};
  CHECK(instance_from_model(zero_cards).summary.gpu_count == 0);
  CHECK_FALSE(needs_flavor_facts(zero_cards));
}

TEST_CASE("BCC error bodies and bad bodies", "[bcc][cloudapi]") {
  const auto error = parse_error_body(
      R"({"requestId": "ae2225f7-1c2e-427a-a1ad-5413b762957d", "code": "SignatureDoesNotMatch",
          "message": "The request signature we calculated does not match the signature you provided."})");
  REQUIRE(error);
  CHECK(error->code == "SignatureDoesNotMatch");
  CHECK(error->request_id == "ae2225f7-1c2e-427a-a1ad-5413b762957d");
  CHECK_FALSE(parse_error_body("<html>bad gateway</html>"));
  CHECK_FALSE(parse_error_body(R"({"instances": []})"));

  CHECK_THROWS_AS(parse_list_instances("not json"), Error);
  CHECK_THROWS_AS(parse_list_instances(R"({"instances": {}})"), Error);
  CHECK_THROWS_AS(parse_list_instances(R"({"isTruncated": "yes", "instances": []})"), Error);
  CHECK_THROWS_AS(parse_instance_detail(R"({"instances": []})"), Error);
  CHECK_THROWS_AS(instance_from_model(json{{"name", "no id"}}), Error);
  CHECK_THROWS_WITH(instance_from_model(json{{"id", "i-1"}, {"cardCount", "eight"}}),
                    Catch::Contains("cardCount"));
  CHECK_THROWS_WITH(instance_from_model(json{{"id", "i-1"}, {"cpuCount", "128"}}),
                    Catch::Contains("cpuCount"));
}

namespace {

// A plausible value of the Go type `go_type` for key `key`.
json plausible_value(const std::string& key, const std::string& go_type) {
  static const std::map<std::string, json> specific{
      {"id", "i-every"},       {"status", "Running"},      {"createTime", "2024-05-06T07:08:09Z"},
      {"cardCount", "8"},      {"gpuCard", "A100"},        {"spec", "bcc.lgn5.c128m1024.8a100"},
      {"zoneName", "cn-bj-a"}, {"repairStatus", "normal"}, {"internalIp", "10.0.0.2"},
      {"imageId", "m-abc"}};
  if (const auto it = specific.find(key); it != specific.end()) return it->second;
  if (go_type == "string") return "x-" + key;
  if (go_type == "int") return 4;
  if (go_type == "bool") return true;
  if (go_type == "InstanceType") return "G1";
  if (go_type == "InstanceStatus") return "Running";
  if (go_type == "[]string") return json::array({"a", "b"});
  if (go_type == "[]model.TagModel") return json::array({{{"tagKey", "k"}, {"tagValue", "v"}}});
  if (go_type.rfind("[]", 0) == 0) return json::array({json::object()});
  return json::object();
}

}  // namespace

TEST_CASE("BCC instance with every InstanceModel key of the Go SDK", "[bcc][cloudapi]") {
  const auto fields = test::bcc::baidu_sample("bcc-model-fields.json");
  if (!fields) return;
  const json& keys = fields->at("structs").at("InstanceModel");
  REQUIRE(keys.size() >= 70);
  json model = json::object();
  for (const auto& f : keys)
    model[f.at("json").get<std::string>()] =
        plausible_value(f.at("json").get<std::string>(), f.at("go_type").get<std::string>());

  const CloudInstance full = instance_from_model(model);
  CHECK(full.provider_id == "i-every");
  CHECK(full.power_state == PowerState::on);
  CHECK(full.summary.gpu_count == 8);
  CHECK(full.summary.cpu_count == 4);
  CHECK(full.tags == json{{"k", "v"}});
  CHECK(full.launched_at == std::optional<std::string>("2024-05-06T07:08:09Z"));

  // The same object inside a list page and a detail body.
  const json page = {{"marker", ""},
                     {"isTruncated", false},
                     {"nextMarker", ""},
                     {"maxKeys", 1000},
                     {"instances", json::array({model})}};
  CHECK(parse_list_instances(page.dump()).instances.size() == 1);
  CHECK(instance_from_model(parse_instance_detail(json{{"instance", model}}.dump())).provider_id ==
        "i-every");

  // A wrong type anywhere is ignored where the key is not read, or a clear error naming it.
  for (const auto& f : keys) {
    const std::string key = f.at("json").get<std::string>();
    json broken = model;
    broken[key] = f.at("go_type") == "string" ? json::object() : json("not-a-" + key);
    if (key == "id" || key == "cardCount") broken[key] = json::array();
    INFO("key " << key);
    try {
      (void)instance_from_model(broken);
    } catch (const Error& e) {
      CHECK(std::string(e.what()).find(key) != std::string::npos);
      CHECK(e.kind() == ErrorKind::invalid);
    }
  }
}

}  // namespace bcc_json_test
}  // namespace ironhold::cloudapi::bcc
