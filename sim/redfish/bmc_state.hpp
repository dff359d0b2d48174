#pragma once
// One simulated Redfish BMC: its own copy of the mockup's documents (serials, UUIDs and MACs made
// unique per instance), a power state machine behind ComputerSystem.Reset, a persistent boot
// override with ETags, sessions and Basic auth. handle() is the whole request -> response logic,
// without a socket; time comes from an injectable clock so transitions are testable.
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>
#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "sim/redfish/mockup.hpp"

namespace ironhold::sim::redfish {

namespace http = boost::beast::http;
using Request = http::request<http::string_body>;
using Response = http::response<http::string_body>;
using Clock = std::chrono::steady_clock;

struct BmcConfig {
  unsigned index = 0;  // instance number: what makes serials, UUIDs and MACs unique
  std::string username = "admin";
  std::string password = "password";
  std::chrono::milliseconds reset_delay{1000};  // each PoweringOn / PoweringOff phase
  std::function<Clock::time_point()> now = [] { return Clock::now(); };
};

struct BmcCounters {
  unsigned successful_logins = 0;  // sessions created + requests accepted with Basic auth
  unsigned failed_logins = 0;      // wrong credentials, by session POST or Basic auth
  std::map<std::string, unsigned> resets;  // accepted resets by ResetType
};

// Deterministic per-instance rewrites (exposed for tests).
std::string unique_serial(const std::string& serial, unsigned index);
std::string unique_uuid(const std::string& uuid, unsigned index);  // unchanged if not a UUID
std::string unique_mac(const std::string& mac, unsigned index);    // unchanged if not a MAC

class BmcState {
 public:
  BmcState(const Mockup& mockup, BmcConfig config);

  Response handle(const Request& request);

  BmcCounters counters() const;
  // The system's current PowerState ("On", "PoweringOff", ...), for tests.
  std::string power_state(const std::string& system_path) const;
  // "@odata.id" of every ComputerSystem with a Reset action.
  std::vector<std::string> systems() const;

 private:
  struct Step {
    std::string state;
    Clock::duration lasts;  // zero for the final state
  };
  struct PowerMachine {
    std::string reset_target;  // Actions."#ComputerSystem.Reset".target
    std::vector<Step> steps;   // the current sequence; the last step is where it settles
    Clock::time_point started;
  };
  struct Session {
    std::string id;
    std::string token;
    std::string username;
  };

  bool authenticated(const Request& request);
  std::string current_power(const PowerMachine& machine) const;
  void refresh_power(const std::string& path);
  Response get(const std::string& path);
  Response post(const std::string& path, const Request& request);
  Response patch(const std::string& path, const Request& request);
  Response remove(const std::string& path);
  Response reset(const std::string& system_path, const Request& request);
  Response create_session(const Request& request);
  Response json_response(http::status status, const nlohmann::json& body) const;
  std::string etag(const std::string& path) const;

  BmcConfig config_;
  mutable std::mutex mutex_;
  std::map<std::string, Document> documents_;
  std::map<std::string, PowerMachine> power_;  // by system path
  std::string sessions_path_ = "/redfish/v1/SessionService/Sessions";
  std::map<std::string, Session> sessions_;  // by token
  unsigned next_session_ = 1;
  BmcCounters counters_;
};

}  // namespace ironhold::sim::redfish
