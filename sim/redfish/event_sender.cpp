#include "sim/redfish/event_sender.hpp"

#include <algorithm>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/string.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http.hpp>
#include <deque>
#include <map>
#include <string>
#include <utility>

#include "sim/redfish/bmc_state.hpp"
#include "web/impl/byte_stream.hpp"

namespace ironhold::sim::redfish {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace ssl = asio::ssl;
using tcp = asio::ip::tcp;

struct EventSenderState {
  EventSenderState(asio::io_context& context, EventSenderOptions o,
                   std::function<BmcState&(unsigned)> lookup)
      : io(context), options(o), bmc(std::move(lookup)), tls(ssl::context::tls_client) {
    tls.set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                    ssl::context::no_sslv3);
    tls.set_verify_mode(ssl::verify_none);
  }

  struct Queue {
    std::deque<std::string> bodies;
    bool draining = false;  // a coroutine is sending them
  };
  using Key = std::pair<unsigned, std::string>;  // BMC, subscription path

  asio::io_context& io;
  EventSenderOptions options;
  std::function<BmcState&(unsigned)> bmc;
  ssl::context tls;
  std::map<Key, Queue> queues;
};

namespace {

using EventRequest = http::request<http::string_body>;

// Sends the request and reads the answer's status (0: none), within the stream's deadline.
asio::awaitable<int> exchange_event(net::ByteStream& stream, EventRequest& request) {
  boost::system::error_code ec;
  auto token = asio::redirect_error(asio::use_awaitable, ec);
  co_await http::async_write(stream, request, token);
  if (ec) co_return 0;
  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.body_limit(64 * 1024);  // a receiver's answer is a formality
  co_await http::async_read(stream, buffer, parser, token);
  if (ec) co_return 0;
  co_return static_cast<int>(parser.get().result_int());
}

// One attempt: true when the destination answered 2xx.
asio::awaitable<bool> post_event_once(std::shared_ptr<EventSenderState> state,
                                      DeliveryTarget target, std::string body) {
  const DestinationUrl& url = target.url;
  const std::string host =
      url.host.find(':') != std::string::npos ? "[" + url.host + "]" : url.host;
  EventRequest request{http::verb::post, url.target, 11};
  request.set(http::field::host, host + ":" + url.port);
  request.set(http::field::user_agent, "ironhold-sim");
  request.set(http::field::content_type, "application/json");
  request.set("OData-Version", "4.0");
  // As given: the first of a name replaces ours (a Content-Type of its own), repeats are added.
  std::vector<std::string> seen;
  for (const auto& [name, value] : target.headers) {
    const bool again = std::any_of(seen.begin(), seen.end(), [&](const std::string& earlier) {
      return beast::iequals(earlier, name);
    });
    if (again)
      request.insert(name, value);
    else
      request.set(name, value);
    seen.push_back(name);
  }
  request.keep_alive(false);
  request.body() = std::move(body);
  request.prepare_payload();

  auto executor = co_await asio::this_coro::executor;
  boost::system::error_code ec;
  auto token = asio::redirect_error(asio::use_awaitable, ec);
  tcp::resolver resolver(executor);
  const auto endpoints = co_await resolver.async_resolve(url.host, url.port, token);
  if (ec) co_return false;
  beast::tcp_stream stream(executor);
  stream.expires_after(state->options.timeout);  // one deadline for the whole attempt
  co_await stream.async_connect(endpoints, token);
  if (ec) co_return false;
  std::unique_ptr<net::ByteStream> connection = url.tls
                                                    ? net::tls_stream(std::move(stream), state->tls)
                                                    : net::plain_stream(std::move(stream));
  auto handshaking = connection->handshake(/*as_server=*/false, url.host);
  if (co_await std::move(handshaking)) co_return false;
  auto exchanging = exchange_event(*connection, request);
  const int status = co_await std::move(exchanging);
  co_return status >= 200 && status < 300;
}

// One event, tried until it is delivered, given up or its subscription is gone.
asio::awaitable<void> deliver_one_event(std::shared_ptr<EventSenderState> state,
                                        EventSenderState::Key key, std::string body) {
  BmcState& bmc = state->bmc(key.first);
  asio::steady_timer pause(state->io);
  for (unsigned failures = 0;;) {
    const std::optional<DeliveryTarget> target = bmc.delivery_target(key.second);
    if (!target) {
      bmc.delivery_dropped();
      co_return;
    }
    auto attempt = post_event_once(state, *target, body);
    const bool delivered = co_await std::move(attempt);
    if (delivered) {
      bmc.delivery_succeeded();
      co_return;
    }
    bmc.delivery_failed();
    if (target->policy != RetryPolicy::retry_forever && ++failures > target->retry_attempts) {
      bmc.delivery_gave_up(key.second);
      co_return;
    }
    pause.expires_after(state->options.retry_interval.value_or(target->retry_interval));
    boost::system::error_code ec;
    co_await pause.async_wait(asio::redirect_error(asio::use_awaitable, ec));
  }
}

// Sends a subscription's queued events in order; ends (and forgets the queue) when it is empty.
asio::awaitable<void> drain_events(std::shared_ptr<EventSenderState> state,
                                   EventSenderState::Key key) {
  for (;;) {
    const auto it = state->queues.find(key);
    if (it == state->queues.end()) co_return;
    if (it->second.bodies.empty()) {
      state->queues.erase(it);
      co_return;
    }
    std::string body = std::move(it->second.bodies.front());
    it->second.bodies.pop_front();
    auto delivering = deliver_one_event(state, key, std::move(body));
    co_await std::move(delivering);
  }
}

asio::awaitable<void> settle_later(std::shared_ptr<EventSenderState> state, PowerSettle settle) {
  asio::steady_timer timer(state->io);
  timer.expires_after(settle.in);
  boost::system::error_code ec;
  co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
  if (ec) co_return;
  state->bmc(settle.bmc).power_settled(settle.system, settle.generation);
}

}  // namespace

EventSender::EventSender(asio::io_context& io, EventSenderOptions options,
                         std::function<BmcState&(unsigned)> bmc)
    : state_(std::make_shared<EventSenderState>(io, options, std::move(bmc))) {}

EventSender::~EventSender() = default;

void EventSender::send(EventDelivery delivery) {
  // Posted, never run inline: the caller holds the BMC's lock, which the outcomes take.
  asio::post(state_->io, [state = state_, delivery = std::move(delivery)]() mutable {
    EventSenderState::Key key{delivery.bmc, delivery.subscription};
    auto& queue = state->queues[key];
    if (queue.bodies.size() >= state->options.max_queued) {
      state->bmc(delivery.bmc).delivery_dropped();
      return;
    }
    queue.bodies.push_back(std::move(delivery.body));
    if (queue.draining) return;
    queue.draining = true;
    asio::co_spawn(state->io, drain_events(state, std::move(key)), asio::detached);
  });
}

void EventSender::settle_power(PowerSettle settle) {
  asio::post(state_->io, [state = state_, settle = std::move(settle)]() mutable {
    asio::co_spawn(state->io, settle_later(state, std::move(settle)), asio::detached);
  });
}

}  // namespace ironhold::sim::redfish
