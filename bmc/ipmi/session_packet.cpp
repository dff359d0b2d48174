#include "bmc/ipmi/session_packet.hpp"

#include "bmc/ipmi/crypto.hpp"

namespace ironhold::bmc::ipmi {

namespace {

constexpr std::uint8_t kRmcpHeader[] = {0x06, 0x00, 0xFF, 0x07};
constexpr std::uint8_t kAuthTypeRmcpPlus = 0x06;
constexpr std::uint8_t kNextHeader = 0x07;
constexpr std::size_t kIvLength = 16;
constexpr std::size_t kBlock = 16;

Digest integrity_digest(const CipherSuite& suite) {
  return suite.integrity == IntegrityAlgorithm::hmac_sha256_128 ? Digest::sha256 : Digest::sha1;
}

bool signs(const SessionSecurity* security) {
  return security && security->suite.integrity != IntegrityAlgorithm::none;
}

bool encrypts(const SessionSecurity* security) {
  return security && security->suite.confidentiality == ConfidentialityAlgorithm::aes_cbc_128;
}

Bytes auth_code(const SessionSecurity& security, ByteView signed_span) {
  Bytes code = hmac(integrity_digest(security.suite), security.keys.k1, {signed_span});
  code.resize(security.suite.integrity_length());
  return code;
}

}  // namespace

Bytes seal_packet(PayloadType type, std::uint32_t session_id, std::uint32_t sequence,
                  ByteView payload, const SessionSecurity* security, ByteView iv) {
  // Only IPMI messages and SOL travel inside a session; the RAKP exchange is always in the clear.
  const bool in_session = type == PayloadType::ipmi_message || type == PayloadType::sol;
  const bool encrypt = in_session && encrypts(security);
  const bool sign = in_session && signs(security);
  Bytes body;
  if (encrypt) {
    Bytes plain(payload.begin(), payload.end());
    const std::size_t pad = (kBlock - (plain.size() + 1) % kBlock) % kBlock;
    for (std::size_t i = 1; i <= pad; ++i) plain.push_back(static_cast<std::uint8_t>(i));
    plain.push_back(static_cast<std::uint8_t>(pad));
    body.assign(iv.begin(), iv.end());
    put(body, aes_cbc_128_encrypt(ByteView(security->keys.k2).first(16), iv, plain));
  } else {
    body.assign(payload.begin(), payload.end());
  }

  Bytes out(std::begin(kRmcpHeader), std::end(kRmcpHeader));
  out.push_back(kAuthTypeRmcpPlus);
  out.push_back(static_cast<std::uint8_t>(static_cast<std::uint8_t>(type) | (encrypt ? 0x80 : 0) |
                                          (sign ? 0x40 : 0)));
  put_u32(out, session_id);
  put_u32(out, sequence);
  put_u16(out, static_cast<std::uint16_t>(body.size()));
  put(out, body);
  if (sign) {
    const std::size_t covered = out.size() - sizeof kRmcpHeader + 2;  // + pad length, next header
    const std::size_t pad = (4 - covered % 4) % 4;
    out.insert(out.end(), pad, 0xFF);
    out.push_back(static_cast<std::uint8_t>(pad));
    out.push_back(kNextHeader);
    put(out, auth_code(*security, ByteView(out).subspan(sizeof kRmcpHeader)));
  }
  return out;
}

Bytes seal_v15_packet(ByteView message) {
  Bytes out(std::begin(kRmcpHeader), std::end(kRmcpHeader));
  out.push_back(0x00);  // auth type none
  put_u32(out, 0);      // sequence
  put_u32(out, 0);      // session ID
  out.push_back(static_cast<std::uint8_t>(message.size()));
  put(out, message);
  return out;
}

namespace {

std::variant<SessionPacket, std::string> open_v15(ByteReader& in) {
  SessionPacket packet;
  packet.rmcp_plus = false;
  const auto auth_type = in.u8();
  const auto sequence = in.u32();
  const auto session_id = in.u32();
  if (!auth_type || !sequence || !session_id) return std::string("truncated IPMI v1.5 header");
  if (*auth_type != 0x00 && !in.take(16)) return std::string("truncated IPMI v1.5 auth code");
  const auto length = in.u8();
  if (!length) return std::string("truncated IPMI v1.5 header");
  const auto message = in.take(*length);
  if (!message) return std::string("IPMI v1.5 message shorter than its length field");
  packet.sequence = *sequence;
  packet.session_id = *session_id;
  packet.payload.assign(message->begin(), message->end());
  return packet;
}

std::variant<SessionPacket, std::string> decrypt(SessionPacket packet,
                                                 const SessionSecurity& security) {
  const Bytes& body = packet.payload;
  if (body.size() < kIvLength + kBlock || (body.size() - kIvLength) % kBlock != 0)
    return std::string("encrypted payload of " + std::to_string(body.size()) +
                       " bytes is not an IV and whole AES blocks");
  const ByteView view(body);
  Bytes plain = aes_cbc_128_decrypt(ByteView(security.keys.k2).first(16), view.first(kIvLength),
                                    view.subspan(kIvLength));
  const std::size_t pad = plain.back();
  if (pad >= kBlock || pad + 1 > plain.size())
    return std::string("confidentiality pad length " + std::to_string(pad) + " is impossible");
  for (std::size_t i = 0; i < pad; ++i)
    if (plain[plain.size() - 1 - pad + i] != i + 1)
      return std::string("confidentiality pad bytes are wrong (wrong key or damaged packet)");
  plain.resize(plain.size() - 1 - pad);
  packet.payload = std::move(plain);
  return packet;
}

}  // namespace

std::variant<SessionPacket, std::string> open_packet(ByteView raw,
                                                     const SessionSecurity* security) {
  ByteReader in(raw);
  const auto rmcp = in.take(sizeof kRmcpHeader);
  if (!rmcp) return std::string("shorter than an RMCP header");
  if ((*rmcp)[0] != 0x06 || (*rmcp)[3] != 0x07)
    return std::string("not an RMCP IPMI packet (header " + to_hex_spaced(*rmcp) + ")");
  if (in.remaining() < 1) return std::string("no IPMI session header");
  if (raw[sizeof kRmcpHeader] != kAuthTypeRmcpPlus) return open_v15(in);

  in.u8();  // the auth type just looked at
  const auto type_byte = in.u8();
  const auto session_id = in.u32();
  const auto sequence = in.u32();
  const auto length = in.u16();
  if (!type_byte || !session_id || !sequence || !length)
    return std::string("truncated RMCP+ session header");
  SessionPacket packet;
  packet.encrypted = (*type_byte & 0x80) != 0;
  packet.authenticated = (*type_byte & 0x40) != 0;
  const std::uint8_t type = *type_byte & 0x3F;
  if (type == 0x02) return std::string("OEM payloads are not supported");
  packet.type = static_cast<PayloadType>(type);
  packet.session_id = *session_id;
  packet.sequence = *sequence;
  const auto body = in.take(*length);
  if (!body) return std::string("RMCP+ payload shorter than its length field");
  packet.payload.assign(body->begin(), body->end());

  // Inside a session that signs (or encrypts), a payload without it is someone else's.
  if (packet.type == PayloadType::ipmi_message || packet.type == PayloadType::sol) {
    if (signs(security) && !packet.authenticated)
      return std::string("an unsigned payload in a signing session");
    if (encrypts(security) && !packet.encrypted)
      return std::string("a clear-text payload in an encrypting session");
  }
  if (packet.authenticated) {
    if (!signs(security)) return std::string("an authenticated packet outside a signing session");
    const std::size_t code_length = security->suite.integrity_length();
    if (in.remaining() < code_length + 2) return std::string("truncated integrity trailer");
    const std::size_t trailer_end = raw.size() - code_length;  // where the AuthCode starts
    const std::uint8_t pad = raw[trailer_end - 2];
    if (raw[trailer_end - 1] != kNextHeader) return std::string("integrity trailer without 07h");
    if (pad > 3 || in.offset() + pad + 2 != trailer_end)
      return std::string("integrity pad does not fit the packet");
    const Bytes expected =
        auth_code(*security, raw.subspan(sizeof kRmcpHeader, trailer_end - sizeof kRmcpHeader));
    if (!codes_match(raw.subspan(trailer_end), expected))
      return std::string("integrity check failed (forged or damaged packet)");
  } else if (in.remaining() != 0) {
    return std::string(std::to_string(in.remaining()) + " bytes after an unsigned payload");
  }
  if (packet.encrypted) {
    if (!encrypts(security))
      return std::string("an encrypted packet outside an encrypting session");
    return decrypt(std::move(packet), *security);
  }
  return packet;
}

}  // namespace ironhold::bmc::ipmi
