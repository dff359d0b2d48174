#include "bmc/probe/bmc_prober.hpp"

#include <curl/curl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>

#include "bmc/ipmi/lan_message.hpp"
#include "bmc/ipmi/session_packet.hpp"

namespace ironhold::bmc {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// A service root is a few KiB; anything past this is not one and is not read.
constexpr std::size_t kMaxRedfishBody = 64 * 1024;
// The largest IPMI LAN reply worth reading: a 255-byte message behind the headers fits.
constexpr std::size_t kMaxDatagram = 512;

struct Outcome {
  bool ok = false;
  std::string text;
};

std::string bracketed(const std::string& host) {
  return host.find(':') != std::string::npos ? "[" + host + "]" : host;
}

std::string millis_text(milliseconds ms) {
  return std::to_string(ms.count()) + " ms";
}

// ---------------------------------------------------------------------------------------------
// Redfish over HTTPS

struct CappedBody {
  std::string text;
  bool overflow = false;
};

std::size_t append_capped(char* data, std::size_t size, std::size_t count, void* user) {
  auto* body = static_cast<CappedBody*>(user);
  const std::size_t bytes = size * count;
  if (body->text.size() + bytes > kMaxRedfishBody) {
    body->overflow = true;
    return 0;  // anything but `bytes` makes libcurl abort the transfer with CURLE_WRITE_ERROR
  }
  body->text.append(data, bytes);
  return bytes;
}

std::string connect_failure(long os_errno) {
  switch (os_errno) {
    case ECONNREFUSED:
      return "connection refused";
    case EHOSTUNREACH:
      return "host unreachable";
    case ENETUNREACH:
      return "network unreachable";
    default:
      return "could not connect";
  }
}

std::string curl_failure(CURLcode code, CURL* curl, const char* detail, milliseconds timeout) {
  long os_errno = 0;
  curl_easy_getinfo(curl, CURLINFO_OS_ERRNO, &os_errno);
  switch (code) {
    case CURLE_COULDNT_CONNECT:
      return connect_failure(os_errno);
    case CURLE_OPERATION_TIMEDOUT:
      return "no answer within " + millis_text(timeout);
    case CURLE_COULDNT_RESOLVE_HOST:
      return "the host name does not resolve";
    case CURLE_WRITE_ERROR:
    case CURLE_FILESIZE_EXCEEDED:
      return "the answer is larger than 64 KiB: not a service root";
    case CURLE_SSL_CONNECT_ERROR:
      return std::string("TLS handshake failed") + (*detail ? std::string(": ") + detail : "");
    case CURLE_GOT_NOTHING:
      return "the connection closed without an answer";
    default:
      return std::string(curl_easy_strerror(code)) + (*detail ? std::string(": ") + detail : "");
  }
}

Outcome probe_redfish(const std::string& host, std::uint16_t port, milliseconds timeout) {
  std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> curl(curl_easy_init(), &curl_easy_cleanup);
  if (!curl) return {false, "could not start an HTTP client"};
  CURL* c = curl.get();
  const std::string url =
      "https://" + bracketed(host) + ":" + std::to_string(port) + "/redfish/v1/";
  CappedBody body;
  char error[CURL_ERROR_SIZE] = "";
  std::unique_ptr<curl_slist, decltype(&curl_slist_free_all)> headers(
      curl_slist_append(nullptr, "Accept: application/json"), &curl_slist_free_all);
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "https");
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers.get());
  curl_easy_setopt(c, CURLOPT_USERAGENT, "ironhold-probe");
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, error);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);  // several pool threads probe at once
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(timeout.count()));
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, static_cast<long>(timeout.count()));
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, &append_capped);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &body);
  curl_easy_setopt(c, CURLOPT_MAXFILESIZE_LARGE, static_cast<curl_off_t>(kMaxRedfishBody));
  // The service root is unauthenticated: no credentials of any kind go out, not even from a
  // ~/.netrc, and a redirect is not followed anywhere else.
  curl_easy_setopt(c, CURLOPT_NETRC, static_cast<long>(CURL_NETRC_IGNORED));
  curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
  // BMCs sit on a management network: an https_proxy from the environment must not see them.
  curl_easy_setopt(c, CURLOPT_PROXY, "");
  // Verification is off for this request only. BMCs ship self-signed certificates, and the probe
  // only asks "is a Redfish service here?", sending nothing secret. Trust is decided later by the
  // Redfish driver, which pins the certificate on first use (or checks options.ca_bundle).
  curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 0L);
  curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L);

  const CURLcode code = curl_easy_perform(c);
  if (body.overflow) return {false, "the answer is larger than 64 KiB: not a service root"};
  if (code != CURLE_OK) return {false, curl_failure(code, c, error, timeout)};
  long status = 0;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
  if (status != 200)
    return {false, "HTTP " + std::to_string(status) + ": not a Redfish service root"};
  if (!is_redfish_service_root(body.text))
    return {false, "HTTP 200, but the body is not a Redfish service root"};
  return {true, "Redfish service root"};
}

// ---------------------------------------------------------------------------------------------
// IPMI over UDP (RMCP)
//
// Request, 23 bytes (IPMI v2.0 §13: RMCP header, IPMI v1.5 session header, LAN message format;
// §22.13 for the command):
//   RMCP header        06 00 FF 07   version 1.0, reserved, sequence FFh (no RMCP ACK), class IPMI
//   session header     00            authentication type none: a session-less message
//                      00 00 00 00   session sequence number
//                      00 00 00 00   session id
//                      09            message length
//   message            20            rsAddr: the BMC
//                      18            netFn App (06h) << 2 | rsLUN 0
//                      C8            checksum 1: two's complement of the two bytes before it
//                      81            rqAddr: remote console software id
//                      00            rqSeq 0 << 2 | rqLUN 0
//                      38            Get Channel Authentication Capabilities
//                      8E            bit 7: get IPMI v2.0 extended data; channel Eh = this one
//                      04            requested maximum privilege: administrator
//                      xx            checksum 2 over rqAddr .. the last data byte
// The response swaps the addresses (81 1C cs 20 00 38), then completion code and 8 data bytes:
// channel, authentication type support, authentication status, extended capabilities, OEM id (3),
// OEM auxiliary data — 16 message bytes in all.

constexpr std::uint8_t kRsAddrBmc = ipmi::kBmcAddress;
constexpr std::uint8_t kRqAddrSoftware = ipmi::kConsoleAddress;
constexpr std::uint8_t kNetFnApp = 0x06;
constexpr std::uint8_t kCmdGetChannelAuthCaps = 0x38;
constexpr std::size_t kRmcpHeader = 4;
constexpr std::size_t kSessionHeader = 10;  // authentication type none: no 16-byte auth code
constexpr std::size_t kAuthCapsData = 8;

std::string hex_byte(unsigned value) {
  char text[8];
  std::snprintf(text, sizeof text, "0x%02X", value & 0xFFu);
  return text;
}

class UdpSocket {
 public:
  explicit UdpSocket(int fd) : fd_(fd) {}
  ~UdpSocket() {
    if (fd_ >= 0) ::close(fd_);
  }
  UdpSocket(const UdpSocket&) = delete;
  UdpSocket& operator=(const UdpSocket&) = delete;
  int fd() const { return fd_; }

 private:
  int fd_;
};

// A connected UDP socket to host:port: the kernel then drops datagrams from anyone else and
// reports an ICMP port unreachable as ECONNREFUSED.
int connect_udp(const std::string& host, std::uint16_t port, std::string& why) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_DGRAM;
  hints.ai_flags = AI_NUMERICSERV;
  addrinfo* found = nullptr;
  if (::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found) != 0 || !found) {
    why = "the host name does not resolve";
    return -1;
  }
  std::unique_ptr<addrinfo, decltype(&::freeaddrinfo)> list(found, &::freeaddrinfo);
  const int fd = ::socket(found->ai_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    why = "could not open a UDP socket";
    return -1;
  }
  if (::connect(fd, found->ai_addr, found->ai_addrlen) != 0) {
    why = connect_failure(errno);
    ::close(fd);
    return -1;
  }
  return fd;
}

Outcome probe_ipmi(const std::string& host, std::uint16_t port, milliseconds timeout) {
  std::string why;
  UdpSocket socket(connect_udp(host, port, why));
  if (socket.fd() < 0) return {false, why};
  const auto request = ipmi_channel_auth_request();
  // Two tries share the budget: UDP may lose the first datagram, and a BMC answers this command
  // in milliseconds, so half of the timeout is plenty for each.
  constexpr int kTries = 2;
  const milliseconds per_try = std::max(milliseconds(1), timeout / kTries);
  std::array<std::uint8_t, kMaxDatagram> buffer{};
  for (int attempt = 0; attempt < kTries; ++attempt) {
    if (::send(socket.fd(), request.data(), request.size(), 0) < 0) {
      if (errno == ECONNREFUSED) return {false, "port unreachable (ICMP)"};
      return {false, "could not send"};
    }
    const auto deadline = Clock::now() + per_try;
    for (;;) {
      const auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now());
      if (left.count() <= 0) break;
      pollfd p{socket.fd(), POLLIN, 0};
      const int ready = ::poll(&p, 1, static_cast<int>(left.count()));
      if (ready < 0 && errno == EINTR) continue;
      if (ready <= 0) break;
      const ssize_t got = ::recv(socket.fd(), buffer.data(), buffer.size(), MSG_TRUNC);
      if (got < 0) {
        if (errno == EINTR || errno == EAGAIN) continue;
        if (errno == ECONNREFUSED) return {false, "port unreachable (ICMP)"};
        return {false, "could not receive"};
      }
      if (static_cast<std::size_t>(got) > buffer.size())
        return {false, "answered, but not as an IPMI BMC: a datagram of " + std::to_string(got) +
                           " bytes"};
      // The socket is connected, so this came from the BMC's address: its verdict is final.
      const auto reply = check_ipmi_channel_auth_reply(
          std::span<const std::uint8_t>(buffer.data(), static_cast<std::size_t>(got)));
      if (reply.ok) return {true, reply.detail};
      return {false, "answered, but not as an IPMI BMC: " + reply.detail};
    }
  }
  return {false,
          "no answer within " + millis_text(timeout) + " (" + std::to_string(kTries) + " tries)"};
}

}  // namespace

BmcProber::BmcProber(ProbeOptions options) : options_(options) {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

ProbeResult BmcProber::probe(const Endpoint& bare_host) { return probe_at(bare_host, {}); }

ProbeResult BmcProber::probe_at(const Endpoint& bare_host, const ProbePorts& at) {
  ProbeResult result;
  const std::string& host = bare_host.host;
  const std::uint16_t https_port = at.https_port.value_or(options_.https_port);
  const std::uint16_t ipmi_port = at.ipmi_port.value_or(options_.ipmi_port);
  const milliseconds timeout = at.timeout.value_or(options_.timeout);

  const auto redfish = probe_redfish(host, https_port, timeout);
  result.attempts.push_back(
      {"redfish https://" + bracketed(host) + ":" + std::to_string(https_port), redfish.text});
  if (redfish.ok) {
    result.driver = "redfish";
    result.endpoint = Endpoint{"https", host, std::nullopt};
    if (https_port != 443) result.endpoint->port = https_port;
    return result;
  }

  const auto ipmi = probe_ipmi(host, ipmi_port, timeout);
  result.attempts.push_back({"ipmi " + bracketed(host) + ":" + std::to_string(ipmi_port), ipmi.text});
  if (ipmi.ok) {
    result.driver = "ipmi";
    result.endpoint = Endpoint{"ipmi", host, std::nullopt};
    if (ipmi_port != 623) result.endpoint->port = ipmi_port;
  }
  return result;
}

bool is_redfish_service_root(std::string_view body) {
  if (body.size() > kMaxRedfishBody) return false;
  // The SAX parser nlohmann uses is iterative, so deep nesting cannot exhaust the stack.
  const auto root = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (!root.is_object()) return false;
  if (auto v = root.find("RedfishVersion"); v != root.end() && v->is_string()) return true;
  if (auto id = root.find("@odata.id"); id != root.end() && id->is_string())
    return *id == "/redfish/v1/" || *id == "/redfish/v1";
  return false;
}

std::vector<std::uint8_t> ipmi_channel_auth_request() {
  ipmi::LanMessage request;
  request.netfn = kNetFnApp;
  request.command = kCmdGetChannelAuthCaps;
  request.data = {0x8E, 0x04};
  return ipmi::seal_v15_packet(ipmi::encode_lan_message(request));
}

IpmiProbeReply check_ipmi_channel_auth_reply(std::span<const std::uint8_t> d) {
  auto no = [](std::string why) { return IpmiProbeReply{false, std::move(why)}; };
  if (d.size() < kRmcpHeader + kSessionHeader)
    return no("a datagram of " + std::to_string(d.size()) + " bytes is shorter than the headers");
  if (d[0] != 0x06) return no("RMCP version " + hex_byte(d[0]) + " instead of 0x06");
  if (d[3] != 0x07) return no("RMCP message class " + hex_byte(d[3]) + " instead of IPMI (0x07)");
  if (d[4] == 0x06) return no("an RMCP+ session header in answer to a session-less request");
  if (d[4] != 0x00)
    return no("authentication type " + hex_byte(d[4]) + " in answer to a session-less request");
  for (std::size_t i = 9; i < 13; ++i)
    if (d[i] != 0) return no("a session id in answer to a session-less request");
  const std::size_t length = d[13];
  const auto msg = d.subspan(kRmcpHeader + kSessionHeader);
  // A trailing legacy pad byte (§13) may follow the message, so only a short datagram is wrong.
  if (msg.size() < length)
    return no("message length " + std::to_string(length) + " but " + std::to_string(msg.size()) +
              " bytes follow");
  if (length < 8) return no("a message of " + std::to_string(length) + " bytes is too short");
  const auto decoded = ipmi::decode_lan_message(msg.first(length));
  if (const auto* error = std::get_if<std::string>(&decoded)) return no(*error);
  const ipmi::LanMessage& m = std::get<ipmi::LanMessage>(decoded);
  if (m.target_address != kRqAddrSoftware || m.source_address != kRsAddrBmc)
    return no("unexpected addresses");
  if (m.netfn != kNetFnApp + 1 || m.target_lun != 0)
    return no("netFn/LUN " + hex_byte(msg[1]) + " instead of 0x1C");
  if (m.sequence != 0 || m.source_lun != 0)
    return no("sequence " + hex_byte(msg[4]) + " does not match the request");
  if (m.command != kCmdGetChannelAuthCaps)
    return no("command " + hex_byte(m.command) + " instead of 0x38");
  if (m.data.empty()) return no("no completion code");
  if (m.data[0] != 0x00) return no("completion code " + hex_byte(m.data[0]));
  const auto data = std::span(m.data).subspan(1);  // after the completion code
  if (data.size() < kAuthCapsData)
    return no(std::to_string(data.size()) + " data bytes instead of " +
              std::to_string(kAuthCapsData));
  // Extended capabilities (data byte 4) bit 1: the channel supports IPMI v2.0 connections.
  const bool v2 = (data[1] & 0x80) != 0 && (data[3] & 0x02) != 0;
  return {true, std::string("IPMI BMC (channel ") + std::to_string(data[0] & 0x0F) +
                    (v2 ? ", IPMI v2.0)" : ", IPMI v1.5 only)")};
}

}  // namespace ironhold::bmc
