#pragma once
// A Serial-over-LAN console to one BMC (IPMI v2.0 sections 15 and 24): the host's serial port,
// both ways, inside an RMCP+ session of its own (never the polls' session, so a console held open
// for hours does not pin or disturb them).
//
// open() logs in, activates the SOL payload and starts moving characters; a BMC that says the
// console is already active (a console left behind by a crashed client, ours or ipmitool's) gets
// a Deactivate Payload and one more try, as Ironic's console does. Characters written go out in
// numbered packets, retried until acknowledged (sol_transfer.hpp); characters the host prints
// arrive through `output`. The console ends, with `ended` called once, when the BMC deactivates
// it (another client took it), stops answering, or forgets the session; close() ends it from
// this side (Deactivate Payload, Close Session) and calls nothing.
#include <boost/asio/awaitable.hpp>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <variant>

#include "bmc/ipmi/lan_client.hpp"
#include "bmc/ipmi/sol_transfer.hpp"

namespace ironhold::bmc::ipmi {

struct SolConsoleEvents {
  std::function<void(std::string_view characters)> output;  // on the client's strand
  std::function<void(const DriverError& why)> ended;
};

struct SolConsoleStats {
  std::uint64_t characters_in = 0, characters_out = 0;
  std::uint64_t retransmissions = 0;
};

class SolConsole {
 public:
  struct State;

  // The console, or why not: credentials refused (auth_failed), no answer (timeout), SOL
  // disabled or refused by the BMC (unsupported / rejected, with the BMC's reason).
  static boost::asio::awaitable<std::variant<std::shared_ptr<SolConsole>, DriverError>> open(
      LanClient& client, SessionParams params, SolConsoleEvents events,
      SolTransferOptions options = {});

  explicit SolConsole(std::shared_ptr<State> state) : state_(std::move(state)) {}
  ~SolConsole();  // closes, if close() was not awaited
  SolConsole(const SolConsole&) = delete;
  SolConsole& operator=(const SolConsole&) = delete;

  // Characters for the host (keystrokes). False when too much is still unsent (the BMC is
  // slower than the typist), and nothing of `characters` was taken. Any thread.
  bool write(std::string_view characters);
  // A serial break (Magic SysRq on Linux hosts) with the next packet. Any thread.
  void send_break();
  boost::asio::awaitable<void> close();
  bool open() const;
  SolConsoleStats stats() const;

 private:
  std::shared_ptr<State> state_;
};

}  // namespace ironhold::bmc::ipmi
