#pragma once
// One simulated Redfish BMC: its own copy of the mockup's documents (serials, UUIDs and MACs made
// unique per instance), a power state machine behind ComputerSystem.Reset, a persistent boot
// override with ETags, sessions and Basic auth. handle() is the whole request -> response logic,
// without a socket; time comes from an injectable clock so transitions are testable.
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>
#include <chrono>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "sim/console/host_console.hpp"
#include "sim/redfish/events.hpp"
#include "sim/redfish/faults.hpp"
#include "sim/redfish/installer.hpp"
#include "sim/redfish/mockup.hpp"
#include "sim/redfish/update_methods.hpp"
#include "sim/redfish/updater.hpp"

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
  // Called (under the BMC's lock, so it must not call back) with saved_state() after every change
  // worth keeping across restarts: power, boot override, identify, health, SEL entries.
  std::function<void(const nlohmann::json&)> persist;
  // Called (under the BMC's lock: it must only hand the work on) when a reset restarts a System
  // into a one-time or continuous PXE boot; the fleet's Installer plays the PXE ROM and installer.
  std::function<void(NetworkBoot)> network_boot;
  // Called (under the BMC's lock, like network_boot) when SimpleUpdate or a push accepts an
  // image; the fleet's Updater downloads it (or takes the pushed bytes) and carries the Task to
  // its end through the methods below.
  std::function<void(FirmwareJob)> firmware_update;
  // The update methods the UpdateService offers (see update_methods.hpp); nothing: what the
  // mockup declares.
  std::optional<UpdateMethods> update_methods;
  // Called (under the BMC's lock, like network_boot) with each Event document for a subscription;
  // the fleet's EventSender POSTs it to the subscription's destination (event_sender.hpp).
  std::function<void(EventDelivery)> deliver_event;
  // Called (under the BMC's lock) when a reset starts a power transition; the fleet calls
  // power_settled() once it has settled, which sends the power event.
  std::function<void(PowerSettle)> power_settles;
};

struct BmcCounters {
  unsigned successful_logins = 0;          // sessions created + requests accepted with Basic auth
  unsigned failed_logins = 0;              // wrong credentials, by session POST or Basic auth
  std::map<std::string, unsigned> resets;  // accepted resets by ResetType
  std::map<std::string, unsigned> manager_resets;  // accepted #Manager.Reset by ResetType
  unsigned boot_overrides = 0;                     // accepted PATCHes of Boot
  unsigned bios_writes = 0;                        // accepted PATCHes of a BIOS settings object
  unsigned bios_applies = 0;  // resets (or Immediate PATCHes) that applied pending BIOS settings
  unsigned password_changes = 0;   // accepted PATCHes of an account's Password
  unsigned identify_changes = 0;   // accepted PATCHes of LocationIndicatorActive / IndicatorLED
  unsigned firmware_updates = 0;   // accepted updates: SimpleUpdate actions and pushes
  unsigned firmware_pushes = 0;    // of those, images pushed to the MultipartHttpPushUri
  unsigned network_boots = 0;      // restarts into a PXE boot override
  unsigned updates_completed = 0;  // update tasks that installed their image
  unsigned requests = 0;           // requests answered by handle()
  unsigned requests_received =
      0;                          // requests read, answered or not (a fault may reset or drop them)
  unsigned selected_reads = 0;    // GETs answered with $select
  unsigned sessions_refused = 0;  // logins refused by the session_limit fault
  unsigned requests_refused = 0;  // requests refused by the burst_limit fault

  // The EventService: subscriptions accepted; Event documents a destination answered 2xx;
  // delivery attempts that failed (each retry counts); Event documents never delivered (given up
  // after their retries, or still queued when their subscription ended or was suspended).
  unsigned ssh_logins = 0;         // SSH serial console logins accepted
  unsigned ssh_failed_logins = 0;  // and refused (wrong user or password)
  unsigned console_sessions = 0;   // SSH serial console sessions attached to the host
  unsigned media_inserts = 0;      // images mounted in the virtual CD (InsertMedia or PATCH)
  unsigned media_ejects = 0;       // and ejected
  unsigned media_boots = 0;        // restarts into a boot from the virtual CD with an image in it

  unsigned subscriptions_created = 0;
  unsigned events_delivered = 0;
  unsigned event_deliveries_failed = 0;
  unsigned events_dropped = 0;
};
nlohmann::json to_json(const BmcCounters& counters);

// Deterministic per-instance rewrites (exposed for tests).
std::string unique_serial(const std::string& serial, unsigned index);
std::string unique_uuid(const std::string& uuid, unsigned index);  // unchanged if not a UUID
std::string unique_mac(const std::string& mac, unsigned index);    // unchanged if not a MAC

// The ApplyTime a settings PATCH (`body`) asks for in its @Redfish.SettingsApplyTime (OnReset
// when it names none), checked against the owner's @Redfish.Settings (`declared`): its
// SupportedApplyTimes, and the two this simulator carries out (OnReset, Immediate). The refusal
// otherwise.
std::variant<std::string, Response> settings_apply_time(const nlohmann::json& body,
                                                        const nlohmann::json& declared);

class BmcState {
 public:
  BmcState(const Mockup& mockup, BmcConfig config);

  Response handle(const Request& request);

  BmcCounters counters() const;
  // The system's current PowerState ("On", "PoweringOff", ...), for tests.
  std::string power_state(const std::string& system_path) const;
  // "@odata.id" of every ComputerSystem with a Reset action.
  std::vector<std::string> systems() const;
  // The path of the UpdateService's MultipartHttpPushUri, empty when it offers none. Fixed at
  // construction: the server reads it (to size its body limit) without the lock.
  const std::string& push_uri() const { return push_uri_; }

  // The control side (bmc_control.cpp): what the control API and tests do to a BMC. A `system` is
  // a System's Id ("1") or "@odata.id"; empty means every System (health) or the first (others).
  // Unknown systems and bad values are ironhold::Error (not_found / invalid). A power or health
  // change and a SEL entry are events for the EventService's subscribers (bmc_events.cpp).
  // Counts a request read off the wire, before any fault acts on it, and returns the faults it
  // meets (one lock for both).
  Faults request_received();
  // Counts the request against the burst_limit fault; true when it is one too many this second
  // (and counts it refused).
  bool refuse_burst();
  std::size_t open_sessions() const;
  Faults faults() const;
  void set_faults(const Faults& faults);
  void set_power(const std::string& system, const std::string& state);  // "On" | "Off", at once
  void set_health(const std::string& health,
                  const std::string& system = {});           // OK|Warning|Critical
  std::string health(const std::string& system_path) const;  // the System's Status.Health
  // Appends a SEL LogEntry to the System's first SEL log service and returns it; ironhold::Error
  // (conflict) when the System has no SEL log service.
  nlohmann::json append_sel(const std::string& severity, const std::string& message,
                            const std::string& sensor_type = {}, const std::string& system = {});
  void expire_sessions();  // every client must log in again
  // A failing GPU, as an NVIDIA HGX service shows one (bmc_gpu.cpp): `fault` sets any of
  // {"uncorrectable_ecc": N, "correctable_ecc": N, "row_remap_failed": bool, "pcie_lanes": N,
  // "missing": bool (gone from its Processors collection, as a GPU that fell off the bus)} on the
  // GPU Processor whose Id is `gpu`. ironhold::Error: not_found for no such GPU, invalid for a
  // fault it does not know or a wrong type.
  void set_gpu_fault(const std::string& gpu, const nlohmann::json& fault);
  // A failing NVSwitch: `fault` sets any of {"uncorrectable_ecc": N, "correctable_ecc": N,
  // "pcie_fatal_errors": N} in the SwitchMetrics of the Switch whose Id is `nvswitch`.
  void set_nvswitch_fault(const std::string& nvswitch, const nlohmann::json& fault);
  // The updater's side of a SimpleUpdate or push: merges `patch` into the Task at `task_path`;
  // installs a version on the firmware inventory entries named (or, with none, the entry whose Id
  // is `component`), at once or at the System's next reset. ironhold::Error (not_found) when there
  // is no such entry.
  void update_task(const std::string& task_path, const nlohmann::json& patch);
  void install_firmware(const std::vector<std::string>& targets, const std::string& component,
                        const std::string& version, bool on_reset);
  // The Version of a firmware inventory entry ("/redfish/v1/UpdateService/FirmwareInventory/BMC").
  std::string firmware_version(const std::string& entry_path) const;
  // An administrator changed the account's password: logins need the new one; open sessions
  // stay valid, as on most BMCs.
  void set_password(std::string password);
  // The account's password now (what its administrator knows), for tests of a rotation.
  std::string password() const;
  std::size_t session_count() const;
  // {"systems": [{"id", "power_state", "health"}], "faults": [...], "subscriptions": [...],
  // "counters": {...}}
  nlohmann::json describe() const;
  // The EventSender's side (bmc_events.cpp). Where a subscription's events go now: nothing once
  // it is deleted, terminated or suspended (or the EventService is disabled).
  std::optional<DeliveryTarget> delivery_target(const std::string& subscription) const;
  void delivery_succeeded();
  void delivery_failed();   // one attempt
  void delivery_dropped();  // an event not sent: its subscription is no longer there to take it
  // An event was given up after its retries: counted as dropped, and the subscription's
  // DeliveryRetryPolicy applied (terminated: deleted; suspended: Status.State Disabled).
  void delivery_gave_up(const std::string& subscription);
  // A reset's transition (PowerSettle) has had time to settle: unless a newer change came since,
  // subscribers get the power event.
  void power_settled(const std::string& system_path, std::uint64_t generation);
  // The subscriptions events are delivered to: [{"id", "destination", "context", "state"}].
  nlohmann::json subscriptions() const;

  // The host's serial port (bmc_console.cpp), behind the Manager's SSH serial console
  // (ssh_consoles.hpp). The port belongs to the first System; its boot log follows that System's
  // resets. advertise_ssh_console sets the Manager's SerialConsole (ConnectTypesSupported SSH,
  // SSH.ServiceEnabled, SSH.Port, and SSH.ConsoleEntryCommand when the console sits behind a
  // command of the BMC's CLI); with nothing advertised the Manager says what the mockup says.
  void advertise_ssh_console(unsigned port, const std::string& entry_command);
  // Checks an SSH login against the BMC's account; counted in ssh_logins / ssh_failed_logins.
  bool console_login(const std::string& username, const std::string& password);
  void console_attached(bool attached);  // a session attached (true) or left (false)
  void console_type(std::string_view keys);
  std::string console_take_output();  // what the host printed by now, not yet taken
  std::optional<Clock::time_point> console_next_output_at() const;
  void console_print(const std::string& text);  // the host prints it now (a panic in a test)
  // {"active": sessions attached, "powered", "history", "received"}; output due while nobody is
  // attached goes to the history.
  nlohmann::json console();

  // The virtual CD (bmc_media.cpp): {"path", "inserted", "image"}, null when there is none.
  nlohmann::json virtual_media() const;

  // What --state-dir keeps (power, boot override, identify, health, added SEL entries,
  // subscriptions), and back.
  nlohmann::json saved_state() const;
  void restore_state(const nlohmann::json& saved);
  // Replaces BmcConfig::persist (before serving starts).
  void set_persist(std::function<void(const nlohmann::json&)> persist);

 private:
  struct Step {
    std::string state;
    Clock::duration lasts;  // zero for the final state
  };
  struct PowerMachine {
    std::string reset_target;  // Actions."#ComputerSystem.Reset".target
    std::vector<Step> steps;   // the current sequence; the last step is where it settles
    Clock::time_point started;
    std::uint64_t generation = 0;  // counts changes: a PowerSettle for an older one is stale
  };
  struct Session {
    std::string id;
    std::string token;
    std::string username;
  };

  bool authenticated(const Request& request);
  std::string current_power(const PowerMachine& machine) const;
  void refresh_power(const std::string& path);
  // `select`: the request's $select, when it has one.
  Response get(const std::string& path, const std::optional<std::string>& select = std::nullopt);
  Response post(const std::string& path, const Request& request);
  Response patch(const std::string& path, const Request& request);
  Response patch_system(const std::string& path, const nlohmann::json& body);
  // Checks a PATCH's Boot object against the System's `current` Boot (its AllowableValues) and
  // the faults; puts what it sets in `changes`. The refusal to answer, if any.
  std::optional<Response> check_boot(const nlohmann::json& current, const nlohmann::json& requested,
                                     nlohmann::json& changes) const;
  // bmc_settings.cpp: @Redfish.Settings objects of Systems.
  void register_settings_object(const std::string& system_path);
  void apply_settings_fault();  // boot_via_settings: every System gets a settings object
  Response patch_settings(const std::string& path, const nlohmann::json& body);
  void apply_pending_settings(const std::string& system_path);  // at a reset that brings it On
  // bmc_bios.cpp: the Bios resource of a System and its settings object.
  void register_bios_settings(const std::string& system_path);
  Response patch_bios_settings(const std::string& path, const nlohmann::json& body);
  void apply_pending_bios(const std::string& system_path);  // at the reset, with the rest
  Response remove(const std::string& path);
  Response reset(const std::string& system_path, const Request& request);
  Response create_session(const Request& request);
  Response json_response(http::status status, const nlohmann::json& body) const;
  std::string etag(const std::string& path) const;
  Response manager_reset(const std::string& manager_path, const Request& request);
  // bmc_update.cpp: both update methods, and what they share.
  Response simple_update(const Request& request);
  Response push_update(const Request& request);
  struct CheckedTargets {
    std::vector<std::string> paths;         // firmware inventory entries
    std::optional<nlohmann::json> refused;  // the first item that names none
  };
  CheckedTargets firmware_targets(const nlohmann::json& targets) const;
  // Counts the update, makes its Task (with `payload`, the request as Task.Payload tells it),
  // hands `job` to config_.firmware_update and answers 202 with the Task.
  Response start_update(FirmwareJob job, nlohmann::json payload);
  // A restart about to bring the System On: a PXE boot override is used (a one-time one is
  // cleared, as BMCs do) and the network boot reported to config_.network_boot.
  void network_boot_if_asked(const std::string& system_path, Clock::duration until_on);
  void ensure_task_service();
  void find_serial_port();  // at construction: console_system_ and console_manager_
  // bmc_media.cpp: the virtual CD, made on console_manager_ when the mockup has none.
  void find_virtual_media();
  // bmc_accounts.cpp: the AccountService's accounts, and a PATCH of one (its Password).
  void find_accounts();
  Response patch_account(const std::string& path, const nlohmann::json& body);
  std::optional<Response> media_post(const std::string& path, const Request& request);
  std::optional<Response> media_patch(const std::string& path, const nlohmann::json& body);
  void mount(const std::string& image, bool write_protected);
  void unmount();
  std::string mounted_image() const;  // empty when nothing is mounted
  // What a restart of the System boots from ("pxe", "cdrom", "disk"), by its boot override.
  std::string boot_device(const std::string& system_path) const;
  std::vector<std::string> system_macs(const std::string& system_path) const;
  std::string system_path(const std::string& system) const;            // throws not_found
  std::string sel_entries_path(const std::string& system_path) const;  // empty when none
  void add_sel_entry(const std::string& entries_path, nlohmann::json entry);
  void set_health_locked(const std::string& path, const std::string& health);
  nlohmann::json saved_state_locked() const;
  void changed();  // hands saved_state to config_.persist
  // bmc_events.cpp: the EventService.
  void find_event_service();  // at construction
  bool events_enabled() const;
  bool is_subscription(const std::string& path) const;  // a member of the Subscriptions collection
  // A POST the EventService answers (new subscription, SubmitTestEvent, ResumeSubscription).
  std::optional<Response> event_service_post(const std::string& path, const Request& request);
  Response create_subscription(const Request& request);
  Response patch_subscription(const std::string& path, const Request& request);
  Response remove_subscription(const std::string& path);
  Response resume_subscription(const std::string& path);
  Response submit_test_event(const Request& request);
  void put_subscription(const Subscription& subscription);  // its document and collection member
  void apply_event_fault();                                 // ServiceEnabled as faults_ says
  // A new EventRecord: EventId, timestamp, both severities, OriginOfCondition when given.
  nlohmann::json event_record(const std::string& type, const std::string& message_id,
                              const nlohmann::json& args, const std::string& message,
                              const std::string& severity, const std::string& origin);
  // Hands one Event document per subscription that wants `record` (every one: `to_all`) to
  // config_.deliver_event.
  void emit_locked(const nlohmann::json& record, bool to_all = false);
  void emit_power_locked(const std::string& system_path, const std::string& state);
  nlohmann::json saved_events_locked() const;
  void restore_events(const nlohmann::json& saved);

  BmcConfig config_;
  mutable std::mutex mutex_;
  std::map<std::string, Document> documents_;
  std::map<std::string, PowerMachine> power_;  // by system path
  std::string sessions_path_ = "/redfish/v1/SessionService/Sessions";
  std::map<std::string, Session> sessions_;  // by token
  unsigned next_session_ = 1;
  BmcCounters counters_;
  Faults faults_;
  std::map<std::string, std::string> settings_objects_;  // settings object path -> System path
  struct BiosSettingsObject {
    std::string bios_path, system_path;
  };
  std::map<std::string, BiosSettingsObject> bios_settings_;  // by the settings object's path
  std::deque<Clock::time_point> burst_window_;               // requests taken in the last second
  std::map<std::string, nlohmann::json> sensor_base_;  // drifting documents as the mockup has them
  std::map<std::string, std::uint64_t> reads_;         // by path: the drift's tick
  std::uint64_t seed_ = 0;
  std::map<std::string, std::string> manager_reset_targets_;  // action target -> Manager path
  std::string simple_update_target_;
  std::string push_uri_;
  std::string tasks_path_;  // the TaskService's Tasks collection (made when the mockup has none)
  unsigned next_task_ = 1;
  std::map<std::string, std::string> pending_firmware_;  // entry path -> version at next reset
  std::map<std::string, std::vector<nlohmann::json>> added_sel_;  // by entries path, for saving
  std::map<std::string, std::string> health_set_;  // by system path: what set_health chose
  // GPUs a fault removed from their collection: collection path -> member links, to put back.
  std::map<std::string, std::vector<std::string>> missing_gpus_;
  // The EventService (empty paths: the mockup has none, and the URLs answer 404).
  std::string event_service_path_;
  std::string subscriptions_path_;
  std::string test_event_target_;
  bool event_service_enabled_ = true;                      // as the mockup says, before faults
  std::map<std::string, Subscription> subscriptions_;      // by path: the ones events go to
  std::vector<std::string> removed_mockup_subscriptions_;  // members of the mockup deleted
  unsigned next_subscription_ = 1;
  std::uint64_t next_event_ = 1;     // EventId
  std::uint64_t next_delivery_ = 1;  // an Event document's Id
  // The serial port (bmc_console.cpp): of the first System, behind the first Manager.
  HostConsole console_;
  std::string console_system_;
  std::string console_manager_;
  unsigned console_viewers_ = 0;
  // The virtual CD (bmc_media.cpp).
  std::string media_path_, media_insert_target_, media_eject_target_;
  std::string account_service_path_;
  std::set<std::string> accounts_;  // ManagerAccount paths
};

}  // namespace ironhold::sim::redfish
