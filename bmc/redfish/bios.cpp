#include "bmc/redfish/bios.hpp"

#include <algorithm>

#include "bmc/redfish/json_read.hpp"
#include "bmc/redfish/resources.hpp"

namespace ironhold::bmc::redfish {

namespace asio = boost::asio;
using nlohmann::json;

// Named, not anonymous: in a unity build the other Redfish files' helpers share the unit.
namespace bios_parts {

// "/Attributes/ProcTurboMode", "#/NumaGroupSizeOpt", "#/Attributes/X" → the attribute's name.
std::string attribute_of(std::string property) {
  for (const char* prefix : {"#/Attributes/", "/Attributes/", "#/", "/"})
    if (property.rfind(prefix, 0) == 0) return property.substr(std::string(prefix).size());
  return property;
}

bool is_success(const std::string& message_id) {
  const auto dot = message_id.rfind('.');
  return (dot == std::string::npos ? message_id : message_id.substr(dot + 1)) == "Success";
}

std::string listed(const std::vector<std::string>& values) {
  std::string out;
  for (const auto& v : values) out += (out.empty() ? "" : ", ") + v;
  return out;
}

struct BiosDocuments {
  Resource system;
  std::optional<Resource> bios;
};
using DocumentsOrError = std::variant<BiosDocuments, DriverError>;

asio::awaitable<DocumentsOrError> read_documents(RedfishConnection& connection,
                                                 std::string system_id) {
  std::string systems = "Systems";
  Found system = co_await find_member(connection, std::move(systems), std::move(system_id));
  if (auto* e = std::get_if<DriverError>(&system)) co_return std::move(*e);
  BiosDocuments out{std::get<Resource>(std::move(system)), std::nullopt};
  std::string bios_path = link(out.system.doc, "Bios");
  if (bios_path.empty()) co_return out;
  Found bios = co_await get_resource(connection, std::move(bios_path));
  if (auto* e = std::get_if<DriverError>(&bios)) co_return std::move(*e);
  out.bios = std::get<Resource>(std::move(bios));
  co_return out;
}

}  // namespace bios_parts

std::optional<BiosSettings> bios_settings(const json& system, const json* bios) {
  const json* attributes = read_object(bios, "Attributes");
  if (!attributes) return std::nullopt;
  BiosSettings out;
  out.registry = read_string(bios, "AttributeRegistry");
  for (const auto& [name, value] : attributes->items())
    if (value.is_primitive()) out.attributes[name] = value;
  if (const auto target = settings_target(*bios)) {
    out.settable = true;
    out.apply_times = target->apply_times;
  }
  if (const json* order = read_array(read_object(&system, "Boot"), "BootOrder"))
    for (const auto& entry : *order)
      if (entry.is_string()) out.boot_order.push_back(entry.get<std::string>());
  return out;
}

std::vector<std::string> settings_messages(const json& bios, std::vector<std::string>& refused) {
  std::vector<std::string> out;
  const json* messages = read_array(read_object(&bios, "@Redfish.Settings"), "Messages");
  if (!messages) return out;
  for (const auto& m : *messages) {
    if (!m.is_object()) continue;
    const std::string id = read_string(&m, "MessageId").value_or("");
    std::string text = id;
    if (const auto message = read_string(&m, "Message")) text += ": " + *message;
    std::vector<std::string> names;
    if (const json* related = read_array(&m, "RelatedProperties"))
      for (const auto& p : *related)
        if (p.is_string()) names.push_back(bios_parts::attribute_of(p.get<std::string>()));
    if (names.empty())
      if (const json* args = read_array(&m, "MessageArgs"))
        for (const auto& a : *args)
          if (a.is_string()) names.push_back(a.get<std::string>());
    if (!names.empty()) text += " (" + bios_parts::listed(names) + ")";
    out.push_back(std::move(text));
    if (!bios_parts::is_success(id))
      for (auto& n : names)
        if (std::find(refused.begin(), refused.end(), n) == refused.end())
          refused.push_back(std::move(n));
  }
  return out;
}

std::variant<json, DriverError> bios_settings_body(const BiosChange& change,
                                                   const SettingsTarget& target) {
  json body = {{"Attributes", change.attributes}};
  const auto& times = target.apply_times;
  if (times.empty()) {
    if (change.apply_time != "OnReset")
      return DriverError{DriverErrorCode::unsupported,
                         "the BMC lists no apply times for BIOS settings, so they apply at the "
                         "next reset; " +
                             change.apply_time + " cannot be asked for"};
    return body;
  }
  if (std::find(times.begin(), times.end(), change.apply_time) == times.end())
    return DriverError{DriverErrorCode::unsupported, "the BMC applies BIOS settings only " +
                                                         bios_parts::listed(times) + ", not " +
                                                         change.apply_time};
  body["@Redfish.SettingsApplyTime"] = {{"ApplyTime", change.apply_time}};
  return body;
}

asio::awaitable<BiosReport> read_bios(RedfishConnection& connection, std::string system_id) {
  BiosReport report;
  auto reading = bios_parts::read_documents(connection, std::move(system_id));
  bios_parts::DocumentsOrError found = co_await std::move(reading);
  report.tls_fingerprint = connection.fingerprint();
  if (auto* e = std::get_if<DriverError>(&found)) {
    report.error = std::move(*e);
    co_return report;
  }
  const bios_parts::BiosDocuments& docs = std::get<bios_parts::BiosDocuments>(found);
  report.bios = bios_settings(docs.system.doc, docs.bios ? &docs.bios->doc : nullptr);
  if (!report.bios) {
    report.error =
        DriverError{DriverErrorCode::unsupported,
                    docs.bios ? "the BMC's Bios resource " + docs.bios->path + " has no Attributes"
                              : "the BMC links no Bios resource from its System"};
    co_return report;
  }
  report.messages = settings_messages(docs.bios->doc, report.refused);
  if (const auto target = settings_target(docs.bios->doc);
      target && target->path != docs.bios->path) {
    std::string path = target->path;
    Found pending = co_await get_resource(connection, std::move(path));
    // A settings object that cannot be read holds nothing we know of; the read still stands.
    if (auto* r = std::get_if<Resource>(&pending))
      if (const json* attributes = read_object(&r->doc, "Attributes"))
        report.pending = bios_differences(report.bios->attributes, *attributes);
  }
  co_return report;
}

asio::awaitable<ActionReport> write_bios(RedfishConnection& connection, std::string system_id,
                                         BiosChange change) {
  auto reading = bios_parts::read_documents(connection, std::move(system_id));
  bios_parts::DocumentsOrError found = co_await std::move(reading);
  if (auto* e = std::get_if<DriverError>(&found))
    co_return action_report(connection, "", std::move(*e));
  const bios_parts::BiosDocuments& docs = std::get<bios_parts::BiosDocuments>(found);
  std::string detail;
  if (!change.attributes.empty()) {
    const auto target = docs.bios ? settings_target(docs.bios->doc) : std::nullopt;
    if (!target)
      co_return action_report(
          connection, "",
          DriverError{DriverErrorCode::unsupported,
                      docs.bios ? "the BMC's Bios resource names no settings object "
                                  "(@Redfish.Settings.SettingsObject) to write to"
                                : "the BMC links no Bios resource from its System"});
    auto planned = bios_settings_body(change, *target);
    if (auto* e = std::get_if<DriverError>(&planned))
      co_return action_report(connection, "", std::move(*e));
    auto patching = send_request(connection, "PATCH", target->path, std::get<json>(planned));
    if (auto failed = co_await std::move(patching)) {
      failed->message = "the BMC refused the BIOS settings: " + failed->message;
      co_return action_report(connection, "", std::move(failed));
    }
    detail = "PATCH " + std::to_string(change.attributes.size()) + " attribute(s) to " +
             target->path +
             (std::get<json>(planned).contains("@Redfish.SettingsApplyTime")
                  ? " (ApplyTime " + change.apply_time + ")"
                  : std::string());
  }
  if (change.boot_order) {
    auto patching = send_request(connection, "PATCH", docs.system.path,
                                 {{"Boot", {{"BootOrder", *change.boot_order}}}});
    if (auto failed = co_await std::move(patching)) {
      failed->message = "the BMC refused the boot order: " + failed->message;
      co_return action_report(connection, "", std::move(failed));
    }
    detail +=
        (detail.empty() ? "" : "; ") + std::string("PATCH Boot.BootOrder of ") + docs.system.path;
  }
  co_return action_report(connection, detail);
}

}  // namespace ironhold::bmc::redfish
