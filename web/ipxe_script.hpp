#pragma once
// The iPXE script a node being reprovisioned boots (GET /api/v1/provisioning/ipxe): it names the
// node's installer and hands it the call-back URL and one-time token, both as iPXE settings (for
// a chained site script) and on the kernel command line (for a netboot kernel and initrd).
#include <string>
#include <string_view>

#include "inventory/db/provisioning_store.hpp"

namespace ironhold::web {

// `advertise_url`: the base URL installers reach Ironhold at ("http://10.0.0.5:8080").
std::string render_ipxe_script(const db::ScriptGrant& grant, std::string_view advertise_url);

}  // namespace ironhold::web
