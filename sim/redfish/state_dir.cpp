#include "sim/redfish/state_dir.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "inventory/error.hpp"
#include "inventory/util/log.hpp"

namespace ironhold::sim::redfish {

namespace fs = std::filesystem;
using nlohmann::json;
using tcp = boost::asio::ip::tcp;

namespace {

std::optional<std::string> read_text(const fs::path& file) {
  std::error_code ec;
  if (!fs::exists(file, ec)) return std::nullopt;
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in || in.bad())
    throw invalid("cannot read the simulator's saved file " + file.string(), "state-dir");
  return text.str();
}

json read_json(const fs::path& file) {
  const auto text = read_text(file);
  if (!text) return nullptr;
  json doc = json::parse(*text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object())
    throw invalid("the simulator's saved file " + file.string() + " is not a JSON object",
                  "state-dir");
  return doc;
}

}  // namespace

void write_atomically(const fs::path& file, const std::string& text, bool private_file) {
  const fs::path temp = file.string() + ".tmp";
  const int fd =
      ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, private_file ? 0600 : 0644);
  const auto fail = [&](const char* what) {
    const std::string why = std::strerror(errno);
    if (fd >= 0) ::close(fd);
    throw Error(ErrorKind::internal,
                std::string("cannot ") + what + " " + temp.string() + ": " + why);
  };
  if (fd < 0) fail("create");
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail("write");
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0) fail("fsync");
  ::close(fd);
  if (std::rename(temp.c_str(), file.c_str()) != 0)
    throw Error(ErrorKind::internal,
                "cannot rename " + temp.string() + ": " + std::strerror(errno));
}

StateDir::StateDir(fs::path dir) : dir_(std::move(dir)) {
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec)
    throw invalid("cannot create the state directory " + dir_.string() + ": " + ec.message(),
                  "state-dir");
}

fs::path StateDir::bmc_dir(unsigned index) const {
  char name[16];
  std::snprintf(name, sizeof name, "bmc-%04u", index);
  return dir_ / name;
}

SavedBmc StateDir::load(unsigned index) const {
  SavedBmc saved;
  const fs::path dir = bmc_dir(index);
  const json endpoint = read_json(dir / "endpoint.json");
  if (!endpoint.is_null()) {
    boost::system::error_code ec;
    const auto address = boost::asio::ip::make_address(endpoint.value("address", ""), ec);
    const json port = endpoint.value("port", json());
    if (ec || !port.is_number_unsigned() || port.get<unsigned>() == 0 ||
        port.get<unsigned>() > 65535)
      throw invalid("the saved endpoint " + (dir / "endpoint.json").string() +
                        " has no valid address and port",
                    "state-dir");
    saved.endpoint = tcp::endpoint(address, static_cast<unsigned short>(port.get<unsigned>()));
  }
  const auto cert = read_text(dir / "cert.pem");
  const auto key = read_text(dir / "key.pem");
  if (cert && key) saved.certificate = SelfSignedCert{*cert, *key};
  saved.state = read_json(dir / "state.json");
  return saved;
}

void StateDir::save_endpoint(unsigned index, const tcp::endpoint& endpoint) const {
  fs::create_directories(bmc_dir(index));
  const json doc = {{"address", endpoint.address().to_string()}, {"port", endpoint.port()}};
  write_atomically(bmc_dir(index) / "endpoint.json", doc.dump(2) + "\n");
}

void StateDir::save_certificate(unsigned index, const SelfSignedCert& cert) const {
  fs::create_directories(bmc_dir(index));
  // The key first: a crash between the two leaves a new key with the old certificate, which
  // make_context refuses loudly rather than serving a mismatched pair.
  write_atomically(bmc_dir(index) / "key.pem", cert.key_pem, /*private_file=*/true);
  write_atomically(bmc_dir(index) / "cert.pem", cert.cert_pem);
}

void StateDir::save_state(unsigned index, const json& state) const noexcept {
  try {
    std::error_code ec;
    fs::create_directories(bmc_dir(index), ec);
    // Private: event subscriptions keep their HttpHeaders (often an Authorization) here.
    write_atomically(bmc_dir(index) / "state.json", state.dump(2) + "\n", /*private_file=*/true);
  } catch (const std::exception& e) {
    log::warn("simulated BMC: cannot save its state", {{"index", index}, {"error", e.what()}});
  }
}

}  // namespace ironhold::sim::redfish
