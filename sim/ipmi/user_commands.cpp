// App netFn user commands (IPMI v2.0 22.27-22.30), enough for a client to find its own user and
// change its password: user ID 1 is the null user, the BMC's users follow from ID 2, and ten IDs
// exist. A password set here is the RAKP key of the next session; sessions open stay.
#include <algorithm>

#include "sim/ipmi/commands.hpp"

namespace ironhold::sim::ipmi::handlers {

namespace {

constexpr std::uint8_t kMaxUserIds = 10;
constexpr std::uint8_t kCcPasswordMismatch = 0x80;
constexpr std::uint8_t kCcWrongPasswordSize = 0x81;

// The user an ID names, or null (the null user, an unused ID).
User* user_of(BmcModel& bmc, std::uint8_t id) {
  auto& users = bmc.users();
  if (id < 2 || static_cast<std::size_t>(id - 2) >= users.size()) return nullptr;
  return &users[id - 2];
}

}  // namespace

Bytes get_user_access(CommandContext& ctx, ByteView data) {
  if (data.size() != 2) return {kCcLengthInvalid};
  const std::uint8_t id = data[1] & 0x3F;
  if (id == 0 || id > kMaxUserIds) return {kCcInvalidData};
  const User* user = user_of(ctx.bmc, id);
  const auto enabled = static_cast<std::uint8_t>(ctx.bmc.users().size());
  return {kCcOk, kMaxUserIds,
          static_cast<std::uint8_t>(0x40 | enabled),  // enabled via Set User Password; count
          0x00,                                       // no fixed names
          static_cast<std::uint8_t>(user ? (0x10 | user->privilege) : 0x0F)};
}

Bytes get_user_name(CommandContext& ctx, ByteView data) {
  if (data.size() != 1) return {kCcLengthInvalid};
  const std::uint8_t id = data[0] & 0x3F;
  if (id == 0 || id > kMaxUserIds) return {kCcInvalidData};
  Bytes out(17, 0x00);
  if (const User* user = user_of(ctx.bmc, id))
    std::copy_n(user->name.begin(), std::min<std::size_t>(user->name.size(), 16), out.begin() + 1);
  return out;
}

Bytes set_user_password(CommandContext& ctx, ByteView data) {
  if (data.size() < 2) return {kCcLengthInvalid};
  const std::uint8_t id = data[0] & 0x3F;
  const bool long_form = (data[0] & 0x80) != 0;
  const std::uint8_t operation = data[1] & 0x03;
  User* user = user_of(ctx.bmc, id);
  if (id == 0 || id > kMaxUserIds) return {kCcInvalidData};
  if (operation == 0x00 || operation == 0x01) return {user ? kCcOk : kCcInvalidData};
  if (data.size() != (long_form ? 22u : 18u)) return {kCcWrongPasswordSize};
  if (!user) return {kCcInvalidData};
  std::string password(data.begin() + 2, data.end());
  password.erase(std::find(password.begin(), password.end(), '\0'), password.end());
  if (operation == 0x03) return {password == user->password ? kCcOk : kCcPasswordMismatch};
  user->password = std::move(password);
  ++ctx.bmc.counters.password_changes;
  return {kCcOk};
}

}  // namespace ironhold::sim::ipmi::handlers
