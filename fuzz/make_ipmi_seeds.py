#!/usr/bin/env python3
"""Seed corpora for the IPMI fuzz targets, from the material in ../shared/ipmi-sim:

    make_ipmi_seeds.py KIND IPMI_SIM_DIR OUT_DIR      KIND: packet, sdr, sel or fru

packet: every captured datagram of ipmi-session-decode.txt ("raw: 06 00 ff 07 ...");
sdr:    every record sdrcomp compiles from bmc.sdrs (8-bit and 6-bit packed names);
sel:    every sel_add of bmc.emu as the 16 bytes Get SEL Entry returns;
fru:    the two images mkfru.py writes.
"""
import os
import subprocess
import sys
import tempfile


def packets(src):
    with open(os.path.join(src, "ipmi-session-decode.txt")) as f:
        for line in f:
            text = line.strip()
            if text.startswith("raw: "):
                yield bytes(int(word, 16) for word in text[5:].split())


def unescape(text):
    out, i = bytearray(), 0
    while i < len(text):
        if text[i] == "\\" and i + 2 < len(text):
            out.append(int(text[i + 1:i + 3], 16))
            i += 3
        else:
            out.append(ord(text[i]))
            i += 1
    return bytes(out)


def sdr_records(src):
    for flags in (["-8"], []):
        with tempfile.NamedTemporaryFile() as out:
            subprocess.run(["sdrcomp"] + flags + ["-o", out.name, os.path.join(src, "bmc.sdrs")],
                           check=True)
            for line in open(out.name, encoding="latin-1").read().splitlines():
                if ":d:" in line:
                    yield unescape(line.split(":d:", 1)[1])


def sel_entries(src):
    with open(os.path.join(src, "bmc.emu")) as f:
        number = 0
        for line in f:
            words = line.split()
            if len(words) > 2 and words[0] == "sel_add":
                number += 1
                yield bytes([number, 0]) + bytes(int(w, 0) for w in words[2:])


def fru_images(src):
    with tempfile.TemporaryDirectory() as out:
        subprocess.run([sys.executable, os.path.join(src, "mkfru.py"), out, "9001"], check=True)
        for name in ("fru0.bin", "fru1.bin"):
            with open(os.path.join(out, name), "rb") as f:
                yield f.read()


def main():
    kind, src, out = sys.argv[1], sys.argv[2], sys.argv[3]
    source = {"packet": packets, "sdr": sdr_records, "sel": sel_entries, "fru": fru_images}[kind]
    os.makedirs(out, exist_ok=True)
    count = 0
    for count, data in enumerate(source(src), 1):
        with open(os.path.join(out, "%s-%02d" % (kind, count)), "wb") as seed:
            seed.write(data)
    print("%d %s seeds in %s" % (count, kind, out))


if __name__ == "__main__":
    main()
