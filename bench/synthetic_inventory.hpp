#pragma once
// A large inventory written straight into the database with SQL (generate_series), for the
// benchmarks of the API and the exports: the nodes table's constraints hold and its triggers run
// (poll schedule, change stream, node history), as for nodes enrolled through the API.
#include <string>
#include <vector>

#include "bench/bench_service.hpp"

namespace ironhold::bench {

// `count` owned GPU servers in sites of 1,000 nodes each (fra1, ams1, iad1, ..., then fra2, ...),
// racks of 40, 80 % Redfish and 20 % IPMI, with hardware summaries, identity, tags, health and
// power spread as in a fleet in service; then VACUUM ANALYZE. Prints how long it took.
void insert_nodes(BenchDatabase& db, long count);

// `per_node` current firmware records per node (BMC, BIOS, CPLD, PSUs, NICs, drives, GPUs, ...;
// at most 20), and one earlier, superseded BIOS version per node (history an export of "now"
// leaves out); then VACUUM ANALYZE.
void insert_firmware(BenchDatabase& db, int per_node);

// The site names, in order; each holds 1,000 nodes (the last one possibly fewer).
std::vector<std::string> site_names(long count);

}  // namespace ironhold::bench
