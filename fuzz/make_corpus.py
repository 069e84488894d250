#!/usr/bin/env python3
"""Writes the seed corpus of the Malom reader fuzzers into fuzz/corpus/<reader>/.

Seeds are small: the smallest real .sec2 fixtures, files derived from them (a STONE_DIFF and a
legacy .sec rendering of the same entries), and malformed variants of each (truncated, bad header
fields, bad overflow tables). The big fixtures are not copied. Run from anywhere:
    python3 fuzz/make_corpus.py [FIXTURE_DIR]
Files named found_* are inputs the fuzzers found that add coverage (merged with libFuzzer's
-merge=1 after the runs, the smallest ones kept); this script leaves them alone.
"""
import pathlib
import struct
import sys

HERE = pathlib.Path(__file__).resolve().parent
FIX = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else HERE.parent.parent / "shared/fixtures/malom"
EXC = FIX / "original-excerpt"


def out(reader, name, data):
    d = HERE / "corpus" / reader
    d.mkdir(parents=True, exist_ok=True)
    (d / name).write_bytes(bytes(data))


def entries3(data, f1):
    """(key1, key2) of every 3-byte entry of a .sec2 body (no overflow resolution)."""
    res = []
    f2 = 24 - f1
    for i in range(64, len(data) - 4, 3):
        raw = data[i] | data[i + 1] << 8 | data[i + 2] << 16
        k1 = raw & ((1 << f1) - 1)
        k1 -= (1 << f1) if k1 >> (f1 - 1) else 0
        k2 = raw >> f1
        k2 -= (1 << f2) if k2 >> (f2 - 1) else 0
        res.append((k1, k2))
    return res


def with_overflow(data, entry_size, f1, records):
    """A copy of a .sec2 whose listed entries say overflow, with the given (index, value) table."""
    n = struct.unpack_from("<i", data, len(data) - 4)[0]
    assert n == 0, "seed files have no overflow table of their own"
    b = bytearray(data[:-4])
    f2 = 8 * entry_size - f1
    spec = 1 << (f2 - 1)  # raw field-2 bits of the most negative value
    for idx, _ in records:
        off = 64 + entry_size * idx
        raw = int.from_bytes(b[off:off + entry_size], "little")
        raw = (raw & ((1 << f1) - 1)) | (spec << f1)
        b[off:off + entry_size] = raw.to_bytes(entry_size, "little")
    b += struct.pack("<i", len(records))
    for idx, val in records:
        b += struct.pack("<ii", idx, val)
    return b


def main():
    sec2 = {n: (EXC / f"{n}.sec2").read_bytes() for n in
            ("std_0_0_9_9", "std_0_1_9_8", "std_1_1_8_8", "std_1_2_8_7", "lask_0_0_10_10",
             "lask_1_1_9_9", "mora_0_1_12_11", "mora_1_2_11_10")}
    for n, d in sec2.items():
        out("sec2", f"valid_{n}", d)
    g = sec2["std_1_1_8_8"]
    out("sec2", "truncated_header", g[:40])
    out("sec2", "truncated_body", g[:200])
    out("sec2", "one_byte_extra", g + b"\0")
    out("sec2", "empty", b"")
    for name, at, val in (("bad_version", 0, 3), ("bad_entry_size", 4, 4), ("bad_field2_offset", 8, 13),
                          ("bad_flag", 12, 7), ("bad_reserved", 33, 1)):
        b = bytearray(g)
        b[at] = val
        out("sec2", name, b)
    b = bytearray(g)
    b[-4:] = struct.pack("<i", -1)
    out("sec2", "negative_overflow_count", b)
    out("sec2", "overflow_valid", with_overflow(g, 3, 12, [(11, 5000), (20, -3000)]))
    out("sec2", "overflow_index_out_of_range", with_overflow(g, 3, 12, [(11, 5000)])[:-8] +
        struct.pack("<ii", 92, 5000))
    ov = with_overflow(g, 3, 12, [(11, 5000), (20, 6000)])
    ov[-16:] = struct.pack("<iiii", 20, 6000, 11, 5000)
    out("sec2", "overflow_unsorted", ov)
    ov[-16:] = struct.pack("<iiii", 11, 6000, 11, 5000)
    out("sec2", "overflow_duplicate", ov)
    out("sec2", "overflow_fits_inline", with_overflow(g, 3, 12, [(11, 100)]))
    b = with_overflow(g, 3, 12, [(11, 5000)])
    b[-8:-4] = struct.pack("<i", 12)
    out("sec2", "overflow_record_without_marker", b)

    # A STONE_DIFF rendering (2-byte entries, F1 = 6) of std_1_1_8_8: markers kept, values squeezed.
    ents = entries3(g, 12)
    sd = bytearray(struct.pack("<iii", 2, 2, 6) + b"\1" + bytes(51))
    for k1, k2 in ents:
        k1 = max(-32, min(31, k1)) if k1 else 0
        k2 = max(-511, min(511, k2))
        sd += (((k2 & 0x3FF) << 6) | (k1 & 0x3F)).to_bytes(2, "little")
    sd += struct.pack("<i", 0)
    out("sec2", "stonediff_std_1_1_8_8", sd)
    out("sec2", "stonediff_overflow", with_overflow(sd, 2, 6, [(0, 700)]))

    # Legacy .sec renderings of the same 92 entries: markers 180+op, values as small depths.
    def legacy(ents):
        b = bytearray()
        for i, (k1, k2) in enumerate(ents):
            if k1 == 0 and k2 < 0:
                b.append(180 - k2 - 1)
            elif k1 == 0:
                b.append(255 - min(k2, 60))
            else:
                b.append(i % 20)
        return b
    body = legacy(ents)
    out("sec", "valid_std_1_1_8_8", body + struct.pack("<i", 0))
    out("sec", "valid_std_0_0_9_9", bytes([3]) + struct.pack("<i", 0))
    body24 = legacy(entries3(sec2["std_0_1_9_8"], 12))
    out("sec", "valid_std_0_1_9_8", body24 + struct.pack("<i", 0))
    ovb = bytearray(body)
    ovb[10] = 179
    ovb[11] = 179
    out("sec", "overflow_valid", ovb + struct.pack("<iiiii", 2, 10, 300, 11, -100))
    out("sec", "overflow_unsorted", ovb + struct.pack("<iiiii", 2, 11, 300, 10, -100))
    out("sec", "overflow_duplicate", ovb + struct.pack("<iiiii", 2, 10, 300, 10, -100))
    out("sec", "overflow_out_of_range", ovb + struct.pack("<iiiii", 2, 10, 300, 92, -100))
    out("sec", "overflow_fits_inline", ovb + struct.pack("<iiiii", 2, 10, 100, 11, -10))
    out("sec", "overflow_missing", ovb + struct.pack("<i", 0))
    out("sec", "truncated", body[:50])
    out("sec", "size_mismatch", body + struct.pack("<i", 0) + b"\0")
    out("sec", "negative_count", body + struct.pack("<i", -2))

    for v in ("std", "lask", "mora"):
        out("secval", f"valid_{v}", (EXC / f"{v}.secval").read_bytes())
    s = (EXC / "std.secval").read_bytes()
    out("secval", "truncated", s[:3000])
    out("secval", "bad_label", s.replace(b"virt_win_val", b"virt_won_val", 1))
    out("secval", "bad_count", s.replace(b"\n498\n", b"\n499\n", 1))
    out("secval", "duplicate_value", s.replace(b"0 1 3 2  -290", b"0 1 3 2  -289", 1))
    out("secval", "value_out_of_range", s.replace(b"0 1 3 2  -290", b"0 1 3 2  -300", 1))
    out("secval", "crlf", s.replace(b"\n", b"\r\n"))
    out("secval", "tiny", b"virt_loss_val: -5\nvirt_win_val: 5\n1\n0 0 9 9  0\n")


if __name__ == "__main__":
    main()
