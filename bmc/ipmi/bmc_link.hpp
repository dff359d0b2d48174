#pragma once
// One BMC as the driver's readers see it: commands go through the shared LanClient in that BMC's
// session. Failures come back as DriverErrors that name the command.
#include <boost/asio/awaitable.hpp>
#include <memory>
#include <string>

#include "bmc/ipmi/lan_client.hpp"

namespace ironhold::bmc::ipmi {

class BmcLink {
 public:
  // `params` prepared (SessionParams::prepare) and shared: a poll copies nothing.
  BmcLink(LanClient& client, std::shared_ptr<const SessionParams> params)
      : client_(client), params_(std::move(params)) {}

  // `command` must live until the call completes (as with LanClient::call).
  boost::asio::awaitable<CallResult> call(const Command& command) {
    return client_.call(*params_, command);
  }
  const SessionParams& params() const { return *params_; }

 private:
  LanClient& client_;
  std::shared_ptr<const SessionParams> params_;
};

// The error of a call that failed or was refused: the transport's, or the completion code by
// name ("Get SEL Info: insufficient privilege level"). 0xC1 (invalid command) is `unsupported`.
DriverError call_error(const CallResult& result, const std::string& what);

}  // namespace ironhold::bmc::ipmi
