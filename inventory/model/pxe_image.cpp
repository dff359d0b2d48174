#include "inventory/model/pxe_image.hpp"

#include <array>

#include "inventory/util/concat.hpp"

namespace ironhold {
namespace {

bool starts_with(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

// The URL characters of RFC 3986 (unreserved, reserved, '%'), less those iPXE's script language
// gives a meaning to or that would let a URL end a script line: '$' (settings expansion), quotes,
// spaces and control characters.
bool url_char(char c) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
  constexpr std::string_view allowed = "-._~:/?#[]@!&()*+,;=%";
  return allowed.find(c) != std::string_view::npos;
}

}  // namespace

std::optional<std::string> pxe_image_problem(std::string_view image) {
  constexpr std::array<std::string_view, 3> schemes = {"http://", "https://", "tftp://"};
  bool scheme_ok = false;
  for (const auto scheme : schemes)
    if (starts_with(image, scheme) && image.size() > scheme.size()) scheme_ok = true;
  if (!scheme_ok)
    return "an owned server's image is the http://, https:// or tftp:// URL of an iPXE script "
           "(\".ipxe\") or of a directory with vmlinuz and initrd.img";
  for (const char c : image)
    if (!url_char(c))
      return util::concat("the image URL may not contain '",
                          std::string(1, c >= 32 && c < 127 ? c : '?'),
                          "' (iPXE would read it as script syntax); percent-encode it");
  return std::nullopt;
}

std::optional<std::string> advertise_url_problem(std::string_view url) {
  if (!(starts_with(url, "http://") && url.size() > 7) &&
      !(starts_with(url, "https://") && url.size() > 8))
    return "the advertise URL must start with http:// or https:// and name a host";
  for (const char c : url)
    if (!url_char(c) || c == '?' || c == '#')
      return std::string("the advertise URL may not contain '") + (c >= 32 && c < 127 ? c : '?') +
             "'";
  return std::nullopt;
}

PxeImageKind pxe_image_kind(std::string_view image) {
  const std::string_view path = image.substr(0, image.find_first_of("?#"));
  return path.size() >= 5 && path.substr(path.size() - 5) == ".ipxe"
             ? PxeImageKind::chain_script
             : PxeImageKind::kernel_directory;
}

}  // namespace ironhold
