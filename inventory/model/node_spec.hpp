#pragma once
// What an enrollment (POST /api/v1/nodes) or an update (PATCH) may set on a node, validated.
// Wrong JSON types are ErrorKind::invalid (HTTP 400) naming the field; values the service cannot
// accept (an unknown driver, a bad endpoint, an unknown option) are ErrorKind::unprocessable (422).
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "inventory/model/endpoint.hpp"
#include "inventory/model/node.hpp"

namespace ironhold {

struct NodeSpec {
  std::string name;
  std::string project = "default";
  std::string driver;  // "redfish", "ipmi", or "auto" until a probe resolves it
  Source source = Source::bmc;
  Endpoint endpoint;
  nlohmann::json options = nlohmann::json::object();  // public options only
  std::optional<std::string> kg;                      // IPMI BMC key (hex), write-only
  std::optional<Credentials> credentials;
  Location location;
  nlohmann::json tags = nlohmann::json::object();
  bool maintenance = false;
  std::optional<std::string> maintenance_reason;
};

// Validates an enrollment body.
NodeSpec parse_node_spec(const nlohmann::json& body);

// The fields of a node that PATCH may change, as a document to merge a patch into.
nlohmann::json patchable_document(const Node& node);

// Validates a PATCH body against `current` and returns the node's complete new spec. Objects
// (options, location, tags) merge as RFC 7396 (a null removes a key); other fields replace.
// `kg` keeps the current key unless the patch sets or removes options.kg; `credentials_changed`
// tells whether the patch carried new credentials (then spec.credentials holds them).
NodeSpec apply_node_patch(const Node& current, const std::optional<std::string>& current_kg,
                          const nlohmann::json& patch, bool& credentials_changed);

// What an operator may change on a cloud instance's node: its name, tags and maintenance; the
// rest comes from the provider at every sync. Returns `current`'s spec with the patch applied
// (the endpoint, driver and location left as they are); other keys are unprocessable.
struct CloudNodePatch {
  std::string name;
  nlohmann::json tags = nlohmann::json::object();
  bool maintenance = false;
  std::optional<std::string> maintenance_reason;
};
CloudNodePatch apply_cloud_node_patch(const Node& current, const nlohmann::json& patch);

// A PATCH's "gpus_expected": a count from 1 to max_gpus_expected, or nothing for null (take the
// last inspection's count). Anything else is unprocessable, naming the field.
std::optional<int> parse_gpus_expected(const nlohmann::json& value);

// RFC 7396 JSON merge patch.
void merge_patch(nlohmann::json& target, const nlohmann::json& patch);

// A tag filter "key:value" split in two; false if there is no colon or the key is empty.
bool split_tag_selector(std::string_view selector, std::string& key, std::string& value);

}  // namespace ironhold
