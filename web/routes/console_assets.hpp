#pragma once
// The operator console's files (web/console/), compiled into the binary at build time by
// cmake/EmbedConsole.cmake, which writes the definitions of these functions.
#include <cstddef>
#include <span>
#include <string_view>

namespace ironhold::web {

struct ConsoleAsset {
  std::string_view path;          // relative to web/console/: "index.html", "js/app.js"
  std::string_view content_type;  // from the extension: "text/javascript; charset=utf-8"
  std::string_view etag;          // quoted, from the SHA-256 of the bytes served
  const unsigned char* data;
  std::size_t size;

  std::string_view bytes() const { return {reinterpret_cast<const char*>(data), size}; }
};

// Every asset, sorted by path. index.html is the entry page, with its references to the other
// assets already under /assets/<console_assets_hash()>/.
std::span<const ConsoleAsset> console_assets();
// 16 hex digits over every asset's path and content: a changed console gets a new one.
std::string_view console_assets_hash();

}  // namespace ironhold::web
