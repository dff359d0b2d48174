#include "bmc/ipmi/sol_packet.hpp"

namespace ironhold::bmc::ipmi {

Bytes encode_sol(const SolPacket& packet) {
  Bytes out;
  out.reserve(4 + packet.data.size());
  out.push_back(packet.sequence & 0x0F);
  out.push_back(packet.ack_sequence & 0x0F);
  out.push_back(packet.accepted);
  out.push_back(packet.status);
  put(out, packet.data);
  return out;
}

std::optional<SolPacket> decode_sol(ByteView payload) {
  if (payload.size() < 4 || payload[0] > 0x0F || payload[1] > 0x0F) return std::nullopt;
  SolPacket packet;
  packet.sequence = payload[0];
  packet.ack_sequence = payload[1];
  packet.accepted = payload[2];
  packet.status = payload[3];
  packet.data.assign(payload.begin() + 4, payload.end());
  return packet;
}

}  // namespace ironhold::bmc::ipmi
