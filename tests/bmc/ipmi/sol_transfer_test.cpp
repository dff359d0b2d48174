// The SOL character transfer against the rules of IPMI v2.0 section 15.9-15.11, one side at a
// time, with a hand-driven clock: numbering 1-15 and its wrap, one packet in flight, retries of
// the same packet, partial acceptance, NACK, a repeated packet acknowledged but not delivered
// twice, and a peer that never answers.
#include "bmc/ipmi/sol_transfer.hpp"

#include <catch2/catch.hpp>
#include <string>

// This file's names, apart from those of the other test files compiled with it.
namespace sol_transfer_test {

using namespace ironhold::bmc::ipmi;
using namespace std::chrono_literals;
using Clock = SolTransfer::Clock;

namespace {

ByteView bytes_of(const std::string& text) {
  return {reinterpret_cast<const std::uint8_t*>(text.data()), text.size()};
}

std::string text_of(const Bytes& bytes) {
  return {bytes.begin(), bytes.end()};
}

SolPacket ack(std::uint8_t sequence, std::uint8_t accepted, std::uint8_t status = 0) {
  SolPacket p;
  p.ack_sequence = sequence;
  p.accepted = accepted;
  p.status = status;
  return p;
}

}  // namespace

TEST_CASE("characters go out numbered, one packet in flight, the next after its ack",
          "[ipmi][sol]") {
  SolTransferOptions options;
  options.max_chunk = 4;
  SolTransfer t(options);
  const auto now = Clock::now();
  REQUIRE(t.queue(bytes_of("abcdefghij")));
  auto first = t.next(now);
  REQUIRE(first);
  CHECK(first->sequence == 1);
  CHECK(text_of(first->data) == "abcd");
  CHECK_FALSE(t.next(now));  // nothing more until the first is acknowledged
  t.receive(ack(1, 4), now);
  auto second = t.next(now);
  REQUIRE(second);
  CHECK(second->sequence == 2);
  CHECK(text_of(second->data) == "efgh");
  // An acknowledgement of some other number frees nothing.
  t.receive(ack(1, 4), now);
  CHECK_FALSE(t.next(now));
  t.receive(ack(2, 4), now);
  auto third = t.next(now);
  REQUIRE(third);
  CHECK(text_of(third->data) == "ij");
}

TEST_CASE("sequence numbers run 1 to 15 and wrap to 1, never 0", "[ipmi][sol]") {
  SolTransfer t;
  const auto now = Clock::now();
  std::vector<int> seen;
  for (int i = 0; i < 17; ++i) {
    REQUIRE(t.queue(bytes_of("x")));
    auto p = t.next(now);
    REQUIRE(p);
    seen.push_back(p->sequence);
    t.receive(ack(p->sequence, 1), now);
  }
  CHECK(seen.front() == 1);
  CHECK(seen[14] == 15);
  CHECK(seen[15] == 1);
  CHECK(seen[16] == 2);
}

TEST_CASE("an unacknowledged packet is sent again, the same, until the peer counts as gone",
          "[ipmi][sol]") {
  SolTransferOptions options;
  options.retry_interval = 100ms;
  options.retries = 3;
  SolTransfer t(options);
  auto now = Clock::now();
  REQUIRE(t.queue(bytes_of("ping")));
  auto first = t.next(now);
  REQUIRE(first);
  CHECK_FALSE(t.next(now + 99ms));
  REQUIRE(t.deadline());
  CHECK(*t.deadline() == now + 100ms);
  auto again = t.next(now + 100ms);
  REQUIRE(again);
  CHECK(again->sequence == first->sequence);
  CHECK(again->data == first->data);
  CHECK(t.retransmissions() == 1);
  REQUIRE(t.next(now + 200ms));
  CHECK_FALSE(t.peer_gone());
  CHECK_FALSE(t.next(now + 300ms));  // three tries made: no fourth
  CHECK(t.peer_gone());
}

TEST_CASE("a partial acceptance sends the rest in a new packet, before newer characters",
          "[ipmi][sol]") {
  SolTransfer t;
  const auto now = Clock::now();
  REQUIRE(t.queue(bytes_of("hello")));
  auto first = t.next(now);
  REQUIRE(first);
  REQUIRE(t.queue(bytes_of("!")));
  t.receive(ack(first->sequence, 2), now);  // "he" taken
  auto rest = t.next(now);
  REQUIRE(rest);
  CHECK(rest->sequence == 2);
  CHECK(text_of(rest->data) == "llo!");
}

TEST_CASE("a NACK sends the same packet again after the retry interval", "[ipmi][sol]") {
  SolTransferOptions options;
  options.retry_interval = 50ms;
  SolTransfer t(options);
  const auto now = Clock::now();
  REQUIRE(t.queue(bytes_of("abc")));
  auto first = t.next(now);
  REQUIRE(first);
  t.receive(ack(first->sequence, 0, kSolNack), now + 10ms);
  CHECK_FALSE(t.next(now + 59ms));
  auto again = t.next(now + 60ms);
  REQUIRE(again);
  CHECK(again->sequence == first->sequence);
  CHECK(text_of(again->data) == "abc");
}

TEST_CASE("a packet received twice is acknowledged twice and delivered once", "[ipmi][sol]") {
  SolTransfer t;
  const auto now = Clock::now();
  SolPacket in;
  in.sequence = 3;
  in.data = {'o', 'k'};
  auto first = t.receive(in, now);
  CHECK(text_of(first.characters) == "ok");
  auto a1 = t.next(now);
  REQUIRE(a1);
  CHECK(a1->sequence == 0);  // an acknowledgement only
  CHECK(a1->ack_sequence == 3);
  CHECK(a1->accepted == 2);
  auto repeat = t.receive(in, now);
  CHECK(repeat.characters.empty());
  auto a2 = t.next(now);
  REQUIRE(a2);
  CHECK(a2->ack_sequence == 3);
  // The next number is new again.
  in.sequence = 4;
  in.data = {'!'};
  CHECK(text_of(t.receive(in, now).characters) == "!");
}

TEST_CASE("a break goes out in a packet of its own, acknowledged like characters", "[ipmi][sol]") {
  SolTransfer t;
  const auto now = Clock::now();
  t.request_operation(kSolGenerateBreak);
  auto p = t.next(now);
  REQUIRE(p);
  CHECK(p->sequence == 1);
  CHECK(p->status == kSolGenerateBreak);
  CHECK(p->data.empty());
  t.receive(ack(1, 0), now);
  CHECK_FALSE(t.next(now + 10s));
}

TEST_CASE("input past the queue limit is refused whole", "[ipmi][sol]") {
  SolTransferOptions options;
  options.max_queued = 8;
  SolTransfer t(options);
  CHECK(t.queue(bytes_of("12345")));
  CHECK_FALSE(t.queue(bytes_of("6789")));
  CHECK(t.queued() == 5);
  CHECK(t.queue(bytes_of("678")));
}

TEST_CASE("SOL packets encode as IPMI v2.0 table 15-2 lays them out", "[ipmi][sol]") {
  SolPacket p;
  p.sequence = 5;
  p.ack_sequence = 2;
  p.accepted = 7;
  p.status = kSolFlushOutbound;
  p.data = {'a'};
  CHECK(encode_sol(p) == Bytes{0x05, 0x02, 0x07, 0x01, 'a'});
  const Bytes wire{0x00, 0x0F, 0x03, 0x10};
  auto decoded = decode_sol(wire);
  REQUIRE(decoded);
  CHECK(decoded->sequence == 0);
  CHECK(decoded->ack_sequence == 15);
  CHECK(decoded->accepted == 3);
  CHECK(decoded->status == kSolDeactivating);
  CHECK_FALSE(decode_sol(Bytes{0x01, 0x00, 0x00}));        // too short
  CHECK_FALSE(decode_sol(Bytes{0x10, 0x00, 0x00, 0x00}));  // sequence past 15
}

}  // namespace sol_transfer_test
