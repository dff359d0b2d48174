#!/usr/bin/env python3
"""Writes one seed file per captured packet ("raw: 06 00 ff 07 ...") of an RMCP+ decode."""
import os
import sys


def main():
    decode, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    count = 0
    with open(decode) as f:
        for line in f:
            text = line.strip()
            if not text.startswith("raw: "):
                continue
            data = bytes(int(word, 16) for word in text[5:].split())
            count += 1
            with open(os.path.join(out, "packet-%02d" % count), "wb") as seed:
                seed.write(data)
    print("%d seeds in %s" % (count, out))


if __name__ == "__main__":
    main()
