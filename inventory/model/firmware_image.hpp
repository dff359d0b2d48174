#pragma once
// A firmware image as Ironhold keeps it: what it is for (component, server model), its version,
// and the size and SHA-256 of its bytes, which live in PostgreSQL (FirmwareImageStore).
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace ironhold {

struct FirmwareImageSpec {
  std::string name;       // the file name, for people ("bmc-1.2.3.bin")
  std::string version;    // what the component reports once updated ("1.2.3")
  std::string component;  // the firmware inventory entry it updates ("BMC", "BIOS", "GPU")
  std::optional<std::string> model;  // the server model it is for; absent: any
};

struct FirmwareImage {
  std::string id;
  FirmwareImageSpec spec;
  std::int64_t size = 0;
  std::string sha256;  // lower-case hex
  std::string uploaded_by, created_at;
};

// The API's JSON form: {id, name, version, component, model, size, sha256, uploaded_by,
// created_at}.
nlohmann::json to_json(const FirmwareImage& image);

// Checks an upload's description (the query of POST /firmware/images): invalid (400) naming the
// field for a missing or malformed one. Names are file names (no '/'), versions and components
// printable text without spaces at either end.
FirmwareImageSpec parse_firmware_image_spec(const std::optional<std::string>& name,
                                            const std::optional<std::string>& version,
                                            const std::optional<std::string>& component,
                                            const std::optional<std::string>& model);

}  // namespace ironhold
