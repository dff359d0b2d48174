#include "web/ipxe_script.hpp"

#include "inventory/model/pxe_image.hpp"

namespace ironhold::web {
namespace {

// Text for a comment or a setting: nothing iPXE could read as syntax ('$', quotes, line ends).
std::string plain(std::string_view text) {
  std::string out;
  for (const char c : text) {
    const bool safe = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '-' || c == '_' || c == '.' || c == ':' || c == '/';
    out.push_back(safe ? c : '_');
  }
  return out;
}

std::string without_trailing_slash(std::string_view url) {
  while (!url.empty() && url.back() == '/') url.remove_suffix(1);
  return std::string(url);
}

}  // namespace

std::string render_ipxe_script(const db::ScriptGrant& grant, std::string_view advertise_url) {
  // The image and advertise URL were checked when they were accepted (pxe_image_problem, the
  // --advertise-url parser): neither holds script syntax.
  const std::string callback =
      without_trailing_slash(advertise_url) + "/api/v1/provisioning/callback";
  std::string s;
  s += "#!ipxe\n";
  s += "# Ironhold: reprovisioning node " + plain(grant.node_name) + " (task " + grant.task_id +
       ")\n";
  s += "# with " + plain(grant.image) + ", booted by MAC " + grant.mac + "\n";
  s += "set ironhold_node " + plain(grant.node_name) + "\n";
  s += "set ironhold_task " + grant.task_id + "\n";
  s += "set ironhold_callback " + callback + "\n";
  s += "set ironhold_token " + grant.token + "\n";
  if (pxe_image_kind(grant.image) == PxeImageKind::chain_script) {
    // The site's script takes over; it finds the call-back in the settings above.
    s += "chain " + grant.image + " || goto failed\n";
  } else {
    const std::string base = without_trailing_slash(grant.image);
    s += "kernel " + base +
         "/vmlinuz initrd=initrd.img ip=dhcp BOOTIF=01-${net0/mac:hexhyp} "
         "ironhold.node=${ironhold_node} ironhold.callback=${ironhold_callback} "
         "ironhold.token=${ironhold_token} || goto failed\n";
    s += "initrd " + base + "/initrd.img || goto failed\n";
    s += "boot || goto failed\n";
  }
  s += ":failed\n";
  s += "echo Ironhold: the installer could not be booted; rebooting in 30 seconds\n";
  s += "sleep 30\n";
  s += "reboot\n";
  return s;
}

}  // namespace ironhold::web
