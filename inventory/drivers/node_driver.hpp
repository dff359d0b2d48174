#pragma once
// The node driver interface: what the poller and the task engine ask of a BMC or a cloud
// instance. inventory/ defines it; bmc/redfish, bmc/ipmi and cloudapi/ implement it. Calls are
// asynchronous and never throw for anything the far side does: failures come back as a
// DriverError in the report, so one bad BMC is a recorded error on its node and nothing else.
#include <boost/asio/awaitable.hpp>
#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "inventory/model/endpoint.hpp"
#include "inventory/model/hardware.hpp"
#include "inventory/model/node.hpp"

namespace ironhold {

// Stable codes: they become the node's `last_error` and scripts match on them.
enum class DriverErrorCode {
  unreachable,       // connection refused / reset / no route
  timeout,           // connect or total timeout
  auth_failed,       // the BMC rejected the credentials (never retried quickly: accounts lock)
  tls_pin_mismatch,  // the certificate is not the pinned one (refused inside the handshake)
  tls_failed,        // any other TLS failure (CA verification, handshake)
  bad_response,      // invalid JSON, wrong types, too large, redirects, missing resources
  unsupported,       // the BMC does not offer this (no such action, reset type not allowed)
  rejected,          // the BMC answered the request with an error (4xx/5xx after retries)
};
std::string_view to_string(DriverErrorCode code);

struct DriverError {
  DriverErrorCode code = DriverErrorCode::bad_response;
  std::string message;  // for a person: what was asked, what came back (never a credential)
};

// What every call reports besides its result.
struct DriverOutcome {
  std::optional<DriverError> error;
  // The TLS leaf certificate fingerprint (lower-case hex SHA-256) the BMC presented, so that the
  // caller can pin it on first contact.
  std::optional<std::string> tls_fingerprint;
  bool ok() const { return !error; }
};

// Who to talk to. Built by the poller from the node row and its opened secrets.
struct DriverTarget {
  std::string node_id;
  std::string node_name;
  Endpoint endpoint;
  nlohmann::json options = nlohmann::json::object();  // validated bmc options (tls, ca_bundle, ...)
  std::optional<Credentials> credentials;
  std::optional<std::string> pinned_fingerprint;  // absent before the first contact
  // The BMC's SSH host key ("SHA256:...") pinned by its first SSH serial console.
  std::optional<std::string> pinned_ssh_host_key;
  std::optional<std::string> kg;  // IPMI BMC key K_G (hex), a write-only secret
  // Polls only: how many polls of this kind failed in a row before this one. A driver retries
  // less within a poll of a BMC that is already failing: the next poll is the retry, and the
  // healthy rest of the fleet should not wait behind reconnections to broken BMCs.
  int previous_failures = 0;
  // Polls only, and may be empty: called (on any thread) when the poll stops to wait on a timer
  // of its own, such as a retry's backoff, rather than on the BMC. A poll that only waits is not
  // work: the poller stops counting it against the polls it runs at once.
  std::function<void()> on_wait;
};

struct StatusReport : DriverOutcome {
  std::vector<SystemStatus> systems;  // in the service's Members order; [0] is the enrolled node
};
struct SensorReport : DriverOutcome {
  std::vector<SystemSensors> systems;
};
struct InspectionReport : DriverOutcome {
  std::vector<SystemInventory> systems;
  std::optional<std::string> manager_firmware;  // the BMC's own firmware version
};

enum class PowerAction { on, off, cycle, reset, soft_off };
std::string_view to_string(PowerAction action);
template <>
std::optional<PowerAction> parse_enum<PowerAction>(std::string_view);
template <>
std::span<const std::string_view> enum_names<PowerAction>();

enum class BootDevice { pxe, disk, cd, bios };
enum class BootMode { uefi, legacy };
std::string_view to_string(BootDevice device);
template <>
std::optional<BootDevice> parse_enum<BootDevice>(std::string_view);
template <>
std::span<const std::string_view> enum_names<BootDevice>();

struct BootRequest {
  BootDevice device = BootDevice::pxe;
  bool persistent = false;       // Continuous instead of Once
  std::optional<BootMode> mode;  // leave the BMC's mode alone when absent
};

struct ActionReport : DriverOutcome {
  std::string detail;  // what was sent, e.g. "ResetType ForceOff" or "ForceOff then On"
};

// How the image reaches the BMC. pull: the BMC downloads it from a signed URL of this service
// (Redfish UpdateService.SimpleUpdate); push: this service sends it to the BMC (Redfish
// UpdateService.MultipartHttpPushUri), for BMCs that cannot reach the service or take no URL;
// automatic: pull when the BMC takes the URL, else push.
enum class FirmwareTransfer { automatic, pull, push };
std::string_view to_string(FirmwareTransfer transfer);  // "auto", "pull", "push"
template <>
std::optional<FirmwareTransfer> parse_enum<FirmwareTransfer>(std::string_view);
template <>
std::span<const std::string_view> enum_names<FirmwareTransfer>();

// A local copy of an image for a push, removed from the disk when the last holder lets go.
class SpooledImage {
 public:
  SpooledImage(std::string path, std::int64_t size) : path_(std::move(path)), size_(size) {}
  ~SpooledImage();
  SpooledImage(const SpooledImage&) = delete;
  SpooledImage& operator=(const SpooledImage&) = delete;
  const std::string& path() const { return path_; }
  std::int64_t size() const { return size_; }

 private:
  std::string path_;
  std::int64_t size_;
};
using SpoolResult = std::variant<std::shared_ptr<const SpooledImage>, DriverError>;

// A firmware update the BMC carries out itself once it has the image.
struct FirmwareUpdateRequest {
  FirmwareTransfer transfer = FirmwareTransfer::automatic;
  // For a pull: a signed, expiring URL under --advertise-url. It is a download capability:
  // reports and logs name it without its query. Empty when this service has no advertised URL
  // (then only a push is possible).
  std::string image_url;
  // For a push: the file name the BMC is told, and the image's bytes in a local file, made only
  // when the driver pushes (copying an image out of the database is not free).
  std::string image_name;
  std::function<boost::asio::awaitable<SpoolResult>()> spool;
  // Called once the driver knows what it will send and right before it sends it, with what will
  // identify this update on the BMC later (a JSON object the caller keeps and hands back to
  // find_firmware_update after a crash). The caller records that the update is being sent;
  // false means "do not send" (the task was interrupted). Not set: sent without asking.
  std::function<boost::asio::awaitable<bool>(nlohmann::json)> before_send;
};

enum class UpdateState {
  running,    // accepted; the BMC is downloading or flashing
  completed,  // the BMC reports success (the new firmware may await a reset: awaits_reset)
  failed,     // the BMC reports failure (its message says why)
  gone,       // no such update: the BMC has no task for it (never started, or forgotten)
};
std::string_view to_string(UpdateState state);

struct FirmwareUpdateReport : DriverOutcome {
  // What to follow the update by (a Redfish Task or task monitor path); empty when the BMC
  // finished at once and left nothing to follow.
  std::string monitor;
  UpdateState state = UpdateState::running;
  int percent = -1;           // -1: the BMC does not say
  bool awaits_reset = false;  // completed, staged: active after the System's next reset
  std::string message;        // the BMC's latest message, for a person
};

// Pushed hardware events: this service subscribes itself on the BMC (a Redfish EventService
// EventDestination) so that the BMC sends what happens as it happens.
struct EventSubscriptionRequest {
  std::string destination;  // where the BMC posts: <advertise-url>/api/v1/redfish-events/<secret>
  std::string context;      // echoed in every event the BMC sends ("ironhold <node id>")
  // Every destination of ours starts with this (<advertise-url>/api/v1/redfish-events/): a
  // subscription on the BMC that does is an older one of ours, removed before the new one is made.
  std::string ours_prefix;
  std::string previous;  // the BMC's path of our last subscription, removed too (empty: none)
};

struct EventSubscriptionReport : DriverOutcome {
  std::string subscription;  // the BMC's path of the subscription made
  int removed = 0;           // older subscriptions of ours removed first
};

enum class SubscriptionState {
  present,  // the BMC still has it
  gone,     // the BMC has no such subscription (deleted, terminated after failed deliveries)
};

struct SubscriptionCheck : DriverOutcome {
  SubscriptionState state = SubscriptionState::gone;
  // Where it posts, as the BMC shows it (many hide it: then nothing).
  std::optional<std::string> destination;
};

// The serial console of a node's host, as a driver opens it (IPMI Serial-over-LAN; the SSH
// serial console of Redfish BMCs): bytes both ways until either side ends it. What the service
// builds on it (one writer, many readers, the console log, the audit) is inventory/console/'s.
struct ConsoleEvents {
  // What the host printed, in order; called on the driver's threads, never concurrently.
  std::function<void(std::string_view bytes)> output;
  // The console ended from the BMC's side (taken over, silent, session lost); called once, and
  // not after close().
  std::function<void(const DriverError& why)> ended;
};

class NodeConsole {
 public:
  virtual ~NodeConsole() = default;
  // Keystrokes for the host; false when too much is still unsent (nothing was taken) or the
  // console has ended. Any thread.
  virtual bool write(std::string_view bytes) = 0;
  // A serial break (Magic SysRq on Linux hosts). Any thread.
  virtual void send_break() = 0;
  // Ends it from this side (the BMC's console is released for others).
  virtual boost::asio::awaitable<void> close() = 0;
  virtual bool is_open() const = 0;
};

struct ConsoleOpenReport : DriverOutcome {
  std::shared_ptr<NodeConsole> console;
  std::string protocol;  // "ipmi-sol", "ssh"
  // An SSH console: the host key the BMC presented ("SHA256:..."), for the caller to pin on
  // first use (DriverTarget::pinned_ssh_host_key).
  std::optional<std::string> ssh_host_key;
};

// A System's BIOS as read for a task: the settings, what waits in the settings object for the
// next reset, and what the BMC said about the last time settings were applied.
struct BiosReport : DriverOutcome {
  std::optional<BiosSettings> bios;  // absent: the BMC offers no BIOS settings (then `error`)
  nlohmann::json pending = nlohmann::json::object();  // the settings object's Attributes
  // @Redfish.Settings.Messages of the Bios resource, "MessageId: Message (RelatedProperties)".
  std::vector<std::string> messages;
  // Attributes those messages name (from RelatedProperties "/Attributes/X" or "#/X", or
  // MessageArgs), with a MessageId other than Success: attributes the BIOS refused.
  std::vector<std::string> refused;
};

class NodeDriver {
 public:
  virtual ~NodeDriver() = default;

  // Power state and health of every System behind the endpoint (cheap: the 30-second poll).
  virtual boost::asio::awaitable<StatusReport> poll_status(const DriverTarget& target) = 0;
  // Sensor readings and log entries not reported before by this driver instance.
  virtual boost::asio::awaitable<SensorReport> poll_sensors(const DriverTarget& target) = 0;
  // The full inventory (identity, components, firmware, sensors, logs).
  virtual boost::asio::awaitable<InspectionReport> inspect(const DriverTarget& target) = 0;

  // `system_id` picks the System behind a shared endpoint (empty: the first).
  virtual boost::asio::awaitable<ActionReport> power(const DriverTarget& target,
                                                     std::string system_id, PowerAction action) = 0;
  virtual boost::asio::awaitable<ActionReport> set_boot(const DriverTarget& target,
                                                        std::string system_id,
                                                        BootRequest boot) = 0;
  virtual boost::asio::awaitable<ActionReport> identify(const DriverTarget& target,
                                                        std::string system_id, bool on) = 0;
  virtual boost::asio::awaitable<ActionReport> reset_controller(const DriverTarget& target) = 0;

  // Firmware updates; a driver that has none (IPMI has no standard one) answers `unsupported`.
  // Starts one and reports how it stands right after.
  virtual boost::asio::awaitable<FirmwareUpdateReport> start_firmware_update(
      const DriverTarget& target, FirmwareUpdateRequest request);
  // Reads how the update that `monitor` names stands now.
  virtual boost::asio::awaitable<FirmwareUpdateReport> firmware_update_status(
      const DriverTarget& target, std::string monitor);
  // After a crash while an update was being started: the BMC's update for `request`, if it has
  // one (state gone when it has none), so that it is followed rather than started twice. `sent`
  // is what before_send was given.
  virtual boost::asio::awaitable<FirmwareUpdateReport> find_firmware_update(
      const DriverTarget& target, FirmwareUpdateRequest request, nlohmann::json sent);

  // Pushed events; a driver without them (IPMI: SEL polling stays) answers `unsupported`, as does
  // a BMC without a usable EventService. Subscribes, removing older subscriptions of ours first.
  virtual boost::asio::awaitable<EventSubscriptionReport> subscribe_events(
      const DriverTarget& target, EventSubscriptionRequest request);
  // Whether the subscription at `path` is still there, and where it posts.
  virtual boost::asio::awaitable<SubscriptionCheck> check_event_subscription(
      const DriverTarget& target, std::string path);
  // Removes it; one the BMC no longer has counts as removed.
  virtual boost::asio::awaitable<DriverOutcome> unsubscribe_events(const DriverTarget& target,
                                                                   std::string path);

  // Mounts the ISO at `image_url` (http or https, which the BMC downloads) as the System's virtual
  // CD, and checks that it shows mounted; an image mounted already is left. A driver or BMC
  // without virtual media answers `unsupported`. `detail` never shows the URL's query (it may be
  // a signature).
  virtual boost::asio::awaitable<ActionReport> insert_virtual_media(const DriverTarget& target,
                                                                    std::string system_id,
                                                                    std::string image_url);
  // Ejects whatever the virtual CD holds; nothing mounted is success.
  virtual boost::asio::awaitable<ActionReport> eject_virtual_media(const DriverTarget& target,
                                                                   std::string system_id);

  // The host's serial console (node_console.hpp); a driver or BMC without one answers
  // `unsupported`. The caller keeps the console and closes it.
  virtual boost::asio::awaitable<ConsoleOpenReport> open_console(const DriverTarget& target,
                                                                 std::string system_id,
                                                                 ConsoleEvents events);

  // The System's BIOS settings (Redfish Bios and its @Redfish.Settings object); a driver or BMC
  // without them answers `unsupported`.
  virtual boost::asio::awaitable<BiosReport> read_bios(const DriverTarget& target,
                                                       std::string system_id);
  // Writes `change` to the BIOS settings object (attributes) and the System (boot order) with the
  // apply time asked; the BIOS takes them at the next reset unless the apply time is Immediate.
  // Writing values the settings object holds already is harmless, so a resumed task may resend.
  virtual boost::asio::awaitable<ActionReport> write_bios(const DriverTarget& target,
                                                          std::string system_id, BiosChange change);
  // Changes the password of the BMC account the target logs in with (its credentials' username)
  // to `new_password`: Redfish AccountService, IPMI Set User Password. A driver or BMC without
  // user management answers `unsupported`. No report, detail or error ever holds either password.
  virtual boost::asio::awaitable<ActionReport> change_bmc_password(const DriverTarget& target,
                                                                   std::string new_password);
  // Logs in afresh with the target's credentials (no session opened before is used) and reports
  // whether the BMC takes them: auth_failed when it refuses them.
  virtual boost::asio::awaitable<DriverOutcome> check_login(const DriverTarget& target);
  // Logs out of every session it holds (at service shutdown). Never throws.
  virtual boost::asio::awaitable<void> shutdown() = 0;
};

}  // namespace ironhold
