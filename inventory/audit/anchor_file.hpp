#pragma once
// The audit chain's head, anchored outside the database: a line "<seq> <mac hex> <time>" appended
// to a file of the data directory whenever the head has moved. An attacker who deletes the newest
// entries and rewinds the head in the database cannot rewind this file too, so the verifier sees
// that the chain stops short of a head it once had.
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>

namespace ironhold::audit {

struct Anchor {
  long long seq = 0;
  std::string mac_hex;
  std::string at;  // RFC 3339, when the head was read
};

class AnchorFile {
 public:
  explicit AnchorFile(std::filesystem::path path);

  // Appends the head unless it is the one appended last by this process. Throws Error when the
  // file cannot be written (the caller logs it and tries again at the next head).
  void append(const Anchor& head);
  // The anchor with the highest seq among the file's newest lines; nothing when there is none.
  std::optional<Anchor> newest() const;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  mutable std::mutex mutex_;
  long long last_appended_ = -1;
};

}  // namespace ironhold::audit
