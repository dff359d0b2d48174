#pragma once
// IPMI's records in Ironhold's one hardware model (inventory/model/hardware.hpp): sensors from
// SDR records and their readings, health from threshold states and discrete sensor states, events
// from SEL entries, identity and components from FRU data, health from chassis status faults.
#include <string>
#include <vector>

#include "bmc/ipmi/commands.hpp"
#include "bmc/ipmi/fru.hpp"
#include "bmc/ipmi/repository_commands.hpp"
#include "bmc/ipmi/sdr.hpp"
#include "bmc/ipmi/sel.hpp"
#include "inventory/model/hardware.hpp"

namespace ironhold::bmc::ipmi {

// temperature, gpu_temperature, fan, power, voltage, current, other.
std::string sensor_kind(const SdrRecord& record);
// From the threshold comparison bits (critical and non-recoverable: critical; non-critical:
// warning) or, for discrete sensors, the states that mean trouble (a power supply's failure,
// predictive failure or lost input; a processor's thermal trip...). OK otherwise, unknown when
// there is no reading.
Health reading_health(const SdrRecord& record, const SensorReadingRaw& reading);
// `name` is the record's ID string made unique per node by the caller.
SensorReading to_sensor_reading(const SdrRecord& record, const SensorReadingRaw& reading,
                                std::string name);
// Unique names for the sensor records of one BMC: the ID string, "#2", "#3" on repeats.
std::vector<std::string> unique_sensor_names(const std::vector<const SdrRecord*>& records);

// A SEL entry as a hardware event; source_id "sel:<record id>:<timestamp>" stays the same for
// the same entry and differs when a cleared SEL reuses the id.
HardwareEvent to_event(const SelEntry& entry);

Health chassis_health(const ChassisStatus& status);
Health worse(Health a, Health b);

// FRU 0 as the server's identity: manufacturer and model from the product area, serial = the
// product serial, else the board serial; part number and asset tag from the product area.
SystemIdentity identity_from_fru(const FruData& fru);
// The chassis and board of FRU 0 (and any other FRU device) as component records, so that their
// serials are kept: slot "fru<id>/chassis", "fru<id>/board", "fru<id>/product".
std::vector<Component> fru_components(const FruData& fru, std::uint8_t fru_id,
                                      const std::string& device_name);

}  // namespace ironhold::bmc::ipmi
