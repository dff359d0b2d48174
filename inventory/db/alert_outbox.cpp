#include "inventory/db/alert_outbox.hpp"

#include "inventory/crypto/primitives.hpp"
#include "inventory/db/transaction.hpp"
#include "inventory/util/log.hpp"

namespace ironhold::db {

std::vector<Delivery> AlertOutbox::claim(const std::string& owner, int limit,
                                         std::chrono::seconds lease) {
  return transact(db_, [&](pqxx::work& tx) {
    const auto rows = tx.exec_params(
        "WITH due AS (SELECT o.id FROM alert_outbox o "
        "  WHERE o.delivered_at IS NULL AND o.next_attempt <= now() "
        "    AND (o.lease_expires IS NULL OR o.lease_expires < now()) "
        "  ORDER BY o.next_attempt, o.id LIMIT $2 FOR UPDATE SKIP LOCKED) "
        "UPDATE alert_outbox o SET lease_owner = $1, "
        "       lease_expires = now() + make_interval(secs => $3) "
        "  FROM due, alert_receivers r "
        " WHERE o.id = due.id AND r.id = o.receiver_id AND r.deleted_at IS NULL "
        "RETURNING o.id, r.id::text, r.name, r.url, encode(r.sealed, 'hex'), o.status, "
        "          o.payload::text, o.attempts",
        owner, limit, static_cast<double>(lease.count()));
    std::vector<Delivery> out;
    for (const auto& r : rows) {
      Delivery d;
      d.id = r[0].as<long long>();
      d.receiver_id = r[1].as<std::string>();
      d.receiver_name = r[2].as<std::string>();
      d.url = r[3].as<std::string>();
      std::vector<std::uint8_t> sealed;
      try {
        if (!crypto::from_hex(r[4].c_str(), sealed)) throw std::runtime_error("not hex");
        d.secret = box_.open(sealed, d.receiver_id);
      } catch (const std::exception& e) {
        // Not sent unsigned: the receiver would have to trust it blindly.
        log::warn("an alert receiver's secret does not open; its notifications wait",
                  {{"receiver", d.receiver_name}, {"error", e.what()}});
        tx.exec_params(
            "UPDATE alert_outbox SET lease_owner = NULL, lease_expires = NULL, "
            "       next_attempt = now() + interval '10 minutes', "
            "       last_error = 'the receiver secret cannot be opened' WHERE id = $1",
            d.id);
        continue;
      }
      d.status = r[5].as<std::string>();
      d.alert = nlohmann::json::parse(r[6].c_str(), nullptr, false);
      d.attempts = r[7].as<int>();
      out.push_back(std::move(d));
    }
    return out;
  });
}

void AlertOutbox::delivered(long long id) {
  transact(db_, [&](pqxx::work& tx) {
    tx.exec_params(
        "UPDATE alert_outbox SET delivered_at = now(), attempts = attempts + 1, "
        "       lease_owner = NULL, lease_expires = NULL, last_error = NULL WHERE id = $1",
        id);
  });
}

void AlertOutbox::failed(long long id, const std::string& error) {
  transact(db_, [&](pqxx::work& tx) {
    tx.exec_params(
        "UPDATE alert_outbox SET attempts = attempts + 1, lease_owner = NULL, "
        "       lease_expires = NULL, last_error = left($2, 500), "
        "       next_attempt = now() + least(interval '10 minutes', "
        "           make_interval(secs => $3) * power(2, least(attempts, 12))) "
        " WHERE id = $1",
        id, error, static_cast<double>(retry_base_.count()) / 1000.0);
  });
}

}  // namespace ironhold::db
