#pragma once
// The character transfer of a Serial-over-LAN payload, one side of it (IPMI v2.0
// section 15.9-15.11), without a socket or a clock of its own: the console and the simulated BMC
// both use it.
//
// Each side sends characters in numbered packets (1-15, wrapping), one packet in flight at a
// time, and acknowledges every packet it receives with how many characters it took. A packet not
// acknowledged within the retry interval is sent again, the same number and characters, up to
// `retries` times; then the peer counts as gone. A partial acceptance sends the rest in a new
// packet; a NACK ("cannot take characters now") sends the same packet again after the interval.
// A packet received twice (our acknowledgement was lost) is acknowledged again and its characters
// are not delivered twice. Acknowledgements travel in packets of their own (sequence 0), which
// every BMC and console accepts.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>

#include "bmc/ipmi/bytes.hpp"
#include "bmc/ipmi/sol_packet.hpp"

namespace ironhold::bmc::ipmi {

struct SolTransferOptions {
  std::chrono::milliseconds retry_interval{500};
  int retries = 7;
  // Characters per packet: the peer's inbound payload size (Activate Payload) less the 4 header
  // bytes. 200 is what every BMC seen takes.
  std::size_t max_chunk = 200;
  // Characters waiting to go out at most; more is refused rather than buffered without bound.
  std::size_t max_queued = 64 * 1024;
};

class SolTransfer {
 public:
  using Clock = std::chrono::steady_clock;

  explicit SolTransfer(SolTransferOptions options = {});

  // Queues characters to send; false (nothing taken) when they would pass max_queued.
  bool queue(ByteView characters);
  // Operation bits (kSolGenerateBreak, ...) for the next new packet, sent even with no characters.
  void request_operation(std::uint8_t bits) { operation_ |= bits; }

  struct Received {
    Bytes characters;         // new characters, in order (none for a duplicate)
    std::uint8_t status = 0;  // byte 3 of the packet
  };
  Received receive(const SolPacket& packet, Clock::time_point now);

  // The next packet to send at `now`: an acknowledgement owed, new characters, or a retry that
  // is due. Call until it gives nothing.
  std::optional<SolPacket> next(Clock::time_point now);
  // When next() will have a retry to send, if one is waiting.
  std::optional<Clock::time_point> deadline() const;

  // The peer let `retries` tries of one packet go unanswered.
  bool peer_gone() const { return peer_gone_; }
  std::size_t queued() const { return queue_.size() + (in_flight_ ? in_flight_->data.size() : 0); }
  std::uint64_t retransmissions() const { return retransmissions_; }

 private:
  struct InFlight {
    std::uint8_t sequence = 0;
    Bytes data;
    std::uint8_t operation = 0;
    Clock::time_point due;  // when to send it (again)
    int tries = 0;
  };

  SolTransferOptions options_;
  Bytes queue_;
  std::optional<InFlight> in_flight_;
  std::uint8_t next_sequence_ = 1;
  std::uint8_t operation_ = 0;
  std::uint8_t last_received_ = 0;  // the sequence number of the last packet taken
  struct Ack {
    std::uint8_t sequence = 0, accepted = 0;
  };
  std::optional<Ack> owed_;
  bool peer_gone_ = false;
  std::uint64_t retransmissions_ = 0;
};

}  // namespace ironhold::bmc::ipmi
