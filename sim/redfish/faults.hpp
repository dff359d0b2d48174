#pragma once
// Faults a simulated BMC can be told to show on the wire, so clients meet the misbehaviour of real
// BMC firmware in tests and benchmarks. The server layer (redfish_server.cpp) acts them out: they
// change what goes over the socket, not only what handle() returns.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace ironhold::sim::redfish {

struct Faults {
  unsigned latency_ms = 0;            // added before every answer
  double error_rate = 0;              // share of requests answered 500/503 (503 with Retry-After)
  bool reset_connections = false;     // read the request, then reset the TCP connection
  bool timeout = false;               // read the request, never answer
  bool truncated_json = false;        // the JSON body cut short (Content-Length matches the cut)
  bool invalid_json = false;          // a body that is not JSON at all
  unsigned slow_drip_ms = 0;          // the body sent a few bytes at a time, this pause between
  bool redirect_loop = false;         // 302 between the URL and a twin of it, forever
  std::uint64_t huge_body_bytes = 0;  // JSON bodies padded to at least this size
  // ComputerSystem.Reset answers 204 and counts the request, but the power state never changes
  // (firmware that drops the action): the client must notice by reading the state back.
  bool ignore_resets = false;
  // The installer a PXE boot starts (installer.hpp): reports failure, or fetches its script and
  // never calls back (a hung install).
  bool install_fails = false;
  bool install_hangs = false;
  // An update's task (updater.hpp), SimpleUpdate or push: ends in Exception after the transfer,
  // or stays Running.
  bool update_fails = false;
  bool update_hangs = false;
  // The EventService says ServiceEnabled false and refuses new subscriptions and test events
  // (400 ServiceDisabled); nothing is delivered meanwhile. A client must fall back to polling.
  bool event_service_disabled = false;
  // Collections, named by the last segment of their path ("Systems", "Processors", "Memory"),
  // answered 200 with no members: what a BMC still starting, or one that has not read the host's
  // inventory yet (bmcweb with the host off), answers.
  std::vector<std::string> empty_collections;
  // At most this many sessions at once (0: no limit); a login beyond it is refused as iDRAC 9
  // refuses it: 503, a GeneralError holding IDRAC.2.4.RAC0218 "The maximum number of user
  // sessions is reached." (the iDRAC's own WebServer.1.MaxNumberOfSessions is 8 by default).
  unsigned session_limit = 0;
  // Requests with Basic auth are refused (401), as on a BMC with Basic auth turned off.
  bool basic_auth_refused = false;
  // At most this many requests in any one second (0: no limit); those beyond are answered 503
  // without Retry-After: a small BMC (Supermicro's above all) that cannot take a burst.
  unsigned burst_limit = 0;
  // Boot on the System is refused (400 PropertyNotWritable, as iDRAC 10 answers) and taken only
  // through the System's @Redfish.Settings object (one is added, ApplyTime OnReset, where the
  // System declares none), to act at the next reset.
  bool boot_via_settings = false;
  // A Boot PATCH without BootSourceOverrideMode is refused (400 PropertyMissing), as Supermicro
  // BMCs refuse it.
  bool boot_mode_required = false;

  bool any() const;
  bool operator==(const Faults&) const = default;
};

// {"latency_ms": 50, "error_rate": 0.2, ...}: every field optional, unknown fields and wrong types
// are an ironhold::Error (invalid) naming the field. Fields not given keep their value in `base`.
Faults faults_from_json(const nlohmann::json& body, Faults base = {});
nlohmann::json to_json(const Faults& faults);
// Names of the faults that are on ("latency_ms", "timeout", ...), for listings.
nlohmann::json active_faults(const Faults& faults);

// The body a fault makes of a JSON body; unchanged when no body fault is on.
std::string mangle_body(const Faults& faults, std::string body);
// The collection at `target` emptied when empty_collections names it; the body unchanged
// otherwise (a member, or a document that is not a collection).
std::string empty_members(const Faults& faults, std::string_view target, std::string body);

}  // namespace ironhold::sim::redfish
