#pragma once
// What an owned server is reprovisioned with: the URL of the installer its iPXE script boots.
// Either an iPXE script of the site's to chain (a URL ending in ".ipxe"), or a directory that
// holds the installer's kernel and initrd as "vmlinuz" and "initrd.img" (the layout of netboot
// images). Ironhold serves no images itself; the site's web or TFTP server does.
#include <optional>
#include <string>
#include <string_view>

namespace ironhold {

enum class PxeImageKind { chain_script, kernel_directory };

// Why `image` cannot be booted by iPXE (not http, https or tftp; a character that iPXE would
// read as part of its script language), or nothing when it can.
std::optional<std::string> pxe_image_problem(std::string_view image);

PxeImageKind pxe_image_kind(std::string_view image);

// Why `url` cannot be the base URL installers call back to (--advertise-url: http:// or https://,
// no script syntax), or nothing when it can.
std::optional<std::string> advertise_url_problem(std::string_view url);

}  // namespace ironhold
