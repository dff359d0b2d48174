#include "sim/ipmi/handshake.hpp"

#include <algorithm>

#include "bmc/ipmi/rakp.hpp"
#include "inventory/crypto/primitives.hpp"

namespace ironhold::sim::ipmi {

namespace {

using bmc::ipmi::ByteReader;
using bmc::ipmi::Bytes;
using bmc::ipmi::ByteView;
using bmc::ipmi::CipherSuite;

// The suites this BMC offers: 3 and 17, both with AES-CBC-128 confidentiality.
std::optional<CipherSuite> matching_suite(std::uint8_t auth, std::uint8_t integrity,
                                          std::uint8_t confidentiality) {
  for (const std::uint8_t id : {3, 17}) {
    const auto suite = bmc::ipmi::cipher_suite(id);
    if (static_cast<std::uint8_t>(suite->auth) == auth &&
        static_cast<std::uint8_t>(suite->integrity) == integrity &&
        static_cast<std::uint8_t>(suite->confidentiality) == confidentiality)
      return suite;
  }
  return std::nullopt;
}

bool same(ByteView a, const Bytes& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end());
}

Bytes random16() {
  Bytes out(16);
  crypto::random_bytes(out);
  return out;
}

// The start every RAKP answer shares: tag, status, two reserved bytes, console session ID.
Bytes rakp_reply(std::uint8_t tag, std::uint8_t status, std::uint32_t console_id) {
  Bytes out{tag, status, 0x00, 0x00};
  bmc::ipmi::put_u32(out, console_id);
  return out;
}

bmc::ipmi::RakpExchange exchange_of(const Session& s, const std::string& password,
                                    const Bytes& guid, const Bytes& bmc_key) {
  bmc::ipmi::RakpExchange x;
  x.suite = s.suite;
  x.console_session_id = s.console_id;
  x.bmc_session_id = s.bmc_id;
  x.console_random = s.console_random;
  x.bmc_random = s.bmc_random;
  x.bmc_guid = guid;
  x.role = s.role;
  x.user = s.user;
  x.password = password;
  x.bmc_key = bmc_key;
  return x;
}

}  // namespace

std::optional<Bytes> open_session(HandshakeContext& ctx, ByteView request) {
  ByteReader in(request);
  const auto tag = in.u8();
  const auto privilege = in.u8();
  in.take(2);
  const auto console_id = in.u32();
  const auto auth = in.take(8);
  const auto integrity = in.take(8);
  const auto confidentiality = in.take(8);
  if (!tag || !privilege || !console_id) return std::nullopt;
  const auto refuse = [&](std::uint8_t status) {
    ++ctx.bmc.counters.sessions_refused;
    Bytes out{*tag, status, 0x00, 0x00};
    bmc::ipmi::put_u32(out, *console_id);
    return out;
  };
  if (!auth || !integrity || !confidentiality) return refuse(kRakpIllegalParameter);
  if ((*auth)[0] != 0x00 || (*integrity)[0] != 0x01 || (*confidentiality)[0] != 0x02)
    return refuse(kRakpIllegalParameter);
  const std::uint8_t requested = *privilege & 0x0F;
  if (requested > kPrivAdministrator) return refuse(kRakpInvalidRole);
  const auto suite =
      matching_suite((*auth)[4] & 0x3F, (*integrity)[4] & 0x3F, (*confidentiality)[4] & 0x3F);
  if (!suite) return refuse(kRakpNoCipherSuiteMatch);
  Session* session = ctx.sessions.open(ctx.now);
  if (!session) return refuse(kRakpNoResources);
  session->console_id = *console_id;
  session->suite = *suite;
  session->requested_privilege = requested;
  session->peer = ctx.peer;

  Bytes out{*tag, kRakpOk, requested == 0 ? kPrivAdministrator : requested, 0x00};
  bmc::ipmi::put_u32(out, session->console_id);
  bmc::ipmi::put_u32(out, session->bmc_id);
  const std::uint8_t algorithms[] = {static_cast<std::uint8_t>(suite->auth),
                                     static_cast<std::uint8_t>(suite->integrity),
                                     static_cast<std::uint8_t>(suite->confidentiality)};
  for (std::uint8_t kind = 0; kind < 3; ++kind) {
    const Bytes payload{kind, 0x00, 0x00, 0x08, algorithms[kind], 0x00, 0x00, 0x00};
    bmc::ipmi::put(out, payload);
  }
  return out;
}

std::optional<Bytes> rakp1(HandshakeContext& ctx, ByteView request) {
  ByteReader in(request);
  const auto tag = in.u8();
  in.take(3);
  const auto bmc_id = in.u32();
  const auto console_random = in.take(16);
  const auto role = in.u8();
  in.take(2);
  const auto name_length = in.u8();
  if (!tag || !bmc_id || !console_random || !role || !name_length) return std::nullopt;
  Session* s = ctx.sessions.find(*bmc_id);
  if (!s || s->stage == Session::Stage::active) return rakp_reply(*tag, kRakpInvalidSession, 0);
  s->last_activity = ctx.now;
  // A retransmitted RAKP 1 gets the RAKP 2 it had: the console may already use its random.
  if (s->stage == Session::Stage::rakp2_sent && same(request, s->handshake_request))
    return s->handshake_reply;
  const std::uint32_t console_id = s->console_id;
  const auto fail = [&](std::uint8_t status) {
    ++ctx.bmc.counters.sessions_refused;
    ctx.sessions.close(*bmc_id);
    return rakp_reply(*tag, status, console_id);
  };
  if (*name_length > 16) return fail(kRakpInvalidNameLength);
  const auto name = in.take(*name_length);
  if (!name) return fail(kRakpInvalidNameLength);
  const std::string user_name(name->begin(), name->end());
  User* user = ctx.bmc.find_user(user_name);
  if (!user || user_name.empty()) {
    ctx.bmc.login_failed(nullptr, ctx.now);
    return fail(kRakpUnauthorizedName);
  }
  if (ctx.bmc.locked_out(*user, ctx.now)) {
    ++ctx.bmc.counters.logins_failed;
    return fail(kRakpUnauthorizedName);
  }
  std::uint8_t privilege = *role & 0x0F;
  if (privilege > kPrivAdministrator) return fail(kRakpInvalidRole);
  if (privilege == 0) privilege = user->privilege;  // "the highest the user has"
  if (privilege > user->privilege ||
      (s->requested_privilege != 0 && privilege > s->requested_privilege))
    return fail(kRakpUnauthorizedRole);

  s->role = *role;
  s->user = user_name;
  s->max_privilege = privilege;
  s->console_random.assign(console_random->begin(), console_random->end());
  s->bmc_random = random16();
  s->stage = Session::Stage::rakp2_sent;
  const auto x = exchange_of(*s, user->password, ctx.bmc.guid(), ctx.bmc.config().bmc_key);
  Bytes out = rakp_reply(*tag, kRakpOk, s->console_id);
  bmc::ipmi::put(out, s->bmc_random);
  bmc::ipmi::put(out, ctx.bmc.guid());
  bmc::ipmi::put(out, bmc::ipmi::rakp2_code(x));
  s->handshake_request.assign(request.begin(), request.end());
  s->handshake_reply = out;
  return out;
}

std::optional<Bytes> rakp3(HandshakeContext& ctx, ByteView request) {
  ByteReader in(request);
  const auto tag = in.u8();
  const auto status = in.u8();
  in.take(2);
  const auto bmc_id = in.u32();
  if (!tag || !status || !bmc_id) return std::nullopt;
  Session* s = ctx.sessions.find(*bmc_id);
  // A retransmitted RAKP 3 (our RAKP 4 was lost) gets the same RAKP 4.
  if (s && s->stage == Session::Stage::active && same(request, s->handshake_request))
    return s->handshake_reply;
  if (!s || s->stage != Session::Stage::rakp2_sent) return rakp_reply(*tag, kRakpInvalidSession, 0);
  User* user = ctx.bmc.find_user(s->user);
  const std::uint32_t console_id = s->console_id;
  // The console refused our RAKP 2 (it could not verify it: a wrong password on its side).
  if (*status != kRakpOk) {
    ctx.bmc.login_failed(user, ctx.now);
    ctx.sessions.close(*bmc_id);
    return std::nullopt;
  }
  if (!user) {
    ctx.sessions.close(*bmc_id);
    return rakp_reply(*tag, kRakpUnauthorizedName, console_id);
  }
  const auto x = exchange_of(*s, user->password, ctx.bmc.guid(), ctx.bmc.config().bmc_key);
  const auto code = in.take(in.remaining());
  if (!bmc::ipmi::codes_match(*code, bmc::ipmi::rakp3_code(x))) {
    ctx.bmc.login_failed(user, ctx.now);
    ctx.sessions.close(*bmc_id);
    return rakp_reply(*tag, kRakpInvalidIntegrityCheck, console_id);
  }
  user->failures = 0;
  s->security.suite = s->suite;
  s->security.keys = bmc::ipmi::derive_keys(x);
  s->stage = Session::Stage::active;
  s->privilege = std::min(kPrivUser, s->max_privilege);
  s->last_activity = ctx.now;
  ++ctx.bmc.counters.sessions_opened;
  Bytes out = rakp_reply(*tag, kRakpOk, console_id);
  bmc::ipmi::put(out, bmc::ipmi::rakp4_icv(x, s->security.keys));
  s->handshake_request.assign(request.begin(), request.end());
  s->handshake_reply = out;
  return out;
}

}  // namespace ironhold::sim::ipmi
