#include "inventory/poller/poll_metrics.hpp"

#include <cstdio>

namespace ironhold {
namespace {

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

}  // namespace

void PollMetrics::observe(db::PollKind kind, std::chrono::microseconds latency,
                          const DriverOutcome& outcome) {
  auto& h = latency_[static_cast<std::size_t>(kind)];
  const double seconds = static_cast<double>(latency.count()) / 1e6;
  for (std::size_t i = 0; i < bucket_bounds.size(); ++i)
    if (seconds <= bucket_bounds[i]) h.buckets[i] += 1;
  h.count += 1;
  h.sum_us += static_cast<std::uint64_t>(std::max<std::int64_t>(latency.count(), 0));
  if (outcome.error)
    errors_[static_cast<std::size_t>(kind)][static_cast<std::size_t>(outcome.error->code)] += 1;
  else
    successes_[static_cast<std::size_t>(kind)] += 1;
}

std::string PollMetrics::render() const {
  std::string out;
  out +=
      "# HELP ironhold_poll_duration_seconds Time from sending a poll to its answer, by kind of "
      "poll.\n";
  out += "# TYPE ironhold_poll_duration_seconds histogram\n";
  for (std::size_t k = 0; k < kinds; ++k) {
    const std::string kind(to_string(static_cast<db::PollKind>(k)));
    const auto& h = latency_[k];
    for (std::size_t i = 0; i < bucket_bounds.size(); ++i)
      out += "ironhold_poll_duration_seconds_bucket{kind=\"" + kind + "\",le=\"" +
             number(bucket_bounds[i]) + "\"} " + std::to_string(h.buckets[i].load()) + "\n";
    out += "ironhold_poll_duration_seconds_bucket{kind=\"" + kind + "\",le=\"+Inf\"} " +
           std::to_string(h.count.load()) + "\n";
    out += "ironhold_poll_duration_seconds_sum{kind=\"" + kind + "\"} " +
           number(static_cast<double>(h.sum_us.load()) / 1e6) + "\n";
    out += "ironhold_poll_duration_seconds_count{kind=\"" + kind + "\"} " +
           std::to_string(h.count.load()) + "\n";
  }
  out +=
      "# HELP ironhold_polls_total Polls finished, by kind of poll and outcome (ok or an error "
      "code).\n";
  out += "# TYPE ironhold_polls_total counter\n";
  for (std::size_t k = 0; k < kinds; ++k) {
    const std::string kind(to_string(static_cast<db::PollKind>(k)));
    out += "ironhold_polls_total{kind=\"" + kind + "\",outcome=\"ok\"} " +
           std::to_string(successes_[k].load()) + "\n";
    for (std::size_t e = 0; e < error_codes; ++e)
      out += "ironhold_polls_total{kind=\"" + kind + "\",outcome=\"" +
             std::string(to_string(static_cast<DriverErrorCode>(e))) + "\"} " +
             std::to_string(errors_[k][e].load()) + "\n";
  }
  out += "# HELP ironhold_polls_claimed_total Polls leased from the schedule by this instance.\n";
  out += "# TYPE ironhold_polls_claimed_total counter\n";
  out += "ironhold_polls_claimed_total " + std::to_string(claimed_.load()) + "\n";
  out +=
      "# HELP ironhold_poll_record_failures_total Poll batches the database refused to record.\n";
  out += "# TYPE ironhold_poll_record_failures_total counter\n";
  out += "ironhold_poll_record_failures_total " + std::to_string(record_failures_.load()) + "\n";
  out +=
      "# HELP ironhold_poll_leases_lost_total Polls in flight whose lease another instance took "
      "(it had expired: the database was out of reach longer than the lease).\n";
  out += "# TYPE ironhold_poll_leases_lost_total counter\n";
  out += "ironhold_poll_leases_lost_total " + std::to_string(leases_lost_.load()) + "\n";
  out += "# HELP ironhold_polls_in_flight Polls waiting for a BMC right now.\n";
  out += "# TYPE ironhold_polls_in_flight gauge\n";
  out += "ironhold_polls_in_flight " + std::to_string(in_flight_.load()) + "\n";
  out +=
      "# HELP ironhold_polls_slow Polls in flight for longer than --poll-slow-after, no longer "
      "counted against --poll-max-in-flight.\n";
  out += "# TYPE ironhold_polls_slow gauge\n";
  out += "ironhold_polls_slow " + std::to_string(slow_.load()) + "\n";
  out +=
      "# HELP ironhold_polls_inspecting Inventory polls (inspections) in flight, at most "
      "--poll-max-inspections.\n";
  out += "# TYPE ironhold_polls_inspecting gauge\n";
  out += "ironhold_polls_inspecting " + std::to_string(inspecting_.load()) + "\n";
  return out;
}

}  // namespace ironhold
