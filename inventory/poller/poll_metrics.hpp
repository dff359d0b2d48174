#pragma once
// The poller's own measurements for GET /metrics: poll latency histograms per kind of poll and
// outcome counters per error code. Lock-free counters: updated on the poller's hot path.
#include <array>
#include <atomic>
#include <cstdint>
#include <string>

#include "inventory/db/poll_store.hpp"
#include "inventory/drivers/node_driver.hpp"

namespace ironhold {

class PollMetrics {
 public:
  // Upper bounds of the latency buckets, in seconds (Prometheus "le").
  static constexpr std::array<double, 12> bucket_bounds = {0.01, 0.025, 0.05, 0.1, 0.25, 0.5,
                                                           1,    2.5,   5,    10,  30,   60};
  static constexpr std::size_t kinds = 3;
  static constexpr std::size_t error_codes = 8;

  void observe(db::PollKind kind, std::chrono::microseconds latency, const DriverOutcome& outcome);
  void count_claimed(std::size_t n) { claimed_ += n; }
  void count_record_failure() { record_failures_ += 1; }
  // Polls in flight: those counted against max_in_flight, and those past slow_after.
  void set_in_flight(std::size_t counted, std::size_t slow) {
    in_flight_ = counted + slow;
    slow_ = slow;
  }
  std::size_t in_flight() const { return in_flight_; }  // slow ones included
  std::size_t slow_in_flight() const { return slow_; }
  void set_inspecting(std::size_t n) { inspecting_ = n; }
  std::size_t inspecting() const { return inspecting_; }  // inventory polls in flight
  void count_lease_lost(std::size_t n) { leases_lost_ += n; }
  std::uint64_t leases_lost() const { return leases_lost_; }

  // Prometheus text exposition of everything above (# HELP / # TYPE included).
  std::string render() const;

 private:
  struct Histogram {
    std::array<std::atomic<std::uint64_t>, bucket_bounds.size()> buckets{};
    std::atomic<std::uint64_t> count{0};
    std::atomic<std::uint64_t> sum_us{0};
  };
  std::array<Histogram, kinds> latency_;
  std::array<std::array<std::atomic<std::uint64_t>, error_codes>, kinds> errors_{};
  std::array<std::atomic<std::uint64_t>, kinds> successes_{};
  std::atomic<std::uint64_t> claimed_{0};
  std::atomic<std::uint64_t> record_failures_{0};
  std::atomic<std::size_t> in_flight_{0};
  std::atomic<std::size_t> slow_{0};
  std::atomic<std::size_t> inspecting_{0};
  std::atomic<std::uint64_t> leases_lost_{0};
};

}  // namespace ironhold
