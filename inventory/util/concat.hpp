#pragma once
// Strings joined into one, sized once: a chain of `+` makes a temporary per step. It is also the
// way around a false positive of GCC 12 at -O2 and -O3: `"text" + std::string(...)` inlines
// libstdc++'s insert-at-the-front path, where GCC 12 sees a memcpy of up to SIZE_MAX bytes or
// past a local buffer (-Wstringop-overflow, -Warray-bounds; libstdc++ PR 109299, quiet since
// GCC 13). Appending into reserved room takes none of that path.
#include <string>
#include <string_view>

namespace ironhold::util {

template <class... Parts>
std::string concat(const Parts&... parts) {
  const std::string_view views[] = {std::string_view(parts)...};
  std::size_t size = 0;
  for (const auto v : views) size += v.size();
  std::string out;
  out.reserve(size);
  for (const auto v : views) out.append(v);
  return out;
}

}  // namespace ironhold::util
