#include "inventory/db/task_parameters.hpp"

#include <openssl/crypto.h>

#include "inventory/crypto/primitives.hpp"
#include "inventory/error.hpp"
#include "inventory/model/pxe_image.hpp"

namespace ironhold::db {
namespace {

using nlohmann::json;

// The parameters an owned server's reprovision runs with: its image is the one asked for, else
// the one its last reprovision the same way used. Over PXE it must be a URL iPXE can boot; over
// virtual media, a boot image this service keeps (the task gets its name, size and SHA-256), and
// the node's BMC must speak Redfish.
TaskParameters owned_reprovision_parameters(pqxx::work& tx, const NewTask& task,
                                            const TargetNode& node,
                                            const std::optional<std::string>& refused) {
  TaskParameters out = task.parameters;
  json& p = out.parameters;
  const std::string via = p.value("via", std::string("pxe"));
  p["via"] = via;
  const bool media = via == "virtual-media";
  if (media && node.driver != "redfish")
    throw unprocessable("node \"" + node.name + "\" has a" +
                            (node.driver == "ipmi" ? "n IPMI" : " " + node.driver) +
                            " BMC: virtual media needs Redfish (VirtualMedia.InsertMedia); "
                            "reprovision it over PXE",
                        "via");
  if (refused) throw unprocessable("cannot reprovision node \"" + node.name + "\": " + *refused);
  if (!p.contains("image")) {
    const auto rows = tx.exec_params(
        "SELECT parameters ->> 'image' FROM tasks "
        " WHERE node_id = $1::uuid AND kind = 'reprovision' AND parameters ? 'image' "
        "   AND coalesce(parameters ->> 'via', 'pxe') = $2 "
        " ORDER BY created_at DESC LIMIT 1",
        node.id, via);
    if (rows.empty())
      throw unprocessable("node \"" + node.name + "\" has never been reprovisioned over " + via +
                              " by Ironhold: name its image (" +
                              (media ? std::string("the id of a boot image")
                                     : std::string("the URL of an installer iPXE script or "
                                                   "netboot directory")) +
                              ")",
                          "image");
    p["image"] = rows[0][0].as<std::string>();
  }
  if (media) {
    const std::string image = p["image"].get<std::string>();
    const auto rows = is_uuid(image)
                          ? tx.exec_params(
                                "SELECT name, sha256, size FROM firmware_images "
                                " WHERE id = $1::uuid AND state = 'ready' AND kind = 'boot'",
                                image)
                          : pqxx::result();
    if (rows.empty())
      throw unprocessable("there is no boot image \"" + image +
                              "\" (GET /api/v1/boot-images lists them; upload an ISO with POST "
                              "/api/v1/boot-images)",
                          "image");
    p["image_name"] = rows[0][0].as<std::string>();
    p["sha256"] = rows[0][1].as<std::string>();
    p["size"] = rows[0][2].as<long long>();
  } else if (const auto problem = pxe_image_problem(p["image"].get<std::string>())) {
    throw unprocessable("cannot reprovision node \"" + node.name + "\": " + *problem, "image");
  }
  if (!out.secrets.empty())
    throw unprocessable("node \"" + node.name +
                            "\" is an owned server: its installer sets its passwords, "
                            "\"admin_password\" is for cloud instances",
                        "admin_password");
  return out;
}

// A firmware update's parameters with what its image is, so that the task (and its audit
// entry) says which component goes to which version; the image must be ready and for the node's
// model when it names one.
TaskParameters firmware_parameters(pqxx::work& tx, const NewTask& task, const TargetNode& node) {
  TaskParameters out = task.parameters;
  json& p = out.parameters;
  const auto rows = tx.exec_params(
      "SELECT name, version, component, model, sha256, size FROM firmware_images "
      " WHERE id = $1::uuid AND state = 'ready' AND kind = 'firmware'",
      p.value("image", std::string()));
  if (rows.empty())
    throw unprocessable("there is no firmware image " + p.value("image", std::string()) +
                            " (GET /api/v1/firmware/images lists them)",
                        "image");
  const auto& r = rows[0];
  if (!r[3].is_null() && node.model && r[3].as<std::string>() != *node.model)
    throw unprocessable("firmware image " + r[0].as<std::string>() + " is for model " +
                            r[3].as<std::string>() + ", and node \"" + node.name + "\" is a " +
                            *node.model,
                        "image");
  p["image_name"] = r[0].as<std::string>();
  p["version"] = r[1].as<std::string>();
  p["component"] = r[2].as<std::string>();
  p["sha256"] = r[4].as<std::string>();
  p["size"] = r[5].as<long long>();
  return out;
}

// A BIOS task's parameters with its model's baseline merged in (when asked), checked against the
// BIOS the last inspection recorded: attributes it lacks, values of another type, an apply time
// it does not list, or a BMC that names no settings object are refused before anything is sent.
TaskParameters bios_parameters(pqxx::work& tx, const NewTask& task, const TargetNode& node) {
  TaskParameters out = task.parameters;
  json& p = out.parameters;
  if (p.value("from_baseline", false)) {
    if (!node.model)
      throw unprocessable("node \"" + node.name +
                              "\" has no model in its inventory yet, so it has no BIOS baseline",
                          "from_baseline");
    const auto rows =
        tx.exec_params("SELECT attributes::text FROM bios_baselines WHERE model = $1", *node.model);
    if (rows.empty())
      throw unprocessable("there is no BIOS baseline for model \"" + *node.model +
                              "\" (PUT /api/v1/bios/baselines/{model} sets one)",
                          "from_baseline");
    json attributes = json::parse(rows[0][0].c_str());
    if (p.contains("attributes"))
      for (const auto& [name, value] : p["attributes"].items()) attributes[name] = value;
    p["attributes"] = std::move(attributes);
    p["baseline_model"] = *node.model;
  }
  const auto recorded = tx.exec_params(
      "SELECT attributes::text, apply_times::text, settable FROM bios_records "
      " WHERE node_id = $1::uuid AND valid_to IS NULL",
      node.id);
  if (recorded.empty()) return out;  // never read: the task's own read decides
  const json current = json::parse(recorded[0][0].c_str());
  const json apply_times = json::parse(recorded[0][1].c_str());
  if (p.contains("attributes")) {
    if (!recorded[0][2].as<bool>())
      throw unprocessable("the BMC of node \"" + node.name +
                          "\" names no settings object for its BIOS (@Redfish.Settings), so its "
                          "attributes cannot be written");
    const auto problems = bios_change_problems(current, p["attributes"]);
    if (!problems.empty()) {
      std::string text;
      for (const auto& problem : problems) text += (text.empty() ? "" : "; ") + problem;
      throw unprocessable("node \"" + node.name + "\": " + text, "attributes");
    }
  }
  const std::string apply_time = p.value("apply_time", std::string("OnReset"));
  if (apply_times.is_array() && !apply_times.empty() &&
      std::find(apply_times.begin(), apply_times.end(), json(apply_time)) == apply_times.end())
    throw unprocessable("the BMC of node \"" + node.name + "\" applies BIOS settings only " +
                            apply_times.dump() + ", not " + apply_time,
                        "apply_time");
  return out;
}

// A password of `length` characters from letters, digits and "-_.!+=", with one of each kind at
// least: what BMCs' complexity rules ask for, and nothing a shell, a URL or JSON would mangle.
std::string generated_password(int length) {
  static constexpr std::string_view kinds[] = {"ABCDEFGHJKLMNPQRSTUVWXYZ",
                                               "abcdefghijkmnopqrstuvwxyz", "23456789", "-_.!+="};
  std::string all;
  for (auto k : kinds) all += k;
  std::vector<std::uint8_t> random(static_cast<std::size_t>(length) * 2);
  for (;;) {
    crypto::random_bytes(random);
    std::string out;
    // Rejection sampling keeps every character equally likely.
    const std::size_t limit = 256 - 256 % all.size();
    for (const std::uint8_t r : random)
      if (r < limit && out.size() < static_cast<std::size_t>(length)) out += all[r % all.size()];
    if (out.size() < static_cast<std::size_t>(length)) continue;
    bool every_kind = true;
    for (auto k : kinds) every_kind = every_kind && out.find_first_of(k) != std::string::npos;
    OPENSSL_cleanse(random.data(), random.size());
    if (every_kind) return out;
    OPENSSL_cleanse(out.data(), out.size());
  }
}

// A credentials task's new password: the one given, else one made for this node (16 characters
// for IPMI, at most what its driver sets there; 20 elsewhere). One rotation of a node at a time.
TaskParameters credentials_parameters(pqxx::work& tx, const NewTask& task, const TargetNode& node) {
  TaskParameters out = task.parameters;
  json& p = out.parameters;
  const auto row = tx.exec_params(
      "SELECT n.credentials_set, p.name FROM nodes n LEFT JOIN nodes p ON p.id = n.parent_id "
      " WHERE n.id = $1::uuid",
      node.id);
  if (!row.empty() && !row[0][1].is_null())
    throw unprocessable("node \"" + node.name + "\" is a System behind the BMC of node \"" +
                        row[0][1].as<std::string>() + "\": rotate that node's credentials");
  if (row.empty() || !row[0][0].as<bool>())
    throw unprocessable("node \"" + node.name +
                        "\" has no BMC credentials: there is no password of Ironhold's to rotate");
  const auto running = tx.exec_params(
      "SELECT id FROM tasks WHERE node_id = $1::uuid AND kind = 'credentials' "
      "   AND state IN ('queued', 'running') LIMIT 1",
      node.id);
  if (!running.empty())
    throw conflict("node \"" + node.name + "\" has a credential rotation under way (task " +
                   running[0][0].as<std::string>() + ")");
  const int max = node.driver == "ipmi" ? 16 : 64;
  const char* too_long =
      "IPMI passwords set by Ironhold have at most 16 characters (a BMC may take the 20-byte form "
      "and then let no one in)";
  if (out.secrets.contains("new_password")) {
    if (out.secrets["new_password"].get<std::string>().size() > static_cast<std::size_t>(max))
      throw unprocessable(too_long, "password");
    return out;
  }
  const int length = p.value("length", node.driver == "ipmi" ? 16 : 20);
  if (length > max) throw unprocessable(too_long, "length");
  p["length"] = length;
  out.secrets["new_password"] = generated_password(length);
  return out;
}

}  // namespace

// The node in service a request names (by id or by name).
TargetNode resolve_node(pqxx::work& tx, const std::string& id_or_name) {
  const bool by_id = is_uuid(id_or_name);
  const auto rows = tx.exec_params(
      by_id ? "SELECT id, name, source, maintenance, retired_at IS NOT NULL, lifecycle, driver, "
              "       model FROM nodes WHERE id = $1::uuid FOR UPDATE"
            : "SELECT id, name, source, maintenance, retired_at IS NOT NULL, lifecycle, driver, "
              "       model FROM nodes "
              "WHERE name = $1 ORDER BY retired_at IS NULL DESC, retired_at DESC LIMIT 1",
      id_or_name);
  if (rows.empty()) throw not_found("no node \"" + id_or_name + "\"");
  const auto& r = rows[0];
  if (r[4].as<bool>())
    throw conflict("node \"" + r[1].as<std::string>() + "\" is retired; it takes no actions");
  TargetNode node;
  node.id = r[0].as<std::string>();
  node.name = r[1].as<std::string>();
  node.source = parse_enum<Source>(r[2].c_str()).value_or(Source::bmc);
  node.maintenance = r[3].as<bool>();
  node.lifecycle = parse_enum<Lifecycle>(r[5].c_str()).value_or(Lifecycle::enrolled);
  node.driver = r[6].as<std::string>();
  if (!r[7].is_null()) node.model = r[7].as<std::string>();
  return node;
}

void check_action_fits(const NewTask& task, const TargetNode& node) {
  if (node.source == Source::cloud &&
      (task.kind == TaskKind::boot || task.kind == TaskKind::identify))
    throw unprocessable("node \"" + node.name + "\" is a cloud instance: it has no " +
                        (task.kind == TaskKind::boot ? "boot device setting" : "identify LED"));
  if (task.kind == TaskKind::reprovision) {
    if (node.lifecycle != Lifecycle::deployed && node.lifecycle != Lifecycle::available &&
        node.lifecycle != Lifecycle::provision_failed)
      throw conflict("cannot reprovision node \"" + node.name + "\" while it is " +
                         std::string(to_string(node.lifecycle)) +
                         "; it must be available, deployed or provision_failed",
                     "action");
  }
  if (task.kind == TaskKind::firmware) {
    if (node.source == Source::cloud)
      throw unprocessable("node \"" + node.name +
                          "\" is a cloud instance: its firmware is its provider's to update");
    if (node.driver != "redfish")
      throw unprocessable("node \"" + node.name + "\" is managed over " + node.driver +
                          ", which has no standard firmware update: Ironhold updates firmware "
                          "through Redfish UpdateService only");
    if (node.lifecycle == Lifecycle::provisioning || node.lifecycle == Lifecycle::cleaning)
      throw conflict("cannot update the firmware of node \"" + node.name + "\" while it is " +
                     std::string(to_string(node.lifecycle)));
  }
  if (task.kind == TaskKind::bios) {
    if (node.source == Source::cloud)
      throw unprocessable("node \"" + node.name +
                          "\" is a cloud instance: its BIOS is its provider's to set");
    if (node.driver != "redfish")
      throw unprocessable("node \"" + node.name + "\" is managed over " + node.driver +
                          ", which has no standard way to set BIOS attributes: Ironhold sets "
                          "them through Redfish Bios settings only");
    if (node.lifecycle == Lifecycle::provisioning || node.lifecycle == Lifecycle::cleaning)
      throw conflict("cannot change the BIOS of node \"" + node.name + "\" while it is " +
                     std::string(to_string(node.lifecycle)));
  }
  if (task.kind == TaskKind::credentials) {
    if (node.source == Source::cloud)
      throw unprocessable("node \"" + node.name +
                          "\" is a cloud instance: it has no BMC account of Ironhold's");
    if (node.driver != "redfish" && node.driver != "ipmi")
      throw unprocessable("node \"" + node.name + "\" is managed over " + node.driver +
                          ", whose BMC accounts Ironhold cannot change");
  }
  if (task.automatic && node.maintenance)
    throw conflict("node \"" + node.name +
                   "\" is in maintenance: it takes no automatic actions (an operator's own "
                   "actions still run)");
}

// The task as it will be stored for `node` (owned servers' reprovisions get their image, firmware
// updates what their image is).
NewTask task_for_node(pqxx::work& tx, const NewTask& request, const TargetNode& node,
                      const Refusals& refused) {
  NewTask task = request;
  if (request.kind == TaskKind::reprovision && node.source != Source::cloud)
    task.parameters = owned_reprovision_parameters(tx, request, node, refused.reprovisioning);
  if (request.kind == TaskKind::reprovision && node.source == Source::cloud &&
      request.parameters.parameters.contains("via"))
    throw unprocessable("node \"" + node.name +
                            "\" is a cloud instance: its provider rebuilds it, \"via\" is for "
                            "owned servers",
                        "via");
  if (request.kind == TaskKind::firmware) task.parameters = firmware_parameters(tx, request, node);
  if (request.kind == TaskKind::bios) task.parameters = bios_parameters(tx, request, node);
  if (request.kind == TaskKind::credentials)
    task.parameters = credentials_parameters(tx, request, node);
  return task;
}
}  // namespace ironhold::db
