#pragma once
// What the simulator commands (`ironhold sim redfish|ipmi|openstack|ec2|bcc`) share: bounded
// numeric options, the http:// origin of a bound address, and printing the one JSON line scripts
// read before serving until SIGINT/SIGTERM.
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

namespace ironhold::app {

// `text` as a number from min to max; cli::UsageError naming --option otherwise.
unsigned long long parse_bounded(const std::string& text, const std::string& option,
                                 unsigned long long min, unsigned long long max);

// "http://127.0.0.1:8774", "http://[::1]:8774".
std::string http_origin(const boost::asio::ip::tcp::endpoint& bound);

// Prints `line` on stdout (flushed: scripts wait for it), then runs `io` until SIGINT or SIGTERM,
// calling `on_stop` first. `label` names the simulator in the log. Returns the exit status (0).
int print_and_serve(boost::asio::io_context& io, const nlohmann::json& line,
                    const std::string& label, std::function<void()> on_stop = {});

}  // namespace ironhold::app
