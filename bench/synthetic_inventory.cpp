#include "bench/synthetic_inventory.hpp"

#include <chrono>
#include <cstdio>

namespace ironhold::bench {
namespace {

constexpr const char* kSiteCodes =
    "ARRAY['fra','ams','iad','sjc','sin','nrt','syd','gru','lhr','cdg']";
const char* const kSiteCodeList[] = {"fra", "ams", "iad", "sjc", "sin",
                                     "nrt", "syd", "gru", "lhr", "cdg"};

// One server model per rack, five models in turn.
constexpr const char* kModels =
    "(VALUES "
    "(0, 'Supermicro', 'AS-8125GS-TNHR', 'S', 'AMD EPYC 9654 96-Core Processor', "
    "    'NVIDIA H100 80GB HBM3', 1536, 8, 'SYS-8125GS', 'AS-8125GS-TNHR-01', '2.1a', '01.02.12'),"
    "(1, 'Dell Inc.', 'PowerEdge XE9680', 'D', 'Intel(R) Xeon(R) Platinum 8480+', "
    "    'NVIDIA H100 80GB HBM3', 2048, 8, '0R7G8D', 'XE9680-2P', '2.0.3', '7.10.30.00'),"
    "(2, 'HPE', 'ProLiant XD670', 'H', 'Intel(R) Xeon(R) Platinum 8468', "
    "    'NVIDIA H200 141GB HBM3e', 2048, 8, 'P62541-B21', 'XD670-G11', 'U59 v1.50', 'iLO 6 1.55'),"
    "(3, 'Lenovo', 'ThinkSystem SR680a V3', 'L', 'Intel(R) Xeon(R) Platinum 8580', "
    "    'NVIDIA H100 80GB HBM3', 2048, 8, '7DHE', 'SR680aV3-8G', 'ESE122T', 'XCC 3.10'),"
    "(4, 'Giga Computing', 'G593-SD0', 'G', 'AMD EPYC 9534 64-Core Processor', "
    "    'NVIDIA H100 80GB HBM3', 1536, 4, '6NG593SD0DR', 'G593-SD0-AAX1', 'R14', '12.61.17')"
    ") AS m(k, vendor, model, prefix, cpu, gpu, memory, drives, sku, part, bios, bmc)";

// The firmware inventory of an HGX server (the ids our hgx-gpu-server mockup has), in the order
// records are taken per node.
constexpr const char* kFirmware =
    "(VALUES "
    "(1, 'BMC', 'BMC firmware', '4.12.'),"
    "(2, 'BIOS', 'BIOS', '2.3.'),"
    "(3, 'CPLD', 'CPLD firmware', '1.0.'),"
    "(4, 'NIC_ConnectX7_0', 'NIC ConnectX7_0 firmware', '28.39.'),"
    "(5, 'GPU_SXM_1', 'GPU SXM 1 firmware', '96.00.74.00.'),"
    "(6, 'GPU_SXM_2', 'GPU SXM 2 firmware', '96.00.74.00.'),"
    "(7, 'PSU_1', 'PSU 1 firmware', '2.4.'),"
    "(8, 'NVSwitch_0', 'NVSwitch 0 firmware', '96.10.4C.00.'),"
    "(9, 'GPU_SXM_3', 'GPU SXM 3 firmware', '96.00.74.00.'),"
    "(10, 'GPU_SXM_4', 'GPU SXM 4 firmware', '96.00.74.00.'),"
    "(11, 'GPU_SXM_5', 'GPU SXM 5 firmware', '96.00.74.00.'),"
    "(12, 'GPU_SXM_6', 'GPU SXM 6 firmware', '96.00.74.00.'),"
    "(13, 'GPU_SXM_7', 'GPU SXM 7 firmware', '96.00.74.00.'),"
    "(14, 'GPU_SXM_8', 'GPU SXM 8 firmware', '96.00.74.00.'),"
    "(15, 'NIC_ConnectX7_1', 'NIC ConnectX7_1 firmware', '28.39.'),"
    "(16, 'NIC_OCP_0', 'NIC OCP_0 firmware', '14.32.'),"
    "(17, 'PSU_2', 'PSU 2 firmware', '2.4.'),"
    "(18, 'NVSwitch_1', 'NVSwitch 1 firmware', '96.10.4C.00.'),"
    "(19, 'NVSwitch_2', 'NVSwitch 2 firmware', '96.10.4C.00.'),"
    "(20, 'NVSwitch_3', 'NVSwitch 3 firmware', '96.10.4C.00.')"
    ") AS c(ord, component, name, version)";

std::string nodes_sql(long from, long to) {
  const std::string site =
      "(" + std::string(kSiteCodes) + ")[(i / 1000) % 10 + 1] || ((i / 1000) / 10 + 1)";
  return "INSERT INTO nodes (name, source, driver, endpoint, site, rack, unit, tags, manufacturer, "
         "  model, serial, asset_tag, power_state, health, reachable, lifecycle, last_seen, "
         "  hardware, identity, last_inspected, created_at, updated_at) "
         "SELECT loc.site || '-' || loc.rack || '-u' || lpad(loc.unit::text, 2, '0'), 'bmc', "
         "  CASE WHEN i % 5 = 4 THEN 'ipmi' ELSE 'redfish' END, "
         "  CASE WHEN i % 5 = 4 THEN 'ipmi://' ELSE 'https://' END || '10.' || (i / 65536) % 256 "
         "    || '.' || (i / 256) % 256 || '.' || i % 256, "
         "  loc.site, loc.rack, loc.unit, "
         "  jsonb_build_object('team', (ARRAY['ml-training','inference','research','platform',"
         "      'batch','vision','speech'])[i % 7 + 1], "
         "    'env', CASE WHEN i % 10 < 8 THEN 'prod' ELSE 'staging' END, "
         "    'cluster', loc.site || '-c' || (i % 1000) / 250), "
         "  m.vendor, m.model, m.prefix || upper(lpad(to_hex(i * 7919 + 100003), 9, '0')), "
         "  'AT-' || lpad(i::text, 7, '0'), "
         "  CASE WHEN i % 50 = 7 THEN 'off' ELSE 'on' END, "
         "  CASE WHEN i % 100 = 3 THEN 'critical' WHEN i % 25 = 1 THEN 'warning' ELSE 'ok' END, "
         "  true, CASE WHEN i % 7 = 0 THEN 'available' ELSE 'deployed' END, "
         "  now() - (i % 30) * interval '1 second', "
         "  jsonb_build_object('cpu_count', 2, 'cpu_model', m.cpu, 'gpu_count', 8, 'gpu_model', "
         "    m.gpu, 'memory_gib', m.memory, 'drive_count', m.drives, 'drive_capacity_gb', "
         "    m.drives * 3840), "
         "  jsonb_build_object('sku', m.sku, 'part_number', m.part, 'uuid', "
         "    gen_random_uuid()::text, 'bios_version', m.bios, 'bmc_firmware', m.bmc), "
         "  now() - (i % 86400) * interval '1 second', "
         "  now() - (400 - i % 365) * interval '1 day', now() "
         "FROM generate_series(" +
         std::to_string(from) + ", " + std::to_string(to) +
         ") AS i "
         "CROSS JOIN LATERAL (SELECT " +
         site +
         " AS site, 'r' || lpad(((i % 1000) / 40 + 1)::text, 2, '0') AS rack, "
         "  (i % 40) + 1 AS unit) loc "
         "JOIN " +
         kModels + " ON m.k = (i / 40) % 5";
}

double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

std::vector<std::string> site_names(long count) {
  std::vector<std::string> names;
  for (long s = 0; s * 1000 < count; ++s)
    names.push_back(kSiteCodeList[s % 10] + std::to_string(s / 10 + 1));
  return names;
}

void insert_nodes(BenchDatabase& db, long count) {
  const auto t0 = std::chrono::steady_clock::now();
  // Transactions of 10,000 nodes: each row's triggers add its poll schedule, change row and
  // first version.
  for (long from = 0; from < count; from += 10000) {
    throw_if_stopped();
    db.query(nodes_sql(from, std::min(count, from + 10000) - 1));
  }
  const double inserted = since(t0);
  db.run("VACUUM ANALYZE");
  std::printf("inserted %ld nodes in %.1f s (VACUUM ANALYZE %.1f s); database %s\n", count,
              inserted, since(t0) - inserted,
              db.query("SELECT pg_size_pretty(pg_database_size(current_database()))").c_str());
  std::fflush(stdout);
}

void insert_firmware(BenchDatabase& db, int per_node) {
  const auto t0 = std::chrono::steady_clock::now();
  // Versions differ a little between nodes (the last number), as in a fleet mid-rollout.
  db.query(std::string(
               "INSERT INTO firmware_records (node_id, node_name, component, version, valid_from, "
               "  valid_to, name, updateable) "
               "SELECT n.id, n.name, c.component, "
               "  c.version || (abs(hashtext(n.name || c.component)) % 4 + 1), "
               "  n.created_at + (abs(hashtext(n.name)) % 30) * interval '1 day', NULL, c.name, "
               "  true "
               "FROM nodes n CROSS JOIN ") +
           kFirmware + " WHERE c.ord <= " + std::to_string(per_node));
  db.query(
      "INSERT INTO firmware_records (node_id, node_name, component, version, valid_from, "
      "  valid_to, name, updateable) "
      "SELECT n.id, n.name, 'BIOS', '2.2.9', n.created_at, "
      "  n.created_at + (abs(hashtext(n.name)) % 30) * interval '1 day', 'BIOS', true "
      "FROM nodes n");
  const double inserted = since(t0);
  db.run("VACUUM ANALYZE firmware_records");
  std::printf("inserted %s firmware records in %.1f s (VACUUM ANALYZE %.1f s); database %s\n",
              db.query("SELECT count(*) FROM firmware_records").c_str(), inserted,
              since(t0) - inserted,
              db.query("SELECT pg_size_pretty(pg_database_size(current_database()))").c_str());
  std::fflush(stdout);
}

}  // namespace ironhold::bench
