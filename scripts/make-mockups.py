#!/usr/bin/env python3
"""Writes Ironhold's own Redfish mockups (mockups/hgx-gpu-server, mockups/compute-server).

The demo and the simulator serve these; a user's clone has no ../shared DMTF mockups. They follow
the DMTF "short form" layout (one index.json per URL under the folder that stands for /redfish/v1)
and the Redfish schemas. All values are invented by us: the vendor "Ironworks" does not exist.

Choices worth knowing:
- The GPU server follows NVIDIA's HGX layout (tests/data/vendor-captures/nvidia-hgx/FACTS.md):
  the host System (HGX_0) holds the CPUs and DIMMs; the GPU tray is a System of its own,
  /redfish/v1/Systems/HGX_Baseboard_0, whose Processors are the GPUs GPU_SXM_1..8 (with
  ProcessorMetrics, MemorySummary/MemoryMetrics and NVLink Ports with metrics) and whose Memory
  is each GPU's HBM (GPU_SXM_n_DRAM_0 with MemoryMetrics and Oem.Nvidia row remapping). Each GPU
  has a Chassis HGX_GPU_SXM_n with its temperature and power Sensors. The NVSwitches are Switches
  of /redfish/v1/Fabrics/HGX_NVLinkFabric_0, with a Chassis HGX_NVSwitch_n each. Firmware items
  are named as HGX names them (HGX_FW_GPU_SXM_n, HGX_FW_NVSwitch_n). The values are ours; the
  GPU model string is what a real DGX H100 reports ("H100 80GB HBM3").
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


GPU_MODEL = "H100 80GB HBM3"  # what a DGX H100's HGX baseboard reports (the nvidia-hgx capture)
GPU_VBIOS = "96.00.89.00.01"
NVLINK_PORTS = 4  # a real H100 has 18; four keep the tree small and prove the sums


def build_hgx_baseboard(t, spec, board, gpu_ids, switches):
    chp = ROOT + "/Chassis/" + spec["chassis_id"]
    sysp = ROOT + "/Systems/" + spec["system_id"]
    t.add(board, "#ComputerSystem.v1_22_0.ComputerSystem", {
        "Id": "HGX_Baseboard_0", "Name": "HGX Baseboard", "SystemType": "Physical",
        "Manufacturer": "NVIDIA", "Model": "HGX H100 8-GPU", "SerialNumber": serial("1654923", spec["seed"]),
        "PowerState": "On", "Status": {"State": "Enabled", "Health": "OK", "HealthRollup": "OK"},
        "Processors": link(board + "/Processors"), "Memory": link(board + "/Memory")})
    t.collection(board + "/Processors", "#ProcessorCollection.ProcessorCollection", "Processor Collection",
                 [board + "/Processors/" + g for g in gpu_ids])
    t.collection(board + "/Memory", "#MemoryCollection.MemoryCollection", "Memory Collection",
                 [board + "/Memory/%s_DRAM_0" % g for g in gpu_ids])
    for i, gpu in enumerate(gpu_ids):
        n = i + 1
        path = board + "/Processors/" + gpu
        gch = ROOT + "/Chassis/HGX_" + gpu
        dram = board + "/Memory/%s_DRAM_0" % gpu
        uuid = "%08x-2cde-9ed1-b0a8-ef1964f3%04x" % (0x796fa900 + spec["seed"], n)
        t.add(path, "#Processor.v1_18_0.Processor", {
            "Id": gpu, "Name": "GPU SXM %d" % n, "ProcessorType": "GPU",
            "Manufacturer": "NVIDIA", "Model": GPU_MODEL, "PartNumber": "2330-885-A1",
            "SerialNumber": serial("165822", i + spec["seed"]), "UUID": uuid, "FirmwareVersion": GPU_VBIOS,
            "MaxTDPWatts": 700, "Location": {"PartLocation": {"ServiceLabel": "SXM%d" % n, "LocationType": "Slot"}},
            "SystemInterface": {"InterfaceType": "PCIe", "PCIe": {"LanesInUse": 16, "MaxLanes": 16,
                                                                 "PCIeType": "Gen5", "MaxPCIeType": "Gen5"}},
            "MemorySummary": {"TotalMemorySizeMiB": 81559, "ECCModeEnabled": True,
                              "Metrics": link(path + "/MemorySummary/MemoryMetrics")},
            "Metrics": link(path + "/ProcessorMetrics"), "Ports": link(path + "/Ports"),
            "Status": ok(), "Links": {"Chassis": link(gch), "Memory": [link(dram)]}})
        t.add(path + "/ProcessorMetrics", "#ProcessorMetrics.v1_6_1.ProcessorMetrics", {
            "Id": "ProcessorMetrics", "Name": "GPU SXM %d Processor Metrics" % n,
            "OperatingSpeedMHz": 1980, "BandwidthPercent": 0,
            "PCIeErrors": {"CorrectableErrorCount": 0, "FatalErrorCount": 0, "NonFatalErrorCount": 0,
                           "L0ToRecoveryCount": 0, "NAKReceivedCount": 0, "NAKSentCount": 0,
                           "ReplayCount": 0, "ReplayRolloverCount": 0},
            "CacheMetricsTotal": {"LifeTime": {"CorrectableECCErrorCount": 0, "UncorrectableECCErrorCount": 0}},
            "Oem": {"Nvidia": {"@odata.type": "#NvidiaProcessorMetrics.v1_1_0.NvidiaProcessorMetrics",
                               "ThrottleReasons": ["NA"]}}})
        t.add(path + "/MemorySummary/MemoryMetrics", "#MemoryMetrics.v1_7_0.MemoryMetrics", {
            "Id": "MemoryMetrics", "Name": "GPU SXM %d Memory Summary Metrics" % n,
            "LifeTime": {"CorrectableECCErrorCount": 0, "UncorrectableECCErrorCount": 0}})
        ports = [path + "/Ports/NVLink_%d" % k for k in range(NVLINK_PORTS)]
        t.collection(path + "/Ports", "#PortCollection.PortCollection", "Port Collection", ports)
        for k, port in enumerate(ports):
            t.add(port, "#Port.v1_4_0.Port", {
                "Id": "NVLink_%d" % k, "Name": "NVLink %d" % k, "PortProtocol": "NVLink",
                "PortType": "DownstreamPort", "LinkStatus": "LinkUp", "LinkState": "Enabled",
                "CurrentSpeedGbps": 212.496, "MaxSpeedGbps": 212.496, "Status": ok(),
                "Metrics": link(port + "/Metrics")})
            t.add(port + "/Metrics", "#PortMetrics.v1_3_0.PortMetrics", {
                "Id": "Metrics", "Name": "NVLink %d Metrics" % k, "RXBytes": 0, "TXBytes": 0,
                "Oem": {"Nvidia": {"@odata.type": "#NvidiaPortMetrics.v1_0_0.NvidiaPortMetrics",
                                   "NVLinkErrors": {"DataCRCCount": 0, "FlitCRCCount": 0, "RecoveryCount": 0,
                                                    "ReplayCount": 0, "RuntimeError": False,
                                                    "TrainingError": False}}}})
        t.add(dram, "#Memory.v1_17_0.Memory", {
            "Id": "%s_DRAM_0" % gpu, "Name": "GPU SXM %d HBM" % n, "MemoryType": "DRAM",
            "MemoryDeviceType": "HBM3", "CapacityMiB": 81559, "ErrorCorrection": "SingleBitECC",
            "Status": ok(), "Metrics": link(dram + "/MemoryMetrics"),
            "Oem": {"Nvidia": {"@odata.type": "#NvidiaMemory.v1_0_0.NvidiaMemory",
                               "RowRemappingFailed": False, "RowRemappingPending": False}},
            "Links": {"Processors": [link(path)]}})
        t.add(dram + "/MemoryMetrics", "#MemoryMetrics.v1_7_0.MemoryMetrics", {
            "Id": "MemoryMetrics", "Name": "GPU SXM %d HBM Metrics" % n,
            "LifeTime": {"CorrectableECCErrorCount": 0, "UncorrectableECCErrorCount": 0},
            "Oem": {"Nvidia": {"@odata.type": "#NvidiaMemoryMetrics.v1_2_0.NvidiaGPUMemoryMetrics",
                               "RowRemapping": {"CorrectableRowRemappingCount": 0,
                                                "UncorrectableRowRemappingCount": 0}}}})
        t.add(gch, "#Chassis.v1_23_0.Chassis", {
            "Id": "HGX_" + gpu, "Name": "HGX GPU SXM %d" % n, "ChassisType": "Module",
            "Manufacturer": "NVIDIA", "Model": GPU_MODEL, "SerialNumber": serial("165822", i + spec["seed"]),
            "PartNumber": "2330-885-A1", "UUID": uuid, "Status": ok(), "Sensors": link(gch + "/Sensors"),
            "Links": {"ComputerSystems": [link(board)], "ContainedBy": link(chp),
                      "Processors": [link(path)]}})
        sensors = [
            temp_sensor(t, gch, "HGX_%s_TEMP_0" % gpu, "GPU SXM %d Temperature" % n, 38 + i % 4, 85, 92,
                        "GPU", path),
            plain_sensor(t, gch, "HGX_%s_Power_0" % gpu, "GPU SXM %d Power" % n, "Power", "W", 90 + 7 * i,
                         "GPU", path),
        ]
        t.collection(gch + "/Sensors", "#SensorCollection.SensorCollection", "Sensor Collection",
                     [s["@odata.id"] for s in sensors])


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
                 "Computer System Collection",
                 [sysp] + ([ROOT + "/Systems/HGX_Baseboard_0"] if gpus else []))
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
    board = ROOT + "/Systems/HGX_Baseboard_0"
    gpu_path = {g: board + "/Processors/" + g for g in gpu_ids}
    t.collection(sysp + "/Processors", "#ProcessorCollection.ProcessorCollection", "Processor Collection",
                 [sysp + "/Processors/" + p for p in cpus])
    for i, cpu in enumerate(cpus):
        t.add(sysp + "/Processors/" + cpu, "#Processor.v1_18_0.Processor", {
            "Id": cpu, "Name": "Processor %d" % i, "Socket": "CPU %d" % i, "ProcessorType": "CPU",
            "ProcessorArchitecture": "x86", "InstructionSet": "x86-64",
            "Manufacturer": spec["cpu_vendor"], "Model": spec["cpu_model"],
            "TotalCores": spec["cores"], "TotalThreads": 2 * spec["cores"], "MaxSpeedMHz": spec["cpu_mhz"],
            "SerialNumber": serial("CPUX", i + spec["seed"]), "Status": ok(),
            "Links": {"Chassis": link(chp)}})
    if gpus:
        build_hgx_baseboard(t, spec, board, gpu_ids, switches)

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
    t.collection(ROOT + "/Chassis", "#ChassisCollection.ChassisCollection", "Chassis Collection",
                 [chp] + [ROOT + "/Chassis/HGX_GPU_SXM_%d" % (i + 1) for i in range(gpus)] +
                 [ROOT + "/Chassis/HGX_NVSwitch_%d" % i for i in range(switches)])
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
    fab = ROOT + "/Fabrics/HGX_NVLinkFabric_0"
    if switches:
        t.collection(ROOT + "/Fabrics", "#FabricCollection.FabricCollection", "Fabric Collection", [fab])
        t.add(fab, "#Fabric.v1_3_0.Fabric", {"Id": "HGX_NVLinkFabric_0", "Name": "NVLink Fabric",
                                              "FabricType": "NVLink", "Status": ok(),
                                              "Switches": link(fab + "/Switches")})
        t.collection(fab + "/Switches", "#SwitchCollection.SwitchCollection", "Switch Collection",
                     [fab + "/Switches/" + s for s in switch_ids])
        for i, sw in enumerate(switch_ids):
            swc = ROOT + "/Chassis/HGX_" + sw
            t.add(fab + "/Switches/" + sw, "#Switch.v1_9_0.Switch", {
                "Id": sw, "Name": "NVSwitch %d" % i, "SwitchType": "NVLink", "Manufacturer": "NVIDIA",
                "Model": "NVSwitch Gen3", "SerialNumber": serial("NVS", i + spec["seed"]),
                "FirmwareVersion": "96.10.4C.00.01", "Status": ok(),
                "UUID": spec["uuid_prefix"] + "%012x" % (0x5c0000 + i),
                "CurrentBandwidthGbps": 6656, "Metrics": link(fab + "/Switches/" + sw + "/SwitchMetrics"),
                "Links": {"Chassis": link(swc)}})
            # What an HGX service publishes of a switch's health: its internal memory's ECC counts
            # and its PCIe errors (the DGX H100 capture's SwitchMetrics).
            t.add(fab + "/Switches/" + sw + "/SwitchMetrics", "#SwitchMetrics.v1_0_0.SwitchMetrics", {
                "Id": sw, "Name": sw + " Metrics",
                "InternalMemoryMetrics": {"LifeTime": {"CorrectableECCErrorCount": 0,
                                                        "UncorrectableECCErrorCount": 0}},
                "PCIeErrors": {"CorrectableErrorCount": 0, "FatalErrorCount": 0, "L0ToRecoveryCount": 0,
                               "NAKReceivedCount": 0, "NAKSentCount": 0, "NonFatalErrorCount": 0,
                               "ReplayCount": 0, "ReplayRolloverCount": 0}})
            t.add(swc, "#Chassis.v1_23_0.Chassis", {
                "Id": "HGX_" + sw, "Name": "HGX NVSwitch %d" % i, "ChassisType": "Component",
                "Manufacturer": "NVIDIA", "Model": "NVSwitch Gen3", "SerialNumber": serial("NVS", i + spec["seed"]),
                "Status": ok(), "Links": {"ContainedBy": link(chp), "Switches": [link(fab + "/Switches/" + sw)]}})

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
        inventory.append(("HGX_FW_GPU_SXM_%d" % (i + 1), "GPU SXM %d firmware" % (i + 1), GPU_VBIOS,
                          [gpu_path[gpu]]))
    for sw in switch_ids:
        inventory.append(("HGX_FW_" + sw, sw.replace("_", " ") + " firmware", "96.10.4C.00.01",
                          [fab + "/Switches/" + sw]))
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
            if not fid.startswith("HGX_") else "NVIDIA", "Status": ok(),
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
