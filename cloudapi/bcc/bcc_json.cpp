#include "cloudapi/bcc/bcc_json.hpp"

#include <charconv>
#include <chrono>
#include <cmath>

#include "cloudapi/bcc/bcc_status.hpp"
#include "cloudapi/bcc/bce_signer.hpp"
#include "cloudapi/common/gpu.hpp"
#include "inventory/error.hpp"
#include "inventory/util/time.hpp"

namespace ironhold::cloudapi::bcc {
namespace {

using nlohmann::json;

json parse_object(std::string_view body, std::string_view what) {
  json parsed = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) throw invalid("BCC " + std::string(what) + ": the body is not JSON");
  if (!parsed.is_object())
    throw invalid("BCC " + std::string(what) + ": expected a JSON object, got " +
                  std::string(parsed.type_name()));
  return parsed;
}

[[noreturn]] void wrong_type(std::string_view where, std::string_view key, std::string_view want,
                             const json& got) {
  throw invalid(std::string(where) + ": \"" + std::string(key) + "\" must be " + std::string(want) +
                ", got " + std::string(got.type_name()));
}

const json* field(const json& object, std::string_view key) {
  const auto it = object.find(key);
  if (it == object.end() || it->is_null()) return nullptr;
  return &*it;
}

std::optional<std::string> opt_string(const json& object, std::string_view key,
                                      std::string_view where) {
  const json* value = field(object, key);
  if (!value) return std::nullopt;
  if (!value->is_string()) wrong_type(where, key, "a string", *value);
  return value->get<std::string>();
}

std::string string_or_empty(const json& object, std::string_view key, std::string_view where) {
  return opt_string(object, key, where).value_or("");
}

std::optional<int> opt_int(const json& object, std::string_view key, std::string_view where) {
  const json* value = field(object, key);
  if (!value) return std::nullopt;
  if (value->is_number_integer()) {
    const auto n = value->get<long long>();
    if (n < 0 || n > 1'000'000'000) wrong_type(where, key, "a plausible count", *value);
    return static_cast<int>(n);
  }
  if (value->is_number_float()) {
    const double d = value->get<double>();
    if (d == std::floor(d) && d >= 0 && d <= 1e9) return static_cast<int>(d);
  }
  wrong_type(where, key, "a non-negative integer", *value);
}

std::optional<bool> opt_bool(const json& object, std::string_view key, std::string_view where) {
  const json* value = field(object, key);
  if (!value) return std::nullopt;
  if (!value->is_boolean()) wrong_type(where, key, "true or false", *value);
  return value->get<bool>();
}

// cardCount is a string in the Go SDK ("8"); some answers carry a number. "" means none.
int card_count(const json& object, std::string_view where) {
  const json* value = field(object, "cardCount");
  if (!value) return 0;
  if (value->is_string()) {
    std::string_view text = value->get_ref<const std::string&>();
    while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
    while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
    if (text.empty()) return 0;
    int n = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    if (ec != std::errc() || end != text.data() + text.size() || n < 0)
      throw invalid(std::string(where) + ": \"cardCount\" must be a number of cards, got \"" +
                    std::string(text) + "\"");
    return n;
  }
  return opt_int(object, "cardCount", where).value_or(0);
}

// createTime as RFC 3339 UTC to the second; absent when it cannot be read.
std::optional<std::string> launch_time(const std::optional<std::string>& text) {
  if (!text || text->empty()) return std::nullopt;
  const auto when = parse_rfc3339(*text);
  if (!when) return std::nullopt;
  const auto seconds =
      std::chrono::duration_cast<std::chrono::seconds>(when->time_since_epoch()).count();
  return bce_timestamp(seconds);
}

json tags_of(const json& model, std::string_view where) {
  json tags = json::object();
  const json* list = field(model, "tags");
  if (!list) return tags;
  if (!list->is_array()) wrong_type(where, "tags", "an array of {tagKey, tagValue}", *list);
  for (const auto& tag : *list) {
    if (!tag.is_object()) wrong_type(where, "tags[]", "an object", tag);
    const auto key = opt_string(tag, "tagKey", where);
    if (!key || key->empty()) continue;
    tags[*key] = string_or_empty(tag, "tagValue", where);
  }
  return tags;
}

void add_detail(json& details, const json& model, std::string_view key, std::string_view where) {
  if (auto value = opt_string(model, key, where); value && !value->empty())
    details[std::string(key)] = std::move(*value);
}

GpuFacts gpu_facts(std::string_view card, int count) {
  GpuFacts facts;
  facts.model = gpu_model_name("", card);
  facts.count = count;
  if (facts.model.rfind("NVIDIA ", 0) == 0) facts.manufacturer = "NVIDIA";
  return facts;
}

void fill_gpus(CloudInstance& instance, const json& model, const BccFlavorCatalog* flavors,
               std::string_view where) {
  const std::string card = string_or_empty(model, "gpuCard", where);
  const int count = card_count(model, where);
  if (!card.empty()) {
    if (count > 0) add_gpus(instance, gpu_facts(card, count));
    return;
  }
  if (!flavors || !instance.instance_type) return;
  const auto it = flavors->find(*instance.instance_type);
  if (it == flavors->end() || it->second.gpu_card_type.empty()) return;
  add_gpus(instance, gpu_facts(it->second.gpu_card_type, it->second.gpu_card_count));
}

}  // namespace

BccListPage parse_list_instances(std::string_view body) {
  constexpr std::string_view where = "BCC instance list";
  const json page = parse_object(body, where);
  BccListPage out;
  out.marker = string_or_empty(page, "marker", where);
  out.is_truncated = opt_bool(page, "isTruncated", where).value_or(false);
  out.next_marker = string_or_empty(page, "nextMarker", where);
  out.max_keys = opt_int(page, "maxKeys", where).value_or(0);
  const json* instances = field(page, "instances");
  if (!instances) {
    if (!out.is_truncated) return out;  // an empty account may leave the list out
    throw invalid("BCC instance list: \"instances\" is missing");
  }
  if (!instances->is_array()) wrong_type(where, "instances", "an array", *instances);
  for (const auto& instance : *instances) {
    if (!instance.is_object()) wrong_type(where, "instances[]", "an object", instance);
    out.instances.push_back(instance);
  }
  return out;
}

json parse_instance_detail(std::string_view body) {
  constexpr std::string_view where = "BCC instance detail";
  const json detail = parse_object(body, where);
  const json* instance = field(detail, "instance");
  if (!instance) throw invalid("BCC instance detail: \"instance\" is missing");
  if (!instance->is_object()) wrong_type(where, "instance", "an object", *instance);
  return *instance;
}

BccFlavorCatalog parse_flavor_spec(std::string_view body) {
  constexpr std::string_view where = "BCC flavorSpec";
  const json root = parse_object(body, where);
  BccFlavorCatalog catalog;
  const json* zones = field(root, "zoneResources");
  if (!zones) return catalog;
  if (!zones->is_array()) wrong_type(where, "zoneResources", "an array", *zones);
  for (const auto& zone : *zones) {
    if (!zone.is_object()) wrong_type(where, "zoneResources[]", "an object", zone);
    const json* resources = field(zone, "bccResources");
    if (!resources) continue;
    if (!resources->is_object()) wrong_type(where, "bccResources", "an object", *resources);
    const json* groups = field(*resources, "flavorGroups");
    if (!groups) continue;
    if (!groups->is_array()) wrong_type(where, "flavorGroups", "an array", *groups);
    for (const auto& group : *groups) {
      if (!group.is_object()) wrong_type(where, "flavorGroups[]", "an object", group);
      const json* flavors = field(group, "flavors");
      if (!flavors) continue;
      if (!flavors->is_array()) wrong_type(where, "flavors", "an array", *flavors);
      for (const auto& flavor : *flavors) {
        if (!flavor.is_object()) wrong_type(where, "flavors[]", "an object", flavor);
        BccFlavorFacts facts;
        facts.spec = string_or_empty(flavor, "spec", where);
        if (facts.spec.empty()) continue;
        facts.gpu_card_type = string_or_empty(flavor, "gpuCardType", where);
        facts.gpu_card_count = opt_int(flavor, "gpuCardCount", where).value_or(0);
        facts.cpu_count = opt_int(flavor, "cpuCount", where).value_or(0);
        facts.memory_gib = opt_int(flavor, "memoryCapacityInGB", where).value_or(0);
        catalog.emplace(facts.spec, std::move(facts));
      }
    }
  }
  return catalog;
}

std::optional<BccErrorBody> parse_error_body(std::string_view body) {
  const json parsed = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (!parsed.is_object()) return std::nullopt;
  const auto text = [&](std::string_view key) -> std::string {
    const json* v = field(parsed, key);
    return v && v->is_string() ? v->get<std::string>() : std::string();
  };
  BccErrorBody out{text("requestId"), text("code"), text("message")};
  if (out.code.empty() && out.message.empty()) return std::nullopt;
  return out;
}

bool needs_flavor_facts(const json& model) {
  const auto card = model.find("gpuCard");
  const bool no_card =
      card == model.end() || !card->is_string() || card->get_ref<const std::string&>().empty();
  const auto spec = model.find("spec");
  return no_card && spec != model.end() && spec->is_string() &&
         !spec->get_ref<const std::string&>().empty();
}

CloudInstance instance_from_model(const json& model, const BccFlavorCatalog* flavors) {
  if (!model.is_object()) throw invalid("BCC instance: expected a JSON object");
  const auto id = opt_string(model, "id", "BCC instance");
  if (!id || id->empty()) throw invalid("BCC instance: \"id\" is missing");
  const std::string where = "BCC instance " + *id;

  CloudInstance out;
  out.provider_id = *id;
  out.name = string_or_empty(model, "name", where);
  out.provider_state = string_or_empty(model, "status", where);
  const BccStatusMeaning meaning = bcc_status_meaning(out.provider_state);
  out.power_state = meaning.power;
  out.gone = meaning.gone;
  if (meaning.detail) out.status_detail = std::string(*meaning.detail);

  // repairStatus is BCC's own verdict on the host: "normal" or a repair in progress.
  const std::string repair = string_or_empty(model, "repairStatus", where);
  if (meaning.health) {
    out.health = *meaning.health;
  } else if (repair == "normal") {
    out.health = Health::ok;
  } else if (!repair.empty()) {
    out.health = Health::warning;
    out.status_detail = "repairStatus " + repair;
  }

  if (auto zone = opt_string(model, "zoneName", where); zone && !zone->empty())
    out.zone = std::move(zone);
  if (auto spec = opt_string(model, "spec", where); spec && !spec->empty())
    out.instance_type = std::move(spec);
  if (auto image = opt_string(model, "imageId", where); image && !image->empty())
    out.image_id = std::move(image);
  out.launched_at = launch_time(opt_string(model, "createTime", where));

  out.summary.cpu_count = opt_int(model, "cpuCount", where).value_or(0);
  if (const auto memory = opt_int(model, "memoryCapacityInGB", where); memory && *memory > 0)
    out.summary.memory_gib = static_cast<double>(*memory);
  fill_gpus(out, model, flavors, where);

  out.tags = tags_of(model, where);
  for (const std::string_view key :
       {"internalIp", "publicIp", "ipv6", "hostname", "instanceType", "paymentTiming", "expireTime",
        "vpcId", "subnetId", "keypairId", "keypairName", "imageName", "osName", "osVersion",
        "repairStatus"})
    add_detail(out.details, model, key, where);
  return out;
}

}  // namespace ironhold::cloudapi::bcc
