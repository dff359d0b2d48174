#include "inventory/db/bmc_target_columns.hpp"

#include "inventory/db/node_secrets.hpp"
#include "inventory/error.hpp"
#include "inventory/util/log.hpp"

namespace ironhold::db {

void read_bmc_columns(DriverTarget& target, const pqxx::row& r, pqxx::row::size_type first,
                      const crypto::SecretBox& box) {
  std::string why;
  if (!r[first].is_null())
    if (auto endpoint = parse_endpoint(r[first].c_str(), why)) target.endpoint = *endpoint;
  target.options = nlohmann::json::parse(r[first + 1].c_str(), nullptr, false);
  if (!r[first + 2].is_null()) target.pinned_fingerprint = r[first + 2].as<std::string>();
  if (r[first + 3].is_null()) return;
  try {
    auto secrets = open_node_secrets(box, target.node_id, r[first + 3].c_str());
    target.credentials = std::move(secrets.credentials);
    target.kg = std::move(secrets.kg);
  } catch (const Error& e) {
    log::warn("cannot open a node's credentials",
              {{"node", target.node_name}, {"error", e.what()}});
  }
}

}  // namespace ironhold::db
