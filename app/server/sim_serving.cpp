#include "app/server/sim_serving.hpp"

#include <boost/asio/signal_set.hpp>
#include <charconv>
#include <csignal>
#include <iostream>

#include "app/cli/args.hpp"
#include "app/server/url_host.hpp"
#include "inventory/util/concat.hpp"
#include "inventory/util/log.hpp"

namespace ironhold::app {

unsigned long long parse_bounded(const std::string& text, const std::string& option,
                                 unsigned long long min, unsigned long long max) {
  unsigned long long value = 0;
  const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || p != text.data() + text.size() || value < min || value > max)
    throw cli::UsageError("--" + option + " must be a number from " + std::to_string(min) + " to " +
                          std::to_string(max) + ", got \"" + text + "\"");
  return value;
}

std::string http_origin(const boost::asio::ip::tcp::endpoint& bound) {
  return util::concat("http://", host_port(bound));
}

int print_and_serve(boost::asio::io_context& io, const nlohmann::json& line,
                    const std::string& label, std::function<void()> on_stop) {
  boost::asio::signal_set signals(io, SIGINT, SIGTERM);
  signals.async_wait([&io, &label, &on_stop](const boost::system::error_code& ec, int signal) {
    if (ec) return;
    log::info(label + " stopping", {{"signal", signal}});
    if (on_stop) on_stop();
    io.stop();
  });
  std::cout << line.dump() << "\n" << std::flush;
  log::info(label + " serving", {{"endpoint", line.value("endpoint", "")}});
  io.run();
  return 0;
}

}  // namespace ironhold::app
