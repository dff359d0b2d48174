#pragma once
// The captured ipmitool/ipmi_sim session of ../shared/ipmi-sim/ipmi-session-decode.txt, section 3:
// each packet's raw bytes, the decrypted payloads and the keys the decode derived.
#include <catch2/catch.hpp>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "bmc/ipmi/bytes.hpp"

namespace ironhold::bmc::ipmi::testing {

inline const std::filesystem::path decode_file =
    std::filesystem::path(IRONHOLD_SHARED_DIR) / "ipmi-sim" / "ipmi-session-decode.txt";

inline Bytes hex_bytes(const std::string& text) {
  Bytes out;
  std::istringstream in(text);
  std::string word;
  while (in >> word) {
    if (word.size() != 2 || !std::isxdigit(static_cast<unsigned char>(word[0])) ||
        !std::isxdigit(static_cast<unsigned char>(word[1])))
      break;
    out.push_back(static_cast<std::uint8_t>(std::stoul(word, nullptr, 16)));
  }
  return out;
}

// Section 3 of the decode (the ipmitool session): per packet number, its raw bytes and the
// decoder's notes; and the derived keys.
struct Capture {
  std::map<int, Bytes> raw;
  std::map<int, Bytes> decrypted;       // plaintext with its confidentiality pad
  std::map<int, std::size_t> conf_pad;  // that pad's length
  std::map<std::string, Bytes> keys;    // "SIK", "K1", "K2"
};

inline Capture read_capture() {
  Capture c;
  std::ifstream in(decode_file);
  std::string line;
  bool in_section = false;
  int packet = 0;
  while (std::getline(in, line)) {
    if (line.rfind("3. Field decode", 0) == 0) in_section = true;
    if (line.rfind("4. Second capture", 0) == 0) break;
    if (!in_section) continue;
    if (line.size() > 1 && line[0] == '#') packet = std::stoi(line.substr(1));
    const auto note = line.find_first_not_of(' ');
    if (note == std::string::npos) continue;
    const std::string body = line.substr(note);
    if (body.rfind("raw: ", 0) == 0) c.raw[packet] = hex_bytes(body.substr(5));
    if (const auto at = body.find("decrypted "); at != std::string::npos) {
      c.decrypted[packet] = hex_bytes(body.substr(at + 10));
      const auto pad = body.find("(confidentiality pad ");
      c.conf_pad[packet] = std::stoul(body.substr(pad + 21));
    }
    for (const std::string key : {"SIK", "K1", "K2"})
      if (body.rfind(key + " ", 0) == 0) c.keys[key] = hex_bytes(body.substr(body.rfind('=') + 1));
  }
  return c;
}

// Packet n's plaintext as the decode gives it, without its confidentiality pad.
inline Bytes plaintext(const Capture& c, int n) {
  const Bytes& with_pad = c.decrypted.at(n);
  return Bytes(with_pad.begin(),
               with_pad.end() - static_cast<std::ptrdiff_t>(c.conf_pad.at(n) + 1));
}

}  // namespace ironhold::bmc::ipmi::testing
