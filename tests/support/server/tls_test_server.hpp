#pragma once
// A real HTTPS peer for tests: OpenSSL over a TCP socket on a loopback address, with a certificate
// made at start, answering each request with what a handler returns. It stands in for a BMC's
// Redfish service (self-signed, like most BMCs), so the code under test does a real TLS handshake
// and a real HTTP/1.1 exchange. One thread, one connection at a time: enough for tests.
#include <atomic>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace ironhold::test {

struct SelfSignedCertificate {
  std::string certificate_pem;
  std::string private_key_pem;
};

// An EC P-256 key and a self-signed certificate for `common_name` (valid from an hour ago for a
// day), with `ip_addresses` as IP subject alternative names. Throws std::runtime_error.
SelfSignedCertificate make_self_signed_certificate(
    const std::string& common_name, const std::vector<std::string>& ip_addresses = {});

struct ReceivedRequest {
  std::string method;
  std::string target;
  std::map<std::string, std::string> headers;  // lower-case names
};

struct CannedResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
};

class TlsTestServer {
 public:
  using Handler = std::function<CannedResponse(const ReceivedRequest&)>;

  // Listens on address:port (an IPv4 loopback address; port 0 picks a free one).
  TlsTestServer(std::string address, Handler handler, unsigned short port = 0);
  // Answers every request with `response`.
  TlsTestServer(std::string address, CannedResponse response, unsigned short port = 0);
  ~TlsTestServer();
  TlsTestServer(const TlsTestServer&) = delete;
  TlsTestServer& operator=(const TlsTestServer&) = delete;

  const std::string& address() const { return address_; }
  unsigned short port() const { return port_; }
  const SelfSignedCertificate& certificate() const { return certificate_; }
  // The requests answered so far, in order.
  std::vector<ReceivedRequest> requests() const;
  // TLS connections accepted so far.
  int connections() const { return connections_; }
  // Answers further requests on a connection (one at a time: the server has one thread) instead
  // of closing it after the first; for tests of connection reuse.
  void keep_connections_alive() { keep_alive_ = true; }

 private:
  void run();
  void serve(int client);

  std::string address_;
  Handler handler_;
  SelfSignedCertificate certificate_;
  void* ssl_ctx_ = nullptr;  // SSL_CTX*, kept out of this header
  int listener_ = -1;
  unsigned short port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> connections_{0};
  std::atomic<bool> keep_alive_{false};
  mutable std::mutex mutex_;
  std::vector<ReceivedRequest> requests_;
  std::thread thread_;
};

}  // namespace ironhold::test
