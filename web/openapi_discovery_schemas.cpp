// The OpenAPI schemas of network discovery: the request and the run with its results.
#include <nlohmann/json.hpp>

#include "inventory/discovery/address_range.hpp"
#include "inventory/discovery/discovery_request.hpp"
#include "inventory/util/concat.hpp"
#include "web/openapi_types.hpp"

namespace ironhold::web::openapi {

using nlohmann::json;

namespace {

json integer(const char* description) {
  return {{"type", "integer"}, {"description", description}};
}

json request_schema() {
  return {
      {"type", "object"},
      {"additionalProperties", false},
      {"required", json::array({"addresses"})},
      {"properties",
       {{"addresses",
         {{"type", "string"},
          {"description",
           util::concat(
               "one address (10.0.0.5), an inclusive range (10.0.0.1-10.0.0.40) or a CIDR block "
               "(10.0.0.0/26; an IPv4 block leaves out its network and broadcast addresses); "
               "IPv4 or IPv6; at most ",
               std::to_string(discovery::max_addresses), " addresses")}}},
        {"ports",
         {{"type", "array"},
          {"minItems", 1},
          {"maxItems", discovery::max_ports},
          {"uniqueItems", true},
          {"items", {{"type", "integer"}, {"minimum", 1}, {"maximum", 65535}}},
          {"description",
           "each port is tried, in order, for Redfish over HTTPS and then IPMI over UDP; an "
           "address is reported at the first port where a BMC answers. Default: 443 (Redfish) "
           "and 623 (IPMI)"}}},
        {"credentials",
         {{"type", "object"},
          {"writeOnly", true},
          {"required", {"username", "password"}},
          {"properties", {{"username", {{"type", "string"}}}, {"password", {{"type", "string"}}}}},
          {"description",
           "for the nodes it enrolls; required with enroll: true; never stored "
           "with the run or shown"}}},
        {"enroll",
         {{"type", "boolean"},
          {"default", false},
          {"description",
           "enroll what answered (as POST /api/v1/nodes would); an endpoint already enrolled is "
           "reported as already_enrolled"}}},
        {"name_prefix",
         {{"type", "string"},
          {"default", "bmc-"},
          {"maxLength", discovery::max_name_prefix},
          {"description",
           "node names are the prefix and the address with '.' and ':' as '-', and -PORT when "
           "the BMC is not on its protocol's standard port: bmc-10-0-0-5, bmc-10-0-0-5-8443"}}},
        {"tags",
         {{"type", "object"},
          {"additionalProperties", {{"type", "string"}}},
          {"description", "set on the nodes it enrolls"}}},
        {"concurrency",
         {{"type", "integer"},
          {"minimum", 1},
          {"maximum", discovery::max_concurrency},
          {"default", discovery::default_concurrency},
          {"description", "addresses probed at once"}}},
        {"timeout_ms",
         {{"type", "integer"},
          {"minimum", 100},
          {"maximum", 30000},
          {"description", "per probe (Redfish and IPMI each); default: the server's (3000)"}}}}}};
}

json result_schema() {
  return {{"type", "object"},
          {"properties",
           {{"address", {{"type", "string"}}},
            {"port", {{"type", "integer"}}},
            {"driver", {{"type", {"string", "null"}}, {"enum", {"redfish", "ipmi", nullptr}}}},
            {"endpoint", nullable("string")},
            {"status",
             {{"type", "string"}, {"enum", {"found", "enrolled", "already_enrolled", "error"}}}},
            {"node_id", {{"type", "string"}, {"format", "uuid"}}},
            {"node_name", {{"type", "string"}}},
            {"detail", {{"type", "string"}}}}}};
}

json run_schema() {
  return {
      {"type", "object"},
      {"properties",
       {{"id", {{"type", "string"}, {"format", "uuid"}}},
        {"state", {{"type", "string"}, {"enum", {"queued", "running", "succeeded", "failed"}}}},
        {"addresses", integer("how many addresses the run sweeps")},
        {"counts",
         {{"type", "object"},
          {"properties",
           {{"probed", integer("addresses done")},
            {"found", integer("addresses where a BMC answered")},
            {"enrolled", integer("nodes enrolled")},
            {"already_enrolled", integer("BMCs whose endpoint a node in service has")},
            {"errors", integer("results with status error")}}}}},
        {"error", nullable("string")},
        {"requested_by", {{"type", "string"}}},
        {"request_id", nullable("string")},
        {"parameters",
         {{"type", "object"}, {"description", "the request as accepted, without the password"}}},
        {"created_at", {{"type", "string"}, {"format", "date-time"}}},
        {"started_at", nullable("string")},
        {"finished_at", nullable("string")},
        {"results",
         {{"type", "array"},
          {"items", result_schema()},
          {"description",
           "GET /api/v1/discovery/{id} only: every address where a BMC answered, or that "
           "failed; silent addresses are counted in probed only"}}}}}};
}

}  // namespace

json discovery_schemas() {
  return {{"DiscoveryRequest", request_schema()}, {"DiscoveryRun", run_schema()}};
}

}  // namespace ironhold::web::openapi
