// The GPU catalogue in a real database: how a driver's string resolves (case and spacing do not
// matter, an exact alias beats a prefix, the longest prefix wins, a cloud node's instance type is
// tried before its GPU name), and that every change of the catalogue re-resolves the nodes in
// service at once, so gpu_model never names a model that was renamed or removed. The models here
// are the test's own, so nothing depends on the seeded catalogue.
#include "inventory/db/gpu_catalogue_store.hpp"

#include <catch2/catch.hpp>

#include "inventory/error.hpp"
#include "tests/inventory/db/store_fixture.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace gpu_catalogue_store_test {

using namespace ironhold;
using namespace ironhold::test;
using nlohmann::json;

namespace {

GpuModelSpec spec(const std::string& name, std::optional<std::vector<GpuAlias>> aliases = {}) {
  GpuModelSpec s;
  s.name = name;
  s.vendor = "Acme";
  s.family = "Roadrunner";
  s.model = name.substr(name.rfind(' ') + 1);
  s.memory_gib = 48;
  s.form_factor = "PCIe";
  s.aliases = std::move(aliases);
  return s;
}

std::string resolve(StoreFixture& f, const std::string& raw, const std::string& source,
                    const std::string& model) {
  return f.database.execute("SELECT coalesce(resolve_gpu_model('" + raw + "', '" + source + "', " +
                            (model.empty() ? std::string("NULL") : "'" + model + "'") +
                            "), '<none>')");
}

// What the node's hardware summary says now.
json hardware(StoreFixture& f, const std::string& id) {
  return json::parse(
      f.database.execute("SELECT hardware::text FROM nodes WHERE id = '" + id + "'"));
}

// The hardware summary a driver wrote before the catalogue existed: gpu_model is the raw name.
void write_gpu(StoreFixture& f, const std::string& id, const std::string& raw, int count) {
  f.database.execute("UPDATE nodes SET hardware = jsonb_build_object('gpu_model', '" + raw +
                     "'::text, 'gpu_count', " + std::to_string(count) + ") WHERE id = '" + id +
                     "'");
}

}  // namespace

TEST_CASE("a driver's string resolves by exact alias, then the longest prefix",
          "[db][gpu_catalogue]") {
  StoreFixture f;
  db::GpuCatalogueStore catalogue(f.db);
  catalogue.put("Acme X1 48GB",
                spec("Acme X1 48GB",
                     std::vector<GpuAlias>{
                         {"gpu", "Acme   X1"}, {"gpu", "ACME X*"}, {"instance_type", "acme.x1.*"}}),
                "tester");
  catalogue.put("Acme X1 Pro 96GB",
                spec("Acme X1 Pro 96GB", std::vector<GpuAlias>{{"gpu", "acme x1 pro*"},
                                                               {"instance_type", "acme.x1.huge"}}),
                "tester");

  CHECK(resolve(f, "  acme x1 ", "bmc", "") == "Acme X1 48GB");           // case and spacing
  CHECK(resolve(f, "Acme X1 Pro SXM", "bmc", "") == "Acme X1 Pro 96GB");  // longest prefix
  CHECK(resolve(f, "Acme X7", "bmc", "") == "Acme X1 48GB");              // the shorter prefix
  CHECK(resolve(f, "acme x1 48gb", "bmc", "") == "Acme X1 48GB");         // the name itself
  CHECK(resolve(f, "Other Y", "bmc", "") == "<none>");
  // A cloud node's instance type first, whatever its GPU name says; an exact type beats a prefix.
  CHECK(resolve(f, "Acme X1", "cloud", "acme.x1.huge") == "Acme X1 Pro 96GB");
  CHECK(resolve(f, "Other Y", "cloud", "acme.x1.small") == "Acme X1 48GB");
  CHECK(resolve(f, "Other Y", "cloud", "other.type") == "<none>");
  // An owned server's model is not an instance type.
  CHECK(resolve(f, "Other Y", "bmc", "acme.x1.small") == "<none>");
}

TEST_CASE("catalogue changes re-resolve the nodes in service, and unmapped names are listed",
          "[db][gpu_catalogue]") {
  StoreFixture f;
  db::GpuCatalogueStore catalogue(f.db);
  const std::string a = f.enroll("gpu-a");
  const std::string b = f.enroll("gpu-b");
  const std::string old = f.enroll("gpu-retired");
  write_gpu(f, a, "Acme Z9 rev 2", 8);
  write_gpu(f, b, "Acme Z9 rev 2", 4);
  write_gpu(f, old, "Acme Z9 rev 2", 2);
  f.database.execute("UPDATE nodes SET retired_at = now(), lifecycle = 'retired' WHERE id = '" +
                     old + "'");

  // Unknown: the raw name stays as gpu_model, and is listed with where it was seen.
  CHECK(hardware(f, a)["gpu_model"] == "Acme Z9 rev 2");
  CHECK(hardware(f, a)["gpu_model_raw"] == "Acme Z9 rev 2");
  auto unmapped = catalogue.unmapped();
  REQUIRE(unmapped.size() == 1);
  CHECK(unmapped[0].name == "Acme Z9 rev 2");
  CHECK(unmapped[0].nodes == 2);  // the retired node is not in service
  CHECK(unmapped[0].bmc_nodes == 2);
  CHECK(unmapped[0].cloud_nodes == 0);
  CHECK(unmapped[0].drivers == std::vector<std::string>{"redfish"});
  CHECK(unmapped[0].example_nodes == std::vector<std::string>{"gpu-a", "gpu-b"});

  auto change = catalogue.put("Acme Z9 48GB", spec("Acme Z9 48GB"), "tester");
  CHECK(change.created);
  CHECK(change.nodes_remapped == 0);
  change = catalogue.add_alias("Acme Z9 48GB", {"gpu", "acme z9 rev 2"}, "tester");
  CHECK(change.nodes_remapped == 2);
  CHECK(change.model.nodes == 2);
  CHECK(change.model.gpus == 12);
  CHECK(hardware(f, a)["gpu_model"] == "Acme Z9 48GB");
  CHECK(hardware(f, a)["gpu_model_raw"] == "Acme Z9 rev 2");
  CHECK(hardware(f, old)["gpu_model"] == "Acme Z9 rev 2");  // retired as it was
  CHECK(catalogue.unmapped().empty());
  // Adding it again changes nothing; the same alias on another model is refused, naming the first.
  CHECK(catalogue.add_alias("Acme Z9 48GB", {"gpu", "Acme Z9 Rev 2"}, "tester").nodes_remapped ==
        0);
  catalogue.put("Acme Z9 96GB", spec("Acme Z9 96GB"), "tester");
  try {
    catalogue.add_alias("Acme Z9 96GB", {"gpu", "Acme Z9 rev 2"}, "tester");
    FAIL("an alias held by another model was taken");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::conflict);
    CHECK(std::string(e.what()).find("Acme Z9 48GB") != std::string::npos);
  }

  // A rename carries the aliases and the nodes along; renaming onto a taken name is refused.
  auto renamed = spec("Acme Z9 Ultra 48GB");
  change = catalogue.put("Acme Z9 48GB", renamed, "tester");
  CHECK_FALSE(change.created);
  CHECK(change.nodes_remapped == 2);
  CHECK(hardware(f, b)["gpu_model"] == "Acme Z9 Ultra 48GB");
  CHECK(change.model.aliases.size() == 1);
  CHECK_THROWS_AS(catalogue.put("Acme Z9 Ultra 48GB", spec("Acme Z9 96GB"), "tester"), Error);
  CHECK_THROWS_AS(catalogue.get("Acme Z9 48GB"), Error);

  // Replacing the aliases through put, then removing one, then the model.
  change = catalogue.put("Acme Z9 Ultra 48GB",
                         spec("Acme Z9 Ultra 48GB", std::vector<GpuAlias>{{"gpu", "Acme Z9*"}}),
                         "tester");
  CHECK(change.nodes_remapped == 0);  // the prefix still covers them
  change = catalogue.remove_alias("Acme Z9 Ultra 48GB", {"gpu", "acme z9*"});
  CHECK(change.nodes_remapped == 2);
  CHECK(hardware(f, a)["gpu_model"] == "Acme Z9 rev 2");
  CHECK_THROWS_AS(catalogue.remove_alias("Acme Z9 Ultra 48GB", {"gpu", "acme z9*"}), Error);
  catalogue.add_alias("Acme Z9 96GB", {"gpu", "Acme Z9 rev 2"}, "tester");
  CHECK(hardware(f, a)["gpu_model"] == "Acme Z9 96GB");
  change = catalogue.remove("Acme Z9 96GB");
  CHECK(change.nodes_remapped == 2);
  CHECK(hardware(f, a)["gpu_model"] == "Acme Z9 rev 2");
  CHECK(f.database.execute("SELECT count(*) FROM gpu_model_aliases WHERE model = 'Acme Z9 96GB'") ==
        "0");
  // Every change of a node's model is a version of the node, so "as of" exports keep what was.
  CHECK(std::stoi(
            f.database.execute("SELECT count(*) FROM node_versions WHERE id = '" + a + "'")) >= 6);
}

}  // namespace gpu_catalogue_store_test
