// Verifying the audit chain: every entry's seal must match its content and the entry before it, in
// `seq` order, up to the head the database records and the head last anchored outside it. The
// first entry that does not is classified by what its neighbours say:
//   - its seal does not match its content, but the next entry follows it: modified;
//   - its seal does not match, and the next entry follows the one before it: inserted;
//   - its seal matches, but it follows an entry that is elsewhere in the chain: reordered;
//   - its seal matches, but it follows an entry that is nowhere: the one before was deleted.

#include "inventory/audit/seal.hpp"
#include "inventory/crypto/primitives.hpp"
#include "inventory/db/audit_append.hpp"
#include "inventory/db/transaction.hpp"
#include "inventory/util/concat.hpp"

namespace ironhold::db {
namespace {

struct WalkRow {
  long long id = 0;
  std::optional<long long> seq;
  audit::SealedContent content;
  std::string prev_hex;  // empty for the first entry
  std::optional<std::string> mac_hex;
};

WalkRow walk_row(const pqxx::row& r) {
  WalkRow w;
  w.id = r[0].as<long long>();
  if (!r[1].is_null()) w.seq = r[1].as<long long>();
  w.content = content_from(r, 2);
  const int after = 2 + sealed_column_count;
  if (!r[after].is_null()) w.prev_hex = r[after].as<std::string>();
  if (!r[after + 1].is_null()) w.mac_hex = r[after + 1].as<std::string>();
  return w;
}

bool seal_matches(const crypto::Key& key, const WalkRow& row) {
  std::vector<std::uint8_t> previous;
  if (!row.mac_hex || !crypto::from_hex(row.prev_hex, previous)) return false;
  const audit::Mac mac = audit::seal(
      key, row.content,
      std::string_view(reinterpret_cast<const char*>(previous.data()), previous.size()));
  return crypto::to_hex(mac) == *row.mac_hex;
}

std::string describe(const WalkRow& row) {
  std::string text = "entry " +
                     (row.seq ? std::to_string(*row.seq) : std::string("without a place")) +
                     " (id " + std::to_string(row.id) + ", " + row.content.at + ", \"" +
                     row.content.action + "\" by " + row.content.actor + ")";
  return text;
}

ChainProblem problem_at(const WalkRow& row, std::string kind, const std::string& what) {
  return ChainProblem{std::move(kind), row.seq, row.id, describe(row) + " " + what};
}

class Walk {
 public:
  // Entries up to `legacy_through` predate the chain; unsealed while `legacy_sealed` is false.
  Walk(pqxx::work& tx, const crypto::Key& key, const ChainHead& head, long long legacy_through,
       bool legacy_sealed)
      : tx_(tx),
        key_(key),
        head_(head),
        legacy_through_(legacy_through),
        legacy_sealed_(legacy_sealed) {}

  // Takes the rows in order; returns false once a problem is found (the rest are not needed).
  bool take(WalkRow row) {
    if (suspect_) {
      problem_ = classify_suspect(*suspect_, &row);
      return false;
    }
    if (!row.mac_hex) return take_unsealed(row);
    const bool sealed_ok = seal_matches(key_, row);
    const bool follows = row.prev_hex == previous_hex_;
    if (sealed_ok && follows && row.seq == expected_seq_) {
      previous_hex_ = *row.mac_hex;
      last_seq_ = *row.seq;
      ++expected_seq_;
      ++entries_;
      return true;
    }
    if (!sealed_ok) {
      suspect_ = std::move(row);  // the next row tells modified from inserted
      return true;
    }
    if (follows) {
      problem_ =
          problem_at(row, "modified",
                     "has had its place changed: it follows entry " + std::to_string(last_seq_) +
                         " but is numbered " + std::to_string(*row.seq));
    } else if (auto where = seq_of_mac(row.prev_hex)) {
      problem_ = problem_at(row, "reordered",
                            "was moved: it was written after entry " + std::to_string(*where) +
                                ", not after entry " + std::to_string(last_seq_));
    } else {
      problem_ =
          ChainProblem{"deleted", expected_seq_, std::nullopt,
                       "entry " + std::to_string(expected_seq_) + " was deleted: " + describe(row) +
                           " was written after an entry that is no longer there"};
    }
    return false;
  }

  // After the last row: a pending suspect, then the ends of the chain.
  void finish(const std::optional<audit::Anchor>& anchor) {
    if (problem_) return;
    if (suspect_) {
      problem_ = classify_suspect(*suspect_, nullptr);
      return;
    }
    if (head_.seq > last_seq_ || (head_.seq == last_seq_ && head_.mac_hex != previous_hex_)) {
      problem_ = ChainProblem{"deleted", last_seq_ + 1, std::nullopt,
                              "the newest entries were deleted: the chain ends at entry " +
                                  std::to_string(last_seq_) + " but its recorded head is entry " +
                                  std::to_string(head_.seq)};
      return;
    }
    if (head_.seq < last_seq_) {
      problem_ = ChainProblem{"inserted", head_.seq + 1, std::nullopt,
                              "entries were added past the chain's recorded head (entry " +
                                  std::to_string(head_.seq) + ")"};
      return;
    }
    if (anchor && anchor->seq > last_seq_) {
      problem_ = ChainProblem{"deleted", last_seq_ + 1, std::nullopt,
                              "the newest entries were deleted: the chain ends at entry " +
                                  std::to_string(last_seq_) + " but reached entry " +
                                  std::to_string(anchor->seq) + " at " + anchor->at +
                                  " (anchored outside the database)"};
      return;
    }
    if (anchor && anchor->seq > 0 && anchored_mac_ && *anchored_mac_ != anchor->mac_hex)
      problem_ =
          ChainProblem{"modified", anchor->seq, std::nullopt,
                       "entry " + std::to_string(anchor->seq) +
                           " differs from the one anchored outside the database at " + anchor->at};
  }

  void watch_anchor(long long seq) { anchor_seq_ = seq; }
  void note_anchor_position() {
    if (anchor_seq_ == last_seq_ && last_seq_ > 0) anchored_mac_ = previous_hex_;
  }

  long long entries() const { return entries_; }
  long long unsealed_legacy() const { return unsealed_legacy_; }
  std::optional<ChainProblem> problem() { return std::move(problem_); }

 private:
  bool take_unsealed(const WalkRow& row) {
    // Rows from before the chain wait for the first writer with the key; anything else without a
    // seal was written around the service.
    if (!legacy_sealed_ && row.id <= legacy_through_) {
      ++unsealed_legacy_;
      return true;
    }
    problem_ = problem_at(row, "inserted", "has no seal: it was written directly to the database");
    return false;
  }

  ChainProblem classify_suspect(const WalkRow& suspect, const WalkRow* next) {
    if (next && next->mac_hex) {
      if (next->prev_hex == *suspect.mac_hex)
        return problem_at(suspect, "modified",
                          "was modified after it was written: its seal no longer matches it");
      if (next->prev_hex == previous_hex_)
        return problem_at(suspect, "inserted",
                          "is not part of the chain: the entry after it was written after entry " +
                              std::to_string(last_seq_));
      return problem_at(suspect, "modified",
                        "was modified after it was written: its seal no longer matches it");
    }
    // The newest entry: the recorded head tells an edited one (it still is the head) from one
    // added behind the service's back.
    if (*suspect.mac_hex == head_.mac_hex)
      return problem_at(suspect, "modified",
                        "was modified after it was written: its seal no longer matches it");
    return problem_at(suspect, "inserted",
                      "is not part of the chain: its seal matches neither its content nor the "
                      "chain's head");
  }

  std::optional<long long> seq_of_mac(const std::string& mac_hex) {
    const auto rows = tx_.exec_params(
        "SELECT seq FROM audit_log WHERE mac = decode($1, 'hex') AND seq IS NOT NULL LIMIT 1",
        mac_hex);
    if (rows.empty()) return std::nullopt;
    return rows[0][0].as<long long>();
  }

  pqxx::work& tx_;
  const crypto::Key& key_;
  ChainHead head_;
  long long legacy_through_;
  bool legacy_sealed_;
  std::string previous_hex_;
  long long expected_seq_ = 1;
  long long last_seq_ = 0;
  long long entries_ = 0;
  long long unsealed_legacy_ = 0;
  long long anchor_seq_ = -1;
  std::optional<std::string> anchored_mac_;
  std::optional<WalkRow> suspect_;
  std::optional<ChainProblem> problem_;
};

}  // namespace

ChainReport verify_audit_chain(Database& db, const audit::AnchorFile* anchor_file) {
  const auto& key = db.options().audit_key;
  if (!key) throw Error(ErrorKind::internal, "this process has no audit key to verify with");
  ChainReport report;
  if (anchor_file) report.anchor = anchor_file->newest();
  return transact(
      db,
      [&](pqxx::work& tx) {
        ChainReport out = report;
        const auto chain = tx.exec1(
            "SELECT head_seq, coalesce(encode(head_mac, 'hex'), ''), rfc3339(now()), "
            "encode(key_check, 'hex'), legacy_through, legacy_sealed FROM audit_chain");
        out.head = ChainHead{chain[0].as<long long>(), chain[1].as<std::string>(),
                             chain[2].as<std::string>()};
        if (!chain[3].is_null() &&
            chain[3].as<std::string>() != crypto::to_hex(audit::key_check(*key))) {
          out.problem = ChainProblem{"wrong_key", std::nullopt, std::nullopt,
                                     "the audit trail is sealed under another audit key than "
                                     "this service's: it cannot be verified with this key"};
          return out;
        }
        Walk walk(tx, *key, out.head, chain[4].as<long long>(), chain[5].as<bool>());
        if (out.anchor) walk.watch_anchor(out.anchor->seq);
        tx.exec0(util::concat("DECLARE audit_walk NO SCROLL CURSOR FOR SELECT id, seq, ",
                              sealed_columns,
                              ", encode(prev_mac, 'hex'), encode(mac, 'hex') FROM audit_log "
                              "ORDER BY seq NULLS LAST, id"));
        bool going = true;
        while (going) {
          const auto rows = tx.exec("FETCH 1000 FROM audit_walk");
          if (rows.empty()) break;
          for (const auto& r : rows) {
            going = walk.take(walk_row(r));
            walk.note_anchor_position();
            if (!going) break;
          }
        }
        tx.exec0("CLOSE audit_walk");
        walk.finish(out.anchor);
        out.entries = walk.entries();
        out.unsealed_legacy = walk.unsealed_legacy();
        out.problem = walk.problem();
        return out;
      },
      "REPEATABLE READ");
}

}  // namespace ironhold::db
