#include "bmc/ipmi/sol_transfer.hpp"

#include <algorithm>

namespace ironhold::bmc::ipmi {

SolTransfer::SolTransfer(SolTransferOptions options) : options_(options) {
  options_.max_chunk = std::clamp<std::size_t>(options_.max_chunk, 1, 251);
}

bool SolTransfer::queue(ByteView characters) {
  if (queued() + characters.size() > options_.max_queued) return false;
  put(queue_, characters);
  return true;
}

SolTransfer::Received SolTransfer::receive(const SolPacket& packet, Clock::time_point now) {
  Received received;
  received.status = packet.status;
  if (packet.ack_sequence != 0 && in_flight_ && packet.ack_sequence == in_flight_->sequence) {
    if (packet.status & kSolNack) {
      // Not taken at all: the same packet again once the peer has had time to drain.
      in_flight_->due = now + options_.retry_interval;
      in_flight_->tries = 0;
    } else {
      const std::size_t taken = std::min<std::size_t>(packet.accepted, in_flight_->data.size());
      // The rest goes first in a new packet: it was sent before anything queued since.
      queue_.insert(queue_.begin(), in_flight_->data.begin() + static_cast<std::ptrdiff_t>(taken),
                    in_flight_->data.end());
      in_flight_.reset();
    }
  }
  if (packet.sequence != 0) {
    if (packet.sequence != last_received_) {
      received.characters = packet.data;
      last_received_ = packet.sequence;
    }
    // A repeat means our acknowledgement was lost: acknowledge it again, take nothing twice.
    owed_ = Ack{packet.sequence,
                static_cast<std::uint8_t>(std::min<std::size_t>(packet.data.size(), 0xFF))};
  }
  return received;
}

std::optional<SolPacket> SolTransfer::next(Clock::time_point now) {
  if (owed_) {
    SolPacket ack;
    ack.ack_sequence = owed_->sequence;
    ack.accepted = owed_->accepted;
    owed_.reset();
    return ack;
  }
  if (peer_gone_) return std::nullopt;
  if (!in_flight_ && (!queue_.empty() || operation_ != 0)) {
    InFlight packet;
    packet.sequence = next_sequence_;
    next_sequence_ = next_sequence_ == 15 ? 1 : next_sequence_ + 1;
    const std::size_t size = std::min(options_.max_chunk, queue_.size());
    packet.data.assign(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(size));
    queue_.erase(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(size));
    packet.operation = operation_;
    operation_ = 0;
    packet.due = now;
    in_flight_ = std::move(packet);
  }
  if (!in_flight_ || now < in_flight_->due) return std::nullopt;
  if (in_flight_->tries >= options_.retries) {
    peer_gone_ = true;
    return std::nullopt;
  }
  if (in_flight_->tries > 0) ++retransmissions_;
  ++in_flight_->tries;
  in_flight_->due = now + options_.retry_interval;
  SolPacket out;
  out.sequence = in_flight_->sequence;
  out.status = in_flight_->operation;
  out.data = in_flight_->data;
  return out;
}

std::optional<SolTransfer::Clock::time_point> SolTransfer::deadline() const {
  if (owed_ || (!peer_gone_ && !in_flight_ && (!queue_.empty() || operation_ != 0)))
    return Clock::time_point::min();
  if (in_flight_ && !peer_gone_) return in_flight_->due;
  return std::nullopt;
}

}  // namespace ironhold::bmc::ipmi
