#pragma once
// --state-dir: what a simulated BMC keeps across restarts, one folder per BMC —
// DIR/bmc-0000/endpoint.json (the bound address and port, so port 0 gives the same port next time),
// cert.pem + key.pem (the same leaf, so pinned clients still trust it), state.json (BmcState's
// saved_state; private, as key.pem: it holds event subscriptions' HttpHeaders). Every file is
// written to a temporary name and renamed, so a kill -9 leaves the old file or the new one, never
// half of one.
#include <boost/asio/ip/tcp.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>

#include "sim/tls_cert.hpp"

namespace ironhold::sim::redfish {

// Writes `text` to `file` atomically (temp file in the same folder, fsync, rename). Throws
// ironhold::Error (internal) naming the file when the disk refuses.
void write_atomically(const std::filesystem::path& file, const std::string& text,
                      bool private_file = false);

struct SavedBmc {
  std::optional<boost::asio::ip::tcp::endpoint> endpoint;
  std::optional<SelfSignedCert> certificate;
  nlohmann::json state;  // null when none saved
};

class StateDir {
 public:
  // Creates the folder if needed; ironhold::Error (invalid) when it cannot.
  explicit StateDir(std::filesystem::path dir);

  // What was saved for BMC `index` (all empty the first time). A file that is there but unreadable
  // or malformed is an ironhold::Error (invalid) naming it.
  SavedBmc load(unsigned index) const;
  void save_endpoint(unsigned index, const boost::asio::ip::tcp::endpoint& endpoint) const;
  void save_certificate(unsigned index, const SelfSignedCert& cert) const;
  // Never throws (it runs inside a request): a failure is logged.
  void save_state(unsigned index, const nlohmann::json& state) const noexcept;

  std::filesystem::path bmc_dir(unsigned index) const;
  const std::filesystem::path& dir() const { return dir_; }

 private:
  std::filesystem::path dir_;
};

}  // namespace ironhold::sim::redfish
