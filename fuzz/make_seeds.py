#!/usr/bin/env python3
"""Writes the seed corpus of redfish_normalizer_fuzz from the DMTF mockups (never committed).

usage: make_seeds.py MOCKUPS_DIR OUT_DIR

Each seed is the fuzz target's input format: JSON documents separated by the byte 0x01, one per
skeleton slot, in the skeleton's order (see redfish_normalizer_fuzz.cpp). Slots are filled with
the mockup documents that play the same role, so the fuzzer starts from real BMC answers.
"""
import json
import os
import sys

# Skeleton slot -> candidate mockup paths (relative to the mockup root), first found wins.
SLOTS = [
    [""], ["Systems/437XR1138R2", "Systems/CXL-System"],
    ["Systems/437XR1138R2/Processors", "Systems/CXL-System/Processors"],
    ["Systems/437XR1138R2/Processors/CPU1", "Systems/CXL-System/Processors/CPU"],
    ["Chassis/CXLType2/Processors/GPU", "Systems/437XR1138R2/Processors/FPGA1"],
    ["Systems/437XR1138R2/Memory", "Systems/CXL-System/Memory"],
    ["Systems/437XR1138R2/Memory/DIMM1", "Systems/CXL-System/Memory/CXL2"],
    [], [], [],
    ["Systems/437XR1138R2/SimpleStorage"], ["Systems/437XR1138R2/SimpleStorage/1"],
    ["Systems/437XR1138R2/EthernetInterfaces"],
    ["Systems/437XR1138R2/EthernetInterfaces/12446A3B0411"],
    ["Chassis"], ["Chassis/1U", "Chassis/CXL-Chassis"],
    ["Chassis/1U/Sensors"], ["Chassis/1U/Sensors/CPU1Temp"],
    ["Chassis/1U/ThermalSubsystem"], ["Chassis/1U/ThermalSubsystem/Fans"],
    ["Chassis/1U/ThermalSubsystem/Fans/Bay1"], ["Chassis/1U/ThermalSubsystem/ThermalMetrics"],
    ["Chassis/1U/PowerSubsystem"], ["Chassis/1U/PowerSubsystem/PowerSupplies"],
    ["Chassis/1U/PowerSubsystem/PowerSupplies/Bay1"],
    ["Chassis/1U/Thermal", "Chassis/CXL-Chassis/Thermal"], ["Chassis/1U/Power"],
    ["Managers"], ["Managers/BMC", "Managers/FM1"],
    ["Systems/437XR1138R2/LogServices"], ["Systems/437XR1138R2/LogServices/Log1"],
    ["Systems/437XR1138R2/LogServices/Log1/Entries"],
    ["Systems/437XR1138R2/LogServices/Log1/Entries/1"],
    ["UpdateService"], ["UpdateService/FirmwareInventory"],
    ["UpdateService/FirmwareInventory/BMC"],
]


def load(root, rel):
    path = os.path.join(root, rel, "index.json")
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as f:
        document = json.load(f)
    # Links are the skeleton's business: the mockup's would point outside the small graph.
    document.pop("@Redfish.Copyright", None)
    return document


def strip_links(document):
    """Drops the properties that link elsewhere, so the skeleton's links stay in force."""
    if not isinstance(document, dict):
        return document
    return {k: v for k, v in document.items()
            if not (isinstance(v, dict) and "@odata.id" in v) and k not in ("Members", "Links")}


def seed(root, keep_links):
    parts = []
    for candidates in SLOTS:
        document = {}
        for rel in candidates:
            found = load(root, rel)
            if found is not None:
                document = found
                break
        if not keep_links:
            document = strip_links(document)
        parts.append(json.dumps(document, separators=(",", ":")).encode())
    return b"\x01".join(parts)


# Extra single-document seeds: slot -> path pattern (glob, relative to a mockup root).
POOLS = [
    (1, "Systems/*"), (3, "Systems/*/Processors/*"), (4, "Chassis/*/Processors/*"),
    (6, "Systems/*/Memory/*"), (13, "Systems/*/EthernetInterfaces/*"), (15, "Chassis/*"),
    (17, "Chassis/*/Sensors/*"), (20, "Chassis/*/ThermalSubsystem/Fans/*"),
    (24, "Chassis/*/PowerSubsystem/PowerSupplies/*"), (25, "Chassis/*/Thermal"),
    (26, "Chassis/*/Power"), (28, "Managers/*"), (32, "*/*/LogServices/*/Entries/*"),
    (35, "UpdateService/FirmwareInventory/*"),
]


def single_seeds(root):
    import glob
    for slot, pattern in POOLS:
        for path in sorted(glob.glob(os.path.join(root, pattern, "index.json"))):
            rel = os.path.relpath(os.path.dirname(path), root)
            document = strip_links(load(root, rel))
            yield slot, rel, b"\x01" * slot + json.dumps(document, separators=(",", ":")).encode()


def main():
    mockups, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    count = 0
    for name in sorted(os.listdir(mockups)):
        root = os.path.join(mockups, name)
        if not os.path.isfile(os.path.join(root, "index.json")):
            continue
        for keep in (False, True):
            with open(os.path.join(out, f"{name}-{'links' if keep else 'plain'}"), "wb") as f:
                f.write(seed(root, keep))
            count += 1
        for slot, rel, data in single_seeds(root):
            with open(os.path.join(out, f"{name}-{slot}-{rel.replace('/', '_')}"), "wb") as f:
                f.write(data)
            count += 1
    print(f"{count} seeds in {out}")


if __name__ == "__main__":
    main()
