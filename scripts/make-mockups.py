#!/usr/bin/env python3
"""Writes Ironhold's own Redfish mockups (mockups/hgx-gpu-server, mockups/compute-server).

The demo and the simulator serve these; a user's clone has no ../shared DMTF mockups. They follow
the DMTF "short form" layout (one index.json per URL under the folder that stands for /redfish/v1)
and the Redfish schemas. All values are invented by us: the vendor "Ironworks" does not exist.

Choices worth knowing:
- The GPUs are members of the System's Processors collection (ProcessorType "GPU"), so
  gpu_count is 8. The NVSwitches are not Processors: they are Switches of an NVLink Fabric
  (/redfish/v1/Fabrics/NVLink/Switches/NVSwitch_N), as HGX baseboards expose them.
- Sensors use the newer Sensor resources (Chassis/<id>/Sensors), with ThermalSubsystem/Fans and
  PowerSubsystem/PowerSupplies; there is no old-style Thermal/Power here.
- No link dangles: tests/sim/mockups_test.cpp checks that every @odata.id resolves.

Usage: python3 scripts/make-mockups.py [OUTPUT_DIR]   (default: mockups/ next to scripts/)
The output folders are replaced. Standard library only; output is deterministic.
"""
import json
import os
import shutil
import sys

ROOT = "/redfish/v1"


class Tree:
    def __init__(self):
        self.docs = {}

    def add(self, path, odata_type, body):
        doc = {"@odata.id": path, "@odata.type": odata_type}
        doc.update(body)
        self.docs[path] = doc
        return doc

    def collection(self, path, odata_type, name, members):
        return self.add(path, odata_type, {
            "Name": name,
            "Members@odata.count": len(members),
            "Members": [{"@odata.id": m} for m in members],
        })

    def write(self, out):
        if os.path.isdir(out):
            shutil.rmtree(out)
        for path, doc in sorted(self.docs.items()):
            rel = path[len(ROOT):].lstrip("/")
            folder = os.path.join(out, rel)
            os.makedirs(folder, exist_ok=True)
            with open(os.path.join(folder, "index.json"), "w") as f:
                json.dump(doc, f, indent=4)
                f.write("\n")


def link(path):
    return {"@odata.id": path}


def ok():
    return {"State": "Enabled", "Health": "OK"}


def serial(prefix, n):
    return "%s%06d" % (prefix, 100000 + n * 7919 % 900000)


def temp_sensor(t, chassis, sid, name, reading, caution, critical, context, related=None):
    body = {
        "Id": sid, "Name": name, "ReadingType": "Temperature", "ReadingUnits": "Cel",
        "Reading": reading, "PhysicalContext": context, "Status": ok(),
        "Thresholds": {
            "UpperCaution": {"Reading": caution},
            "UpperCritical": {"Reading": critical},
        },
    }
    if related:
        body["RelatedItem"] = [link(related)]
    return t.add("%s/Sensors/%s" % (chassis, sid), "#Sensor.v1_7_0.Sensor", body)


def plain_sensor(t, chassis, sid, name, reading_type, units, reading, context, related=None):
    body = {"Id": sid, "Name": name, "ReadingType": reading_type, "ReadingUnits": units,
            "Reading": reading, "PhysicalContext": context, "Status": ok()}
    if related:
        body["RelatedItem"] = [link(related)]
    return t.add("%s/Sensors/%s" % (chassis, sid), "#Sensor.v1_7_0.Sensor", body)


def build(spec):
    t = Tree()
    sysp = ROOT + "/Systems/" + spec["system_id"]
    chp = ROOT + "/Chassis/" + spec["chassis_id"]
    mgp = ROOT + "/Managers/BMC"
    fw = ROOT + "/UpdateService/FirmwareInventory"
    gpus = spec.get("gpus", 0)
    switches = spec.get("nvswitches", 0)

    root = {
        "Id": "RootService", "Name": "Root Service", "RedfishVersion": "1.17.0",
        "UUID": spec["uuid_prefix"] + "0000000000a1",
        "Vendor": "Ironworks",
        "Systems": link(ROOT + "/Systems"), "Chassis": link(ROOT + "/Chassis"),
        "Managers": link(ROOT + "/Managers"), "SessionService": link(ROOT + "/SessionService"),
        "UpdateService": link(ROOT + "/UpdateService"),
        "EventService": link(ROOT + "/EventService"),
        "Links": {"Sessions": link(ROOT + "/SessionService/Sessions")},
        # The simulator answers $select (sim/redfish/select_query.cpp), and says so.
        "ProtocolFeaturesSupported": {"SelectQuery": True, "FilterQuery": False,
                                      "ExcerptQuery": False, "OnlyMemberQuery": False},
    }
    if switches:
        root["Fabrics"] = link(ROOT + "/Fabrics")
    t.add(ROOT, "#ServiceRoot.v1_15_0.ServiceRoot", root)
    t.add(ROOT + "/SessionService", "#SessionService.v1_1_9.SessionService", {
        "Id": "SessionService", "Name": "Session Service", "ServiceEnabled": True,
        "SessionTimeout": 1800, "Status": ok(), "Sessions": link(ROOT + "/SessionService/Sessions")})
    t.collection(ROOT + "/SessionService/Sessions", "#SessionCollection.SessionCollection",
                 "Session Collection", [])
    # Redfish event subscriptions (the simulator delivers them: sim/redfish/bmc_events.cpp).
    event_types = ["StatusChange", "ResourceUpdated", "ResourceAdded", "ResourceRemoved", "Alert"]
    t.add(ROOT + "/EventService", "#EventService.v1_10_0.EventService", {
        "Id": "EventService", "Name": "Event Service", "ServiceEnabled": True, "Status": ok(),
        "DeliveryRetryAttempts": 3, "DeliveryRetryIntervalSeconds": 60,
        "EventFormatTypes": ["Event"], "EventTypesForSubscription": event_types,
        "RegistryPrefixes": ["Base", "ResourceEvent"], "ResourceTypes": ["ComputerSystem"],
        "SubordinateResourcesSupported": False,
        "Subscriptions": link(ROOT + "/EventService/Subscriptions"),
        "Actions": {"#EventService.SubmitTestEvent": {
            "target": ROOT + "/EventService/Actions/EventService.SubmitTestEvent",
            "EventType@Redfish.AllowableValues": event_types + ["Other"]}}})
    t.collection(ROOT + "/EventService/Subscriptions",
                 "#EventDestinationCollection.EventDestinationCollection",
                 "Event Subscriptions Collection", [])

    # --- the System and what it holds
    cpus = ["CPU_0", "CPU_1"]
    gpu_ids = ["GPU_SXM_%d" % i for i in range(1, gpus + 1)]
    t.collection(ROOT + "/Systems", "#ComputerSystemCollection.ComputerSystemCollection",
                 "Computer System Collection", [sysp])
    mem_total = spec["dimms"] * spec["dimm_gib"]
    t.add(sysp, "#ComputerSystem.v1_22_0.ComputerSystem", {
        "Id": spec["system_id"], "Name": spec["model"], "SystemType": "Physical",
        "Manufacturer": "Ironworks", "Model": spec["model"], "SKU": spec["sku"],
        "SerialNumber": spec["serial"], "PartNumber": spec["sku"] + "-01",
        "UUID": spec["uuid_prefix"] + "00000000c0de", "HostName": spec["hostname"],
        "BiosVersion": spec["bios"], "PowerState": "On", "LastResetTime": "2026-11-01T08:00:00Z",
        "LocationIndicatorActive": False,
        "Status": {"State": "Enabled", "Health": "OK", "HealthRollup": "OK"},
        "ProcessorSummary": {"Count": 2, "CoreCount": 2 * spec["cores"], "LogicalProcessorCount": 4 * spec["cores"],
                             "Model": spec["cpu_model"], "Status": {"State": "Enabled", "Health": "OK",
                                                                    "HealthRollup": "OK"}},
        "MemorySummary": {"TotalSystemMemoryGiB": mem_total,
                          "Status": {"State": "Enabled", "Health": "OK", "HealthRollup": "OK"}},
        "Boot": {
            "BootSourceOverrideEnabled": "Disabled", "BootSourceOverrideTarget": "None",
            "BootSourceOverrideMode": "UEFI",
            "BootSourceOverrideTarget@Redfish.AllowableValues":
                ["None", "Pxe", "Hdd", "Cd", "BiosSetup", "UefiShell", "UefiHttp"],
        },
        "Processors": link(sysp + "/Processors"), "Memory": link(sysp + "/Memory"),
        "Storage": link(sysp + "/Storage"), "EthernetInterfaces": link(sysp + "/EthernetInterfaces"),
        "LogServices": link(sysp + "/LogServices"),
        "Links": {"Chassis": [link(chp)], "ManagedBy": [link(mgp)]},
        "Actions": {"#ComputerSystem.Reset": {
            "target": sysp + "/Actions/ComputerSystem.Reset",
            "ResetType@Redfish.AllowableValues":
                ["On", "ForceOff", "GracefulShutdown", "GracefulRestart", "ForceRestart", "PowerCycle", "Nmi"]}},
    })
    t.collection(sysp + "/Processors", "#ProcessorCollection.ProcessorCollection", "Processor Collection",
                 [sysp + "/Processors/" + p for p in cpus + gpu_ids])
    for i, cpu in enumerate(cpus):
        t.add(sysp + "/Processors/" + cpu, "#Processor.v1_18_0.Processor", {
            "Id": cpu, "Name": "Processor %d" % i, "Socket": "CPU %d" % i, "ProcessorType": "CPU",
            "ProcessorArchitecture": "x86", "InstructionSet": "x86-64",
            "Manufacturer": spec["cpu_vendor"], "Model": spec["cpu_model"],
            "TotalCores": spec["cores"], "TotalThreads": 2 * spec["cores"], "MaxSpeedMHz": spec["cpu_mhz"],
            "SerialNumber": serial("CPUX", i + spec["seed"]), "Status": ok(),
            "Links": {"Chassis": link(chp)}})
    for i, gpu in enumerate(gpu_ids):
        t.add(sysp + "/Processors/" + gpu, "#Processor.v1_18_0.Processor", {
            "Id": gpu, "Name": "GPU SXM %d" % (i + 1), "ProcessorType": "GPU",
            "Manufacturer": "NVIDIA", "Model": "NVIDIA H100 80GB HBM3", "PartNumber": "692-2G520-0200-000",
            "SerialNumber": serial("165822", i + spec["seed"]), "FirmwareVersion": "96.00.74.00.1C",
            "MaxTDPWatts": 700, "Location": {"PartLocation": {"ServiceLabel": "SXM%d" % (i + 1),
                                                               "LocationType": "Slot"}},
            "ProcessorMemory": [{"MemoryType": "HBM3", "CapacityMiB": 81559, "IntegratedMemory": True}],
            "Status": ok(), "Links": {"Chassis": link(chp)}})

    dimm_ids = ["DIMM_%s%d" % ("ABCDEFGHIJKLMNOP"[i // 2 % 16], i % 2 + (i // 32) * 2) for i in range(spec["dimms"])]
    t.collection(sysp + "/Memory", "#MemoryCollection.MemoryCollection", "Memory Module Collection",
                 [sysp + "/Memory/" + d for d in dimm_ids])
    for i, d in enumerate(dimm_ids):
        t.add(sysp + "/Memory/" + d, "#Memory.v1_17_0.Memory", {
            "Id": d, "Name": d.replace("_", " "), "MemoryType": "DRAM", "MemoryDeviceType": "DDR5",
            "CapacityMiB": spec["dimm_gib"] * 1024, "OperatingSpeedMhz": 4800, "DataWidthBits": 64,
            "Manufacturer": "Ironworks Memory", "PartNumber": "IWM5R%dG48" % spec["dimm_gib"],
            "SerialNumber": serial("DM", i + spec["seed"]), "DeviceLocator": d, "Status": ok()})

    drives = spec["drives"]
    drive_paths = [chp + "/Drives/NVMe_%d" % i for i in range(len(drives))]
    t.collection(sysp + "/Storage", "#StorageCollection.StorageCollection", "Storage Collection",
                 [sysp + "/Storage/NVMe"])
    t.add(sysp + "/Storage/NVMe", "#Storage.v1_15_0.Storage", {
        "Id": "NVMe", "Name": "NVMe Storage", "Status": {"State": "Enabled", "Health": "OK", "HealthRollup": "OK"},
        "Drives@odata.count": len(drive_paths), "Drives": [link(p) for p in drive_paths]})
    t.collection(chp + "/Drives", "#DriveCollection.DriveCollection", "Drive Collection", drive_paths)
    for i, (path, (model, gb)) in enumerate(zip(drive_paths, drives)):
        t.add(path, "#Drive.v1_17_0.Drive", {
            "Id": "NVMe_%d" % i, "Name": "NVMe drive %d" % i, "Model": model, "Manufacturer": "Ironworks Storage",
            "SerialNumber": serial("NV", i + spec["seed"]), "Revision": "IW2.1.0", "CapacityBytes": gb * 10**9,
            "Protocol": "NVMe", "MediaType": "SSD", "Status": ok(),
            "Links": {"Chassis": link(chp)}})

    nics = spec["nics"]
    t.collection(sysp + "/EthernetInterfaces", "#EthernetInterfaceCollection.EthernetInterfaceCollection",
                 "Ethernet Interface Collection", [sysp + "/EthernetInterfaces/" + n for n, _ in nics])
    for i, (nic, speed) in enumerate(nics):
        mac = "B8:3F:D2:4A:%02X:%02X" % (spec["seed"], 0x10 + i)
        t.add(sysp + "/EthernetInterfaces/" + nic, "#EthernetInterface.v1_9_0.EthernetInterface", {
            "Id": nic, "Name": "Host port %d" % i, "MACAddress": mac, "PermanentMACAddress": mac,
            "SpeedMbps": speed, "FullDuplex": True, "LinkStatus": "LinkUp", "InterfaceEnabled": True,
            "Status": ok()})

    sel = sysp + "/LogServices/SEL"
    t.collection(sysp + "/LogServices", "#LogServiceCollection.LogServiceCollection", "Log Service Collection", [sel])
    t.add(sel, "#LogService.v1_5_0.LogService", {
        "Id": "SEL", "Name": "System Event Log", "LogEntryType": "SEL", "MaxNumberOfRecords": 3639,
        "OverWritePolicy": "WrapsWhenFull", "ServiceEnabled": True, "Status": ok(),
        "Entries": link(sel + "/Entries"),
        "Actions": {"#LogService.ClearLog": {"target": sel + "/Actions/LogService.ClearLog"}}})
    entries = [
        ("OK", "2026-10-02T08:14:03Z", "System Boot Initiated", "System Event", "Assert"),
        ("Warning", "2026-10-19T23:40:51Z", "Fan 3 speed below lower caution threshold", "Fan", "Assert"),
        ("OK", "2026-10-19T23:41:20Z", "Fan 3 speed back to normal", "Fan", "Deassert"),
    ]
    t.collection(sel + "/Entries", "#LogEntryCollection.LogEntryCollection", "SEL Entries",
                 [sel + "/Entries/%d" % (i + 1) for i in range(len(entries))])
    for i, (sev, created, msg, sensor, code) in enumerate(entries):
        t.add(sel + "/Entries/%d" % (i + 1), "#LogEntry.v1_15_0.LogEntry", {
            "Id": str(i + 1), "Name": "SEL Entry %d" % (i + 1), "EntryType": "SEL", "Severity": sev,
            "Created": created, "Message": msg, "SensorType": sensor, "EntryCode": code})

    # --- the Chassis: sensors, fans, power supplies
    t.collection(ROOT + "/Chassis", "#ChassisCollection.ChassisCollection", "Chassis Collection", [chp])
    t.add(chp, "#Chassis.v1_23_0.Chassis", {
        "Id": spec["chassis_id"], "Name": spec["model"] + " chassis", "ChassisType": "RackMount",
        "Manufacturer": "Ironworks", "Model": spec["model"], "SerialNumber": spec["serial"] + "C",
        "PartNumber": spec["sku"] + "-CH", "PowerState": "On", "LocationIndicatorActive": False,
        "HeightMm": spec["height_mm"], "Status": {"State": "Enabled", "Health": "OK", "HealthRollup": "OK"},
        "Sensors": link(chp + "/Sensors"), "ThermalSubsystem": link(chp + "/ThermalSubsystem"),
        "PowerSubsystem": link(chp + "/PowerSubsystem"), "Drives": link(chp + "/Drives"),
        "Links": {"ComputerSystems": [link(sysp)], "ManagedBy": [link(mgp)]}})
    sensors = []
    sensors.append(temp_sensor(t, chp, "Inlet_Temp", "Inlet Temperature", 23.5, 40, 45, "Intake"))
    sensors.append(temp_sensor(t, chp, "Exhaust_Temp", "Exhaust Temperature", 41.0, 70, 80, "Exhaust"))
    for i, cpu in enumerate(cpus):
        sensors.append(temp_sensor(t, chp, cpu + "_Temp", "CPU %d Temperature" % i, 52 + 3 * i, 90, 100, "CPU",
                                   sysp + "/Processors/" + cpu))
    for i, gpu in enumerate(gpu_ids):
        sensors.append(temp_sensor(t, chp, gpu + "_Temp", "GPU SXM %d Temperature" % (i + 1), 38 + i % 4, 85, 92,
                                   "GPU", sysp + "/Processors/" + gpu))
        sensors.append(plain_sensor(t, chp, gpu + "_Power", "GPU SXM %d Power" % (i + 1), "Power", "W",
                                    90 + 7 * i, "GPU", sysp + "/Processors/" + gpu))
    fans = ["Fan_%d" % i for i in range(1, spec["fans"] + 1)]
    for i, fan in enumerate(fans):
        sensors.append(plain_sensor(t, chp, fan, "Fan %d Speed" % (i + 1), "Rotational", "RPM",
                                    spec["fan_rpm"] + 120 * i, "Fan"))
    psus = ["PSU_%d" % i for i in range(1, spec["psus"] + 1)]
    for i, psu in enumerate(psus):
        sensors.append(plain_sensor(t, chp, psu + "_Power", "PSU %d Input Power" % (i + 1), "Power", "W",
                                    spec["psu_watts"] + 11 * i, "PowerSupply",
                                    chp + "/PowerSubsystem/PowerSupplies/" + psu))
    sensors.append(plain_sensor(t, chp, "Total_Power", "Total Input Power", "Power", "W",
                                sum(spec["psu_watts"] + 11 * i for i in range(len(psus))), "Chassis"))
    t.collection(chp + "/Sensors", "#SensorCollection.SensorCollection", "Sensor Collection",
                 [s["@odata.id"] for s in sensors])

    t.add(chp + "/ThermalSubsystem", "#ThermalSubsystem.v1_3_0.ThermalSubsystem", {
        "Id": "ThermalSubsystem", "Name": "Thermal Subsystem", "Status": ok(),
        "Fans": link(chp + "/ThermalSubsystem/Fans")})
    t.collection(chp + "/ThermalSubsystem/Fans", "#FanCollection.FanCollection", "Fan Collection",
                 [chp + "/ThermalSubsystem/Fans/" + f for f in fans])
    for i, fan in enumerate(fans):
        t.add(chp + "/ThermalSubsystem/Fans/" + fan, "#Fan.v1_5_0.Fan", {
            "Id": fan, "Name": "Fan %d" % (i + 1), "HotPluggable": True, "Model": "IW-F80", "Status": ok(),
            "SpeedPercent": {"DataSourceUri": chp + "/Sensors/" + fan, "Reading": 55,
                             "SpeedRPM": spec["fan_rpm"] + 120 * i}})
    t.add(chp + "/PowerSubsystem", "#PowerSubsystem.v1_1_0.PowerSubsystem", {
        "Id": "PowerSubsystem", "Name": "Power Subsystem", "Status": ok(),
        "CapacityWatts": spec["psu_capacity"] * len(psus),
        "PowerSupplies": link(chp + "/PowerSubsystem/PowerSupplies")})
    t.collection(chp + "/PowerSubsystem/PowerSupplies", "#PowerSupplyCollection.PowerSupplyCollection",
                 "Power Supply Collection", [chp + "/PowerSubsystem/PowerSupplies/" + p for p in psus])
    for i, psu in enumerate(psus):
        t.add(chp + "/PowerSubsystem/PowerSupplies/" + psu, "#PowerSupply.v1_5_0.PowerSupply", {
            "Id": psu, "Name": "Power Supply %d" % (i + 1), "Manufacturer": "Ironworks Power",
            "Model": "IWP-%dT" % spec["psu_capacity"], "SerialNumber": serial("PS", i + spec["seed"]),
            "FirmwareVersion": "2.4.1", "PowerCapacityWatts": spec["psu_capacity"], "PowerSupplyType": "AC",
            "HotPluggable": True, "Status": ok()})

    # --- NVLink fabric: the NVSwitches, outside the System's Processors
    switch_ids = ["NVSwitch_%d" % i for i in range(switches)]
    if switches:
        fab = ROOT + "/Fabrics/NVLink"
        t.collection(ROOT + "/Fabrics", "#FabricCollection.FabricCollection", "Fabric Collection", [fab])
        t.add(fab, "#Fabric.v1_3_0.Fabric", {"Id": "NVLink", "Name": "NVLink Fabric", "FabricType": "NVLink",
                                              "Status": ok(), "Switches": link(fab + "/Switches")})
        t.collection(fab + "/Switches", "#SwitchCollection.SwitchCollection", "Switch Collection",
                     [fab + "/Switches/" + s for s in switch_ids])
        for i, sw in enumerate(switch_ids):
            t.add(fab + "/Switches/" + sw, "#Switch.v1_9_0.Switch", {
                "Id": sw, "Name": "NVSwitch %d" % i, "SwitchType": "NVLink", "Manufacturer": "NVIDIA",
                "Model": "NVSwitch Gen3", "SerialNumber": serial("NVS", i + spec["seed"]),
                "FirmwareVersion": "96.10.4C.00.01", "Status": ok(), "Links": {"Chassis": link(chp)}})

    # --- the BMC
    t.collection(ROOT + "/Managers", "#ManagerCollection.ManagerCollection", "Manager Collection", [mgp])
    t.add(mgp, "#Manager.v1_19_0.Manager", {
        "Id": "BMC", "Name": "Ironworks BMC", "ManagerType": "BMC", "Model": "IW-BMC 3",
        "FirmwareVersion": spec["bmc_fw"], "UUID": spec["uuid_prefix"] + "0000000000b3",
        "PowerState": "On", "Status": ok(), "EthernetInterfaces": link(mgp + "/EthernetInterfaces"),
        "Links": {"ManagerForServers": [link(sysp)], "ManagerForChassis": [link(chp)]},
        "Actions": {"#Manager.Reset": {"target": mgp + "/Actions/Manager.Reset",
                                       "ResetType@Redfish.AllowableValues": ["GracefulRestart", "ForceRestart"]}}})
    t.collection(mgp + "/EthernetInterfaces", "#EthernetInterfaceCollection.EthernetInterfaceCollection",
                 "Manager Ethernet Interface Collection", [mgp + "/EthernetInterfaces/eth0"])
    bmc_mac = "B8:3F:D2:4B:%02X:01" % spec["seed"]
    t.add(mgp + "/EthernetInterfaces/eth0", "#EthernetInterface.v1_9_0.EthernetInterface", {
        "Id": "eth0", "Name": "BMC dedicated port", "MACAddress": bmc_mac, "PermanentMACAddress": bmc_mac,
        "SpeedMbps": 1000, "LinkStatus": "LinkUp", "InterfaceEnabled": True, "Status": ok()})

    # --- firmware
    update_service = {
        "Id": "UpdateService", "Name": "Update Service", "ServiceEnabled": True, "Status": ok(),
        "FirmwareInventory": link(fw),
        "Actions": {"#UpdateService.SimpleUpdate": {
            "target": ROOT + "/UpdateService/Actions/UpdateService.SimpleUpdate",
            "TransferProtocol@Redfish.AllowableValues": ["HTTP", "HTTPS"]}}}
    if spec.get("push_updates"):
        # Takes pushed images too (MultipartHttpPushUri), as OpenBMC-based BMCs do.
        update_service = dict(list(update_service.items())[:5] +
                              [("MultipartHttpPushUri", ROOT + "/UpdateService/upload")] +
                              list(update_service.items())[5:])
    t.add(ROOT + "/UpdateService", "#UpdateService.v1_11_0.UpdateService", update_service)
    inventory = [("BMC", "BMC firmware", spec["bmc_fw"], [mgp]),
                 ("BIOS", "BIOS", spec["bios"], [sysp]),
                 ("CPLD", "Motherboard CPLD", "0.2.7", [chp])]
    for i, gpu in enumerate(gpu_ids):
        inventory.append(("GPU_SXM_%d" % (i + 1), "GPU SXM %d firmware" % (i + 1), "96.00.74.00.1C",
                          [sysp + "/Processors/" + gpu]))
    for sw in switch_ids:
        inventory.append((sw, sw.replace("_", " ") + " firmware", "96.10.4C.00.01",
                          [ROOT + "/Fabrics/NVLink/Switches/" + sw]))
    for nic, _ in nics:
        inventory.append(("NIC_" + nic, "NIC %s firmware" % nic, spec["nic_fw"], [sysp + "/EthernetInterfaces/" + nic]))
    for psu in psus:
        inventory.append((psu, psu.replace("_", " ") + " firmware", "2.4.1",
                          [chp + "/PowerSubsystem/PowerSupplies/" + psu]))
    t.collection(fw, "#SoftwareInventoryCollection.SoftwareInventoryCollection", "Firmware Inventory",
                 [fw + "/" + i for i, _, _, _ in inventory])
    for fid, name, version, related in inventory:
        t.add(fw + "/" + fid, "#SoftwareInventory.v1_10_0.SoftwareInventory", {
            "Id": fid, "Name": name, "Version": version, "Updateable": True, "Manufacturer": "Ironworks"
            if not fid.startswith(("GPU", "NVSwitch")) else "NVIDIA", "Status": ok(),
            "RelatedItem": [link(r) for r in related]})
    return t


HGX = {
    "system_id": "HGX_0", "chassis_id": "Chassis_0", "model": "Ironworks G8-H100", "sku": "IW-G8H100",
    "serial": "IWG8H0041207", "hostname": "gpu-node", "uuid_prefix": "4a1b7c20-5e3d-4f61-9a2b-",
    "bios": "2.3.7", "bmc_fw": "4.12.0", "nic_fw": "28.39.1002", "seed": 1,
    "cpu_vendor": "Intel(R) Corporation", "cpu_model": "Intel(R) Xeon(R) Platinum 8480+", "cores": 56,
    "cpu_mhz": 3800, "dimms": 32, "dimm_gib": 64, "gpus": 8, "nvswitches": 4,
    "drives": [("IW-U3 3.84TB NVMe", 3840)] * 8 + [("IW-M2 960GB NVMe", 960)] * 2,
    "nics": [("ConnectX7_0", 400000), ("ConnectX7_1", 400000), ("OCP_0", 100000)],
    "fans": 10, "fan_rpm": 9200, "psus": 6, "psu_watts": 1650, "psu_capacity": 3000, "height_mm": 356,
}

COMPUTE = {
    "system_id": "1", "chassis_id": "1U", "model": "Ironworks C1-9354", "sku": "IW-C1", "serial": "IWC1R0087731",
    "hostname": "compute-node", "uuid_prefix": "7d52e0a4-13c8-4b9e-8f07-", "bios": "1.9.2", "bmc_fw": "4.12.0",
    "nic_fw": "22.41.1000", "seed": 2,
    "cpu_vendor": "Advanced Micro Devices, Inc.", "cpu_model": "AMD EPYC 9354 32-Core Processor", "cores": 32,
    "cpu_mhz": 3800, "dimms": 16, "dimm_gib": 32, "gpus": 0, "nvswitches": 0, "push_updates": True,
    "drives": [("IW-U2 1.92TB NVMe", 1920)] * 4,
    "nics": [("NIC_0", 25000), ("NIC_1", 25000)],
    "fans": 6, "fan_rpm": 7400, "psus": 2, "psu_watts": 210, "psu_capacity": 1200, "height_mm": 43,
}


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "mockups")
    build(HGX).write(os.path.join(out, "hgx-gpu-server"))
    build(COMPUTE).write(os.path.join(out, "compute-server"))


if __name__ == "__main__":
    main()
