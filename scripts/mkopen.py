#!/usr/bin/env python3
"""Writes millaudit open-format sector files (docs/format.md §5) by hand, for tests.

A third, dependency-free implementation of the header and of value encoding 1, independent of
the producer's writer and the checker's reader. It does not implement the index: callers give
values per entry number (entries not given hold 0x0000). Every header field can be overridden, and
the body can be truncated or extended, so tests can build malformed files on purpose.

As a module:
    import mkopen
    path = mkopen.write(tmpdir, "std", "0_1_3_2", {0: ("win", 1), 3: "draw", 4: 0x4010})
    path = mkopen.write(tmpdir, "std", "0_1_3_2", {}, magic=b"NOTMILL!", name="bad.mdb")

From the shell:
    mkopen.py DIR --variant std --sector 0_1_3_2 --value 0=win:1 --value 3=draw \
              [--set entry_count=25] [--name FILE] [--trailing N] [--truncate N]
"""
import argparse
import math
import os
import struct
import sys

MAGIC = b"\x89MILL\r\n\x1a"
VARIANTS = {"std": 1, "lask": 2, "mora": 3}
# docs/format.md §4.3 check values: rep_count(W) for W = 0..12.
REP_COUNT = [1, 4, 30, 158, 757, 2830, 8774, 22188, 46879, 82880, 124124, 157668, 170854]

OUTCOME_BITS = {"none": 0, "loss": 1, "draw": 2, "win": 3}


def entry_count(w, b):
    """Entries of a sector with w mover and b opponent stones (§4.3)."""
    return REP_COUNT[w] * math.comb(24 - w, b)


def encode(value):
    """A value word from an int (taken as is), 'draw', 'none', or (outcome, depth).

    No parity check on purpose: tests use ('win', 2) to make a bad encoding.
    """
    if isinstance(value, int):
        return value & 0xFFFF
    if isinstance(value, str):
        value = (value, 0)
    outcome, depth = value
    return (OUTCOME_BITS[outcome] << 14) | (depth & 0x3FFF)


def parse_sector(text):
    parts = [int(x) for x in text.split("_")]
    if len(parts) != 4:
        raise ValueError(f"bad sector {text!r}")
    return parts


def header(variant, sector, **over):
    """The 128 header bytes; keyword arguments override any field of the dict below (the variant
    byte is `variant_id`, so that `variant` stays the name used for the file)."""
    w, b, wf, bf = parse_sector(sector) if isinstance(sector, str) else sector
    fields = {
        "magic": MAGIC,
        "format_version": 1,
        "header_size": 128,
        "variant_id": VARIANTS[variant] if isinstance(variant, str) else variant,
        "rule_flags": 1 if variant == "mora" else 0,
        "w": w, "b": b, "wf": wf, "bf": bf,
        "entry_width": 2,
        "value_encoding": 1,
        "index_scheme": 1,
        "index_scheme_version": 1,
        "entry_count": entry_count(w, b) if w <= 12 and w + b <= 24 else 0,
        "producer": b"mkopen.py",
        "producer_version": b"1",
        "reserved": bytes(48),
    }
    unknown = set(over) - set(fields)
    if unknown:
        raise KeyError(f"unknown header fields {sorted(unknown)}")
    fields.update(over)
    out = bytearray()
    out += bytes(fields["magic"])[:8].ljust(8, b"\0")
    out += struct.pack("<HHBBBBBBBBHHQ", fields["format_version"], fields["header_size"],
                       fields["variant_id"], fields["rule_flags"], fields["w"], fields["b"],
                       fields["wf"], fields["bf"], fields["entry_width"],
                       fields["value_encoding"], fields["index_scheme"],
                       fields["index_scheme_version"], fields["entry_count"])
    out += bytes(fields["producer"])[:32].ljust(32, b"\0")
    out += bytes(fields["producer_version"])[:16].ljust(16, b"\0")
    out += bytes(fields["reserved"])[:48].ljust(48, b"\0")
    assert len(out) == 128
    return bytes(out)


def build(variant, sector, values, body_entries=None, trailing=b"", truncate=None, **over):
    """Whole file bytes. values: {entry: value} (see encode); body_entries defaults to the
    header's entry count; truncate cuts the file to that many bytes."""
    head = header(variant, sector, **over)
    n = struct.unpack_from("<Q", head, 24)[0] if body_entries is None else body_entries
    words = [0] * n
    for entry, value in values.items():
        words[entry] = encode(value)
    data = head + struct.pack(f"<{n}H", *words) + bytes(trailing)
    return data if truncate is None else data[:truncate]


def file_name(variant, sector):
    return f"{variant}_{sector}.mdb"


def write(directory, variant, sector, values, name=None, **kwargs):
    """Writes the file into directory (name defaults to <variant>_<sector>.mdb); returns its path."""
    path = os.path.join(str(directory), name or file_name(variant, sector))
    with open(path, "wb") as f:
        f.write(build(variant, sector, values, **kwargs))
    return path


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dir")
    ap.add_argument("--variant", required=True, choices=sorted(VARIANTS))
    ap.add_argument("--sector", required=True)
    ap.add_argument("--value", action="append", default=[],
                    help="ENTRY=win:N | loss:N | draw | none | 0xNNNN")
    ap.add_argument("--set", action="append", default=[], help="FIELD=INT header override")
    ap.add_argument("--name")
    ap.add_argument("--trailing", type=int, default=0)
    ap.add_argument("--truncate", type=int)
    args = ap.parse_args(argv)
    values = {}
    for item in args.value:
        entry, text = item.split("=", 1)
        if text.startswith("0x"):
            values[int(entry)] = int(text, 16)
        elif ":" in text:
            outcome, depth = text.split(":")
            values[int(entry)] = (outcome, int(depth))
        else:
            values[int(entry)] = text
    over = {k: int(v, 0) for k, v in (s.split("=", 1) for s in args.set)}
    print(write(args.dir, args.variant, args.sector, values, name=args.name,
                trailing=bytes(args.trailing), truncate=args.truncate, **over))


if __name__ == "__main__":
    main(sys.argv[1:])
