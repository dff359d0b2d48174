#include "bmc/ipmi/session_setup.hpp"

namespace ironhold::bmc::ipmi {

namespace {

constexpr std::size_t kRandomLength = 16;
constexpr std::size_t kGuidLength = 16;
constexpr std::size_t kMaxUserName = 16;

void put_algorithm(Bytes& out, std::uint8_t type, std::uint8_t algorithm) {
  const std::uint8_t payload[] = {type, 0, 0, 8, algorithm, 0, 0, 0};
  put(out, payload);
}

// One 8-byte algorithm payload of the expected type; the error names the field.
std::variant<std::uint8_t, std::string> read_algorithm(ByteReader& in, std::uint8_t type,
                                                       const char* what) {
  const auto payload = in.take(8);
  if (!payload) return std::string("truncated ") + what + " algorithm payload";
  if ((*payload)[0] != type || (*payload)[3] != 8)
    return std::string("malformed ") + what + " algorithm payload";
  return static_cast<std::uint8_t>((*payload)[4] & 0x3F);
}

std::variant<Algorithms, std::string> read_algorithms(ByteReader& in) {
  Algorithms a;
  const auto auth = read_algorithm(in, 0, "authentication");
  if (const auto* e = std::get_if<std::string>(&auth)) return *e;
  const auto integrity = read_algorithm(in, 1, "integrity");
  if (const auto* e = std::get_if<std::string>(&integrity)) return *e;
  const auto confidentiality = read_algorithm(in, 2, "confidentiality");
  if (const auto* e = std::get_if<std::string>(&confidentiality)) return *e;
  a.auth = std::get<std::uint8_t>(auth);
  a.integrity = std::get<std::uint8_t>(integrity);
  a.confidentiality = std::get<std::uint8_t>(confidentiality);
  return a;
}

// Appended by resize rather than insert(end, count, 0): GCC 12 at -O2 (-Warray-bounds) falsely
// saw the fill-insert's move of the earlier bytes run past a one-byte vector (libstdc++ PR 109299).
void put_reserved(Bytes& out, std::size_t count) {
  out.resize(out.size() + count);
}

Bytes take_bytes(ByteReader& in, std::size_t count) {
  const auto view = in.take(count);
  return view ? Bytes(view->begin(), view->end()) : Bytes{};
}

Bytes rest(ByteReader& in) {
  return take_bytes(in, in.remaining());
}

}  // namespace

std::string rmcp_status_text(std::uint8_t status) {
  switch (status) {
    case 0x00:
      return "no errors";
    case 0x01:
      return "insufficient resources to create a session";
    case 0x02:
      return "invalid session ID";
    case 0x03:
      return "invalid payload type";
    case 0x04:
      return "invalid authentication algorithm";
    case 0x05:
      return "invalid integrity algorithm";
    case 0x06:
      return "no matching authentication payload";
    case 0x07:
      return "no matching integrity payload";
    case 0x08:
      return "inactive session ID";
    case 0x09:
      return "invalid role";
    case 0x0A:
      return "unauthorized role or privilege level requested";
    case 0x0B:
      return "insufficient resources to create a session at the requested role";
    case 0x0C:
      return "invalid name length";
    case 0x0D:
      return "unauthorized name";
    case 0x0E:
      return "unauthorized GUID";
    case 0x0F:
      return "invalid integrity check value";
    case 0x10:
      return "invalid confidentiality algorithm";
    case 0x11:
      return "no cipher suite match with proposed security algorithms";
    case 0x12:
      return "illegal or unrecognized parameter";
    default:
      return "status " + hex_byte(status);
  }
}

bool refuses_algorithms(std::uint8_t status) {
  switch (status) {
    case 0x04:
    case 0x05:
    case 0x06:
    case 0x07:
    case 0x10:
    case 0x11:
      return true;
    default:
      return false;
  }
}

Algorithms Algorithms::of(const CipherSuite& suite) {
  return {static_cast<std::uint8_t>(suite.auth), static_cast<std::uint8_t>(suite.integrity),
          static_cast<std::uint8_t>(suite.confidentiality)};
}

std::optional<CipherSuite> suite_with(const Algorithms& algorithms) {
  for (const std::uint8_t id : {std::uint8_t{0}, std::uint8_t{3}, std::uint8_t{17}}) {
    const auto suite = cipher_suite(id);
    if (suite && Algorithms::of(*suite) == algorithms) return suite;
  }
  return std::nullopt;
}

Bytes encode(const OpenSessionRequest& m) {
  Bytes out{m.tag, static_cast<std::uint8_t>(m.max_privilege & 0x0F), 0, 0};
  put_u32(out, m.console_session_id);
  put_algorithm(out, 0, m.algorithms.auth);
  put_algorithm(out, 1, m.algorithms.integrity);
  put_algorithm(out, 2, m.algorithms.confidentiality);
  return out;
}

Bytes encode(const OpenSessionResponse& m) {
  Bytes out{m.tag, m.status, m.max_privilege, 0};
  put_u32(out, m.console_session_id);
  if (m.status != 0) return out;
  put_u32(out, m.bmc_session_id);
  put_algorithm(out, 0, m.algorithms.auth);
  put_algorithm(out, 1, m.algorithms.integrity);
  put_algorithm(out, 2, m.algorithms.confidentiality);
  return out;
}

Bytes encode(const Rakp1& m) {
  Bytes out{m.tag};
  put_reserved(out, 3);
  put_u32(out, m.bmc_session_id);
  put(out, m.console_random);
  out.push_back(m.role);
  put_reserved(out, 2);
  out.push_back(static_cast<std::uint8_t>(m.user.size()));
  out.insert(out.end(), m.user.begin(), m.user.end());
  return out;
}

Bytes encode(const Rakp2& m) {
  Bytes out{m.tag, m.status, 0, 0};
  put_u32(out, m.console_session_id);
  if (m.status != 0) return out;
  put(out, m.bmc_random);
  put(out, m.bmc_guid);
  put(out, m.code);
  return out;
}

Bytes encode(const Rakp3& m) {
  Bytes out{m.tag, m.status, 0, 0};
  put_u32(out, m.bmc_session_id);
  if (m.status == 0) put(out, m.code);
  return out;
}

Bytes encode(const Rakp4& m) {
  Bytes out{m.tag, m.status, 0, 0};
  put_u32(out, m.console_session_id);
  if (m.status == 0) put(out, m.icv);
  return out;
}

std::variant<OpenSessionRequest, std::string> decode_open_session_request(ByteView payload) {
  ByteReader in(payload);
  OpenSessionRequest m;
  const auto tag = in.u8();
  const auto privilege = in.u8();
  const auto reserved = in.take(2);
  const auto sid = in.u32();
  if (!tag || !privilege || !reserved || !sid) return std::string("truncated Open Session Request");
  m.tag = *tag;
  m.max_privilege = *privilege & 0x0F;
  m.console_session_id = *sid;
  auto algorithms = read_algorithms(in);
  if (auto* e = std::get_if<std::string>(&algorithms)) return *e;
  m.algorithms = std::get<Algorithms>(algorithms);
  return m;
}

std::variant<OpenSessionResponse, std::string> decode_open_session_response(ByteView payload) {
  ByteReader in(payload);
  OpenSessionResponse m;
  const auto tag = in.u8();
  const auto status = in.u8();
  const auto privilege = in.u8();
  const auto reserved = in.u8();
  const auto sid = in.u32();
  if (!tag || !status || !privilege || !reserved || !sid)
    return std::string("truncated Open Session Response");
  m.tag = *tag;
  m.status = *status;
  m.max_privilege = *privilege & 0x0F;
  m.console_session_id = *sid;
  if (m.status != 0) return m;
  const auto bmc_sid = in.u32();
  if (!bmc_sid) return std::string("Open Session Response without the BMC's session ID");
  m.bmc_session_id = *bmc_sid;
  auto algorithms = read_algorithms(in);
  if (auto* e = std::get_if<std::string>(&algorithms)) return "Open Session Response: " + *e;
  m.algorithms = std::get<Algorithms>(algorithms);
  return m;
}

std::variant<Rakp1, std::string> decode_rakp1(ByteView payload) {
  ByteReader in(payload);
  Rakp1 m;
  const auto tag = in.u8();
  const auto reserved = in.take(3);
  const auto sid = in.u32();
  const auto random = in.take(kRandomLength);
  const auto role = in.u8();
  const auto reserved2 = in.take(2);
  const auto length = in.u8();
  if (!tag || !reserved || !sid || !random || !role || !reserved2 || !length)
    return std::string("truncated RAKP message 1");
  if (*length > kMaxUserName)
    return std::string("RAKP message 1 names a user of ") + std::to_string(*length) +
           " bytes (at most 16)";
  const auto name = in.take(*length);
  if (!name) return std::string("RAKP message 1 is shorter than its user name");
  m.tag = *tag;
  m.bmc_session_id = *sid;
  m.console_random.assign(random->begin(), random->end());
  m.role = *role;
  m.user.assign(name->begin(), name->end());
  return m;
}

std::variant<Rakp2, std::string> decode_rakp2(ByteView payload) {
  ByteReader in(payload);
  Rakp2 m;
  const auto tag = in.u8();
  const auto status = in.u8();
  const auto reserved = in.take(2);
  const auto sid = in.u32();
  if (!tag || !status || !reserved || !sid) return std::string("truncated RAKP message 2");
  m.tag = *tag;
  m.status = *status;
  m.console_session_id = *sid;
  if (m.status != 0) return m;
  const auto random = in.take(kRandomLength);
  const auto guid = in.take(kGuidLength);
  if (!random || !guid) return std::string("RAKP message 2 without the BMC's random and GUID");
  m.bmc_random.assign(random->begin(), random->end());
  m.bmc_guid.assign(guid->begin(), guid->end());
  m.code = rest(in);
  return m;
}

std::variant<Rakp3, std::string> decode_rakp3(ByteView payload) {
  ByteReader in(payload);
  Rakp3 m;
  const auto tag = in.u8();
  const auto status = in.u8();
  const auto reserved = in.take(2);
  const auto sid = in.u32();
  if (!tag || !status || !reserved || !sid) return std::string("truncated RAKP message 3");
  m.tag = *tag;
  m.status = *status;
  m.bmc_session_id = *sid;
  m.code = rest(in);
  return m;
}

std::variant<Rakp4, std::string> decode_rakp4(ByteView payload) {
  ByteReader in(payload);
  Rakp4 m;
  const auto tag = in.u8();
  const auto status = in.u8();
  const auto reserved = in.take(2);
  const auto sid = in.u32();
  if (!tag || !status || !reserved || !sid) return std::string("truncated RAKP message 4");
  m.tag = *tag;
  m.status = *status;
  m.console_session_id = *sid;
  m.icv = rest(in);
  return m;
}

}  // namespace ironhold::bmc::ipmi
