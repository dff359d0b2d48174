#include "inventory/audit/anchor_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <charconv>
#include <fstream>
#include <sstream>
#include <vector>

#include "inventory/error.hpp"

namespace ironhold::audit {
namespace {

// Only the end of the file is read: it grows by a line per head change, for years.
constexpr std::streamoff kTail = 16 * 1024;

// Filled in place and returned by name: moving an Anchor into an optional made GCC 12 at -O3 see
// the strings' local buffers copied out of bounds (a false -Warray-bounds, libstdc++ PR 109299).
std::optional<Anchor> parse_line(std::string_view line) {
  std::istringstream in{std::string(line)};
  std::optional<Anchor> a(std::in_place);
  if (!(in >> a->seq >> a->mac_hex >> a->at) || a->seq < 0 || a->mac_hex.size() != 64) a.reset();
  return a;
}

}  // namespace

AnchorFile::AnchorFile(std::filesystem::path path) : path_(std::move(path)) {}

void AnchorFile::append(const Anchor& head) {
  std::lock_guard lock(mutex_);
  if (head.seq == last_appended_) return;
  const std::string line = std::to_string(head.seq) + ' ' + head.mac_hex + ' ' + head.at + '\n';
  // O_APPEND: one write per line, so lines of several processes never interleave.
  const int fd = ::open(path_.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0)
    throw Error(ErrorKind::unavailable, "cannot open the audit anchor file " + path_.string());
  const bool written = ::write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size());
  ::fdatasync(fd);
  ::close(fd);
  if (!written)
    throw Error(ErrorKind::unavailable, "cannot write the audit anchor file " + path_.string());
  last_appended_ = head.seq;
}

std::optional<Anchor> AnchorFile::newest() const {
  std::ifstream in(path_, std::ios::binary);
  if (!in) return std::nullopt;
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  const std::streamoff start = size > kTail ? size - kTail : 0;
  in.seekg(start);
  std::string tail(static_cast<std::size_t>(size - start), '\0');
  in.read(tail.data(), static_cast<std::streamsize>(tail.size()));
  std::optional<Anchor> best;
  std::size_t pos = 0;
  // The first line of a partial read is cut: skip it.
  if (start > 0) pos = tail.find('\n') == std::string::npos ? tail.size() : tail.find('\n') + 1;
  while (pos < tail.size()) {
    const auto end = tail.find('\n', pos);
    if (end == std::string::npos) break;  // a line being written
    if (auto a = parse_line(std::string_view(tail).substr(pos, end - pos));
        a && (!best || a->seq > best->seq))
      best = std::move(a);
    pos = end + 1;
  }
  return best;
}

}  // namespace ironhold::audit
