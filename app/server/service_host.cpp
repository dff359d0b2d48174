#include "app/server/service_host.hpp"

#include <future>

#include "inventory/util/log.hpp"

namespace ironhold::app {

ServiceHost::ServiceHost(const ServiceConfig& config)
    : config_(config),
      database_(std::make_unique<db::Database>(
          db::DatabaseOptions{config.database_url, config.database_connections})),
      box_(config.master_key),
      nodes_(std::make_unique<db::NodeStore>(*database_, box_)),
      tokens_(std::make_unique<db::TokenStore>(*database_)),
      audit_(std::make_unique<db::AuditStore>(*database_)),
      io_(config.io_threads),
      blocking_pool_(static_cast<std::size_t>(config.database_connections)) {
  services_ = std::make_unique<web::Services>(
      web::Services{*database_, *nodes_, *tokens_, *audit_, blocking_pool_});
  api_ = std::make_unique<web::Api>(*services_);
  web::register_all_routes(*api_);
  server_ = std::make_unique<web::Server>(io_, *api_, config.server);
}

ServiceHost::~ServiceHost() { stop(); }

boost::asio::ip::tcp::endpoint ServiceHost::start() {
  auto endpoint = server_->listen(web::parse_listen_address(config_.listen));
  for (int i = 0; i < std::max(1, config_.io_threads); ++i) threads_.emplace_back([this] { io_.run(); });
  return endpoint;
}

void ServiceHost::stop() {
  if (stopped_) return;
  stopped_ = true;
  if (!threads_.empty()) {
    std::promise<void> drained;
    server_->shutdown([&drained] { drained.set_value(); });
    drained.get_future().wait();
  }
  io_.stop();
  for (auto& t : threads_) t.join();
  threads_.clear();
  blocking_pool_.join();
}

}  // namespace ironhold::app
