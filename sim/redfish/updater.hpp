#pragma once
// What a simulated BMC does with an image SimpleUpdate accepted: it downloads it (over plain
// HTTP, as Ironhold's signed URLs are in tests and the demo) — or takes the bytes a client pushed
// to MultipartHttpPushUri —, checks it, and runs the update as a Redfish Task that a client
// follows to Completed or Exception. The simulated firmware reads its component and version from
// the image's first line:
//   IRONHOLD-FIRMWARE component=BMC version=2.1.0 [activate=reset]
// (activate=reset: the new version shows after the System's next reset, as a BIOS does).
#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ironhold::sim::redfish {

class BmcState;

// Images up to this size are accepted, downloaded or pushed (the simulator holds one in memory
// while it "flashes").
inline constexpr std::size_t max_image_bytes = 256u << 20;

struct UpdaterOptions {
  std::chrono::milliseconds update_time{5000};  // from the download to the end of the Task
};

// An update SimpleUpdate or a push accepted, as BmcState hands it on.
struct FirmwareJob {
  unsigned bmc = 0;
  std::string task;                  // the Task's @odata.id
  std::string image_uri;             // SimpleUpdate: where to download the image from
  std::optional<std::string> image;  // a push: the image itself, nothing to download
  std::vector<std::string> targets;  // firmware inventory entries named; empty: from the image
  bool apply_on_reset = false;       // the push's OperationApplyTime was OnReset
  bool fails = false;                // the BMC's faults when it accepted the image
  bool hangs = false;
};

// The image's IRONHOLD-FIRMWARE line, or nothing.
struct ImageHeader {
  std::string component, version;
  bool activate_on_reset = false;
};
std::optional<ImageHeader> read_image_header(const std::string& image);

class Updater {
 public:
  // `bmc(i)`: the fleet's BMC i.
  Updater(boost::asio::io_context& io, UpdaterOptions options,
          std::function<BmcState&(unsigned)> bmc);
  void start(FirmwareJob job);  // returns at once (callable under BmcState's lock)

 private:
  boost::asio::awaitable<void> run(FirmwareJob job);
  // The image at job.image_uri, or nothing once the Task has been failed for it.
  boost::asio::awaitable<std::optional<std::string>> download(const FirmwareJob& job);

  boost::asio::io_context& io_;
  UpdaterOptions options_;
  std::function<BmcState&(unsigned)> bmc_;
};

}  // namespace ironhold::sim::redfish
