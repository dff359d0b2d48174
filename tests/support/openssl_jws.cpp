#include "tests/support/openssl_jws.hpp"

#include <atomic>
#include <charconv>
#include <chrono>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "inventory/crypto/primitives.hpp"
#include "inventory/util/process.hpp"

namespace ironhold::test {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const fs::path openssl_tool = "/usr/bin/openssl";

std::string slurp_binary(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string base64url_of(std::string_view text) {
  return crypto::base64url(
      std::span(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()));
}

std::vector<std::uint8_t> bytes_from_hex(const std::string& hex, const std::string& what) {
  std::vector<std::uint8_t> bytes;
  if (!crypto::from_hex(hex, bytes) || bytes.empty())
    throw std::runtime_error("openssl printed no usable hex for " + what);
  return bytes;
}

// The hex bytes that `openssl pkey -text` prints in the indented lines under `label`.
std::vector<std::uint8_t> hex_block(const std::string& text, const std::string& label) {
  std::istringstream in(text);
  std::string line, hex;
  bool inside = false;
  while (std::getline(in, line)) {
    if (inside) {
      if (line.empty() || line[0] != ' ') break;
      for (char c : line)
        if (std::isxdigit(static_cast<unsigned char>(c))) hex += c;
    } else if (line.starts_with(label)) {
      inside = true;
    }
  }
  return bytes_from_hex(hex, label);
}

// R || S from the DER signature, as openssl's asn1parse reads it out.
std::vector<std::uint8_t> raw_ecdsa(const fs::path& der, std::size_t size) {
  const auto listing = run_openssl({"asn1parse", "-inform", "DER", "-in", der.string()});
  std::vector<std::uint8_t> raw;
  std::istringstream in(listing);
  for (std::string line; std::getline(in, line);) {
    const auto at = line.find("INTEGER");
    if (at == std::string::npos) continue;
    std::string hex = line.substr(line.find(':', at) + 1);
    while (!hex.empty() && std::isspace(static_cast<unsigned char>(hex.back()))) hex.pop_back();
    if (hex.size() % 2) hex.insert(hex.begin(), '0');
    auto n = bytes_from_hex(hex, "an ECDSA signature's INTEGER");
    while (n.size() > size && n[0] == 0) n.erase(n.begin());
    if (n.size() > size) throw std::runtime_error("an ECDSA signature INTEGER is too long");
    raw.insert(raw.end(), size - n.size(), 0);
    raw.insert(raw.end(), n.begin(), n.end());
  }
  if (raw.size() != 2 * size) throw std::runtime_error("openssl's ECDSA signature has no R and S");
  return raw;
}

}  // namespace

std::string run_openssl(const std::vector<std::string>& args) {
  std::string command = openssl_tool.string();
  for (const auto& a : args) command += " " + a;
  if (!fs::exists(openssl_tool))
    throw std::runtime_error(
        "the openssl command-line tool (Debian package openssl) is needed at " +
        openssl_tool.string());
  util::ProcessOptions options;
  options.timeout = std::chrono::seconds(120);
  const auto run = util::run_process(openssl_tool, args, options);
  if (!run.ok()) throw std::runtime_error(command + ": " + run.status_text() + "\n" + run.err);
  return run.out;
}

OpensslSigner openssl_ec_signer(const fs::path& dir, const std::string& kid,
                                const std::string& curve, const std::string& alg,
                                std::size_t coordinate_size) {
  OpensslSigner s{dir / (kid + ".pem"), alg, {}, coordinate_size};
  run_openssl({"genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:" + curve, "-out",
               s.private_key.string()});
  const auto text = run_openssl({"pkey", "-in", s.private_key.string(), "-text_pub", "-noout"});
  const auto point = hex_block(text, "pub:");  // 0x04 || x || y
  if (point.size() != 1 + 2 * coordinate_size || point[0] != 0x04)
    throw std::runtime_error("openssl printed an EC point of an unexpected form for " + curve);
  const auto middle = point.begin() + 1 + static_cast<std::ptrdiff_t>(coordinate_size);
  s.jwk = {{"kty", "EC"},
           {"kid", kid},
           {"crv", curve},
           {"x", crypto::base64url(std::vector(point.begin() + 1, middle))},
           {"y", crypto::base64url(std::vector(middle, point.end()))}};
  return s;
}

OpensslSigner openssl_rsa_signer(const fs::path& dir, const std::string& kid,
                                 const std::string& alg) {
  OpensslSigner s{dir / (kid + ".pem"), alg, {}, 0};
  run_openssl({"genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out",
               s.private_key.string()});
  const auto public_pem = (dir / (kid + ".pub.pem")).string();
  run_openssl({"pkey", "-in", s.private_key.string(), "-pubout", "-out", public_pem});
  const auto text = run_openssl({"pkey", "-pubin", "-in", public_pem, "-text", "-noout"});
  auto modulus = hex_block(text, "Modulus:");
  while (modulus.size() > 1 && modulus[0] == 0) modulus.erase(modulus.begin());
  const auto at = text.find("Exponent: ");
  std::uint64_t e = 0;
  if (at != std::string::npos) std::from_chars(text.data() + at + 10, text.data() + text.size(), e);
  if (e < 3) throw std::runtime_error("openssl printed no RSA public exponent");
  std::vector<std::uint8_t> exponent;
  for (; e; e >>= 8) exponent.insert(exponent.begin(), static_cast<std::uint8_t>(e & 0xff));
  s.jwk = {{"kty", "RSA"},
           {"kid", kid},
           {"n", crypto::base64url(modulus)},
           {"e", crypto::base64url(exponent)}};
  return s;
}

std::string openssl_sign(const OpensslSigner& signer, const json& header,
                         const std::string& payload, bool der_signature) {
  const std::string input = base64url_of(header.dump()) + "." + base64url_of(payload);
  static std::atomic<int> serial = 0;
  const auto n = std::to_string(++serial);
  const auto dir = signer.private_key.parent_path();
  const auto input_file = dir / ("input-" + n);
  const auto signature_file = dir / ("signature-" + n);
  std::ofstream(input_file, std::ios::binary) << input;
  std::vector<std::string> args{"dgst", "-sha" + signer.alg.substr(2), "-sign",
                                signer.private_key.string()};
  if (signer.alg.starts_with("PS"))
    for (const char* opt : {"rsa_padding_mode:pss", "rsa_pss_saltlen:digest"})
      args.insert(args.end(), {"-sigopt", opt});
  args.insert(args.end(), {"-out", signature_file.string(), input_file.string()});
  run_openssl(args);
  const std::string der = slurp_binary(signature_file);
  if (signer.alg.starts_with("ES") && !der_signature)
    return input + "." + crypto::base64url(raw_ecdsa(signature_file, signer.coordinate_size));
  return input + "." + base64url_of(der);
}

}  // namespace ironhold::test
