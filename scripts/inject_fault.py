#!/usr/bin/env python3
"""Edit one entry of an open-format sector file in place, to prove the checker sees it.

usage: inject_fault.py FILE (--entry N | --board BOARD)
                       (--outcome win|draw|loss [--depth D] | --depth-delta +1|-1 |
                        --word 0xNNNN | --swap-with N)

  --entry N        the entry number (0-based, docs/format.md §4.3)
  --board BOARD    a position in dump notation (mover/opponent, e.g. "a1,d1,b4/c3,e4,e5") in any of
                   its 16 symmetric forms; it is canonicalised here (§4.1-4.2) and its entry found
                   with `millaudit dump --with-entry FILE` (binary: $MILLAUDIT_BIN, else `millaudit`
                   on PATH, else build/millaudit beside this script)
  --outcome O      write a well-formed value: win (odd depth), loss (even depth), draw. Without
                   --depth the current depth is kept if its parity fits, else raised by one.
  --depth-delta    move the depth one step within the same outcome: +1 = two plies longer, -1 = two
                   plies shorter (win 3 -> win 5 / win 1), so the word stays well-formed and only
                   the depth is wrong
  --word W         write the raw 16-bit word W (e.g. 0xC002, a bad encoding)
  --swap-with N    exchange the words of the entry and of entry N
  --reseal         afterwards write the SHA-256 of the new body into the header (bytes 80..111, when
                   it records one), as a producer that computed wrong values would: the file then
                   passes its body digest and only the values are wrong. Without it the old digest
                   stays and every reader refuses the file (docs/format.md §5.1) unless told
                   --no-digest-check; verify calls the file damaged (docs/download.md: not what
                   its producer wrote, never a discrepancy of the solver) and does not check it.

Prints one line per change: file, entry, byte offset, old word -> new word. Dependency-free.
Exit: 0 changed, 2 usage or impossible edit, 3 file unusable.
"""
import argparse
import hashlib
import os
import pathlib
import shutil
import struct
import subprocess
import sys

MAGIC = b"\x89MILL\r\n\x1a"
HEADER = 128
POINTS = ["a1", "d1", "g1", "b2", "d2", "f2", "c3", "d3", "e3", "a4", "b4", "c4", "e4", "f4", "g4",
          "c5", "d5", "e5", "b6", "d6", "f6", "a7", "d7", "g7"]
# docs/format.md §4.1: row k lists the image bit of source bits 0..23.
PERMS = [list(map(int, row.split())) for row in """
 0  1  2  3  4  5  6  7  8  9 10 11 12 13 14 15 16 17 18 19 20 21 22 23
21  9  0 18 10  3 15 11  6 22 19 16  7  4  1 17 12  8 20 13  5 23 14  2
23 22 21 20 19 18 17 16 15 14 13 12 11 10  9  8  7  6  5  4  3  2  1  0
 2 14 23  5 13 20  8 12 17  1  4  7 16 19 22  6 11 15  3 10 18  0  9 21
 2  1  0  5  4  3  8  7  6 14 13 12 11 10  9 17 16 15 20 19 18 23 22 21
21 22 23 18 19 20 15 16 17  9 10 11 12 13 14  6  7  8  3  4  5  0  1  2
23 14  2 20 13  5 17 12  8 22 19 16  7  4  1 15 11  6 18 10  3 21  9  0
 0  9 21  3 10 18  6 11 15  1  4  7 16 19 22  8 12 17  5 13 20  2 14 23
 6  7  8  3  4  5  0  1  2 11 10  9 14 13 12 21 22 23 18 19 20 15 16 17
15 11  6 18 10  3 21  9  0 16 19 22  1  4  7 23 14  2 20 13  5 17 12  8
17 16 15 20 19 18 23 22 21 12 13 14  9 10 11  2  1  0  5  4  3  8  7  6
 8 12 17  5 13 20  2 14 23  7  4  1 22 19 16  0  9 21  3 10 18  6 11 15
 8  7  6  5  4  3  2  1  0 12 13 14  9 10 11 23 22 21 20 19 18 17 16 15
15 16 17 18 19 20 21 22 23 11 10  9 14 13 12  0  1  2  3  4  5  6  7  8
17 12  8 20 13  5 23 14  2 16 19 22  1  4  7 21  9  0 18 10  3 15 11  6
 6 11 15  3 10 18  0  9 21  7  4  1 22 19 16  2 14 23  5 13 20  8 12 17
""".strip().splitlines()]


class Unusable(Exception):
    """The file cannot be edited (exit 3)."""


class Impossible(Exception):
    """The requested edit makes no sense for this entry (exit 2)."""


def parse_board(text):
    if "/" not in text:
        raise Impossible(f"board '{text}': expected MOVER/OPPONENT")
    masks = []
    seen = set()
    for side in text.strip().split("/", 1):
        mask = 0
        if side not in ("-", ""):
            for name in side.split(","):
                name = name.strip()
                if name not in POINTS:
                    raise Impossible(f"board '{text}': '{name}' is not a point")
                if name in seen:
                    raise Impossible(f"board '{text}': point {name} listed twice")
                seen.add(name)
                mask |= 1 << POINTS.index(name)
        masks.append(mask)
    return masks[0], masks[1]


def permute(op, mask):
    out = 0
    for p in range(24):
        if mask >> p & 1:
            out |= 1 << PERMS[op][p]
    return out


def canonical(mover, opp):
    return min((permute(k, mover), permute(k, opp)) for k in range(16))


def format_board(mover, opp):
    def side(m):
        names = [POINTS[p] for p in range(24) if m >> p & 1]
        return ",".join(names) if names else "-"
    return f"{side(mover)}/{side(opp)}"


def describe(word):
    outcome, depth = word >> 14, word & 0x3FFF
    if outcome == 0:
        return "none" if depth == 0 else "bad encoding"
    if outcome == 2:
        return "draw" if depth == 0 else "bad encoding"
    if outcome == 1:
        return f"loss {depth}" if depth % 2 == 0 else "bad encoding"
    return f"win {depth}" if depth % 2 == 1 else "bad encoding"


def encode(outcome, depth):
    if outcome == "draw":
        return 0x8000
    if outcome == "win":
        return 0xC000 | depth
    return 0x4000 | depth


def millaudit_binary():
    env = os.environ.get("MILLAUDIT_BIN")
    if env:
        return env
    found = shutil.which("millaudit")
    if found:
        return found
    return str(pathlib.Path(__file__).resolve().parents[1] / "build" / "millaudit")


def entry_of_board(path, board_text):
    mover, opp = parse_board(board_text)
    want = format_board(*canonical(mover, opp))
    # a file an earlier edit left failing its body digest is still to be looked into
    proc = subprocess.run([millaudit_binary(), "dump", "--with-entry", "--no-digest-check", str(path)],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise Unusable(f"millaudit dump --with-entry {path} failed: {proc.stderr.strip()}")
    for line in proc.stdout.splitlines():
        if line.startswith("#"):
            continue
        tokens = line.split()
        if want in tokens:
            for tok in tokens:
                if tok.isdigit():
                    return int(tok), want
    raise Impossible(f"{path}: board {board_text} (canonical {want}) is not an entry of this sector")


def read_header(f, path):
    head = f.read(HEADER)
    if len(head) < HEADER or head[:8] != MAGIC:
        raise Unusable(f"{path}: offset 0: not an open-format sector file (magic or header missing)")
    count = struct.unpack_from("<Q", head, 24)[0]
    size = os.fstat(f.fileno()).st_size
    if size != HEADER + 2 * count:
        raise Unusable(f"{path}: offset {size}: file length {size} != 128 + 2 * {count}")
    return count


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("file")
    where = ap.add_mutually_exclusive_group(required=True)
    where.add_argument("--entry", type=int)
    where.add_argument("--board")
    what = ap.add_mutually_exclusive_group(required=True)
    what.add_argument("--outcome", choices=["win", "draw", "loss"])
    what.add_argument("--depth-delta", choices=["+1", "-1"])
    what.add_argument("--word")
    what.add_argument("--swap-with", type=int)
    ap.add_argument("--depth", type=int)
    ap.add_argument("--reseal", action="store_true")
    args = ap.parse_args(argv)
    if args.depth is not None and args.outcome is None:
        ap.error("--depth goes with --outcome")
    path = pathlib.Path(args.file)
    try:
        with open(path, "r+b") as f:
            count = read_header(f, path)
            if args.board is not None:
                entry, canon = entry_of_board(path, args.board)
                print(f"{path}: board {args.board} is canonical {canon}, entry {entry}")
            else:
                entry = args.entry
            if not 0 <= entry < count:
                raise Impossible(f"{path}: entry {entry} out of range 0..{count - 1}")

            def word_at(e):
                f.seek(HEADER + 2 * e)
                return struct.unpack("<H", f.read(2))[0]

            def put(e, new):
                old = word_at(e)
                f.seek(HEADER + 2 * e)
                f.write(struct.pack("<H", new))
                print(f"{path}: entry {e} (offset {HEADER + 2 * e}): 0x{old:04X} ({describe(old)}) -> "
                      f"0x{new:04X} ({describe(new)})")

            old = word_at(entry)
            outcome, depth = old >> 14, old & 0x3FFF
            if args.word is not None:
                try:
                    new = int(args.word, 0)
                except ValueError:
                    raise Impossible(f"--word {args.word}: not a number")
                if not 0 <= new <= 0xFFFF:
                    raise Impossible(f"--word {args.word}: not a 16-bit word")
                put(entry, new)
            elif args.swap_with is not None:
                other = args.swap_with
                if not 0 <= other < count or other == entry:
                    raise Impossible(f"--swap-with {other}: not another entry in 0..{count - 1}")
                a, b = old, word_at(other)
                if a == b:
                    raise Impossible(f"entries {entry} and {other} hold the same word 0x{a:04X}")
                put(entry, b)
                put(other, a)
            elif args.depth_delta is not None:
                if describe(old) in ("none", "draw", "bad encoding"):
                    raise Impossible(f"{path}: entry {entry} holds {describe(old)}: no depth to change")
                nd = depth + (2 if args.depth_delta == "+1" else -2)
                if nd < (1 if outcome == 3 else 0) or nd > 0x3FFF:
                    raise Impossible(f"{path}: entry {entry}: depth {depth} cannot move {args.depth_delta}")
                put(entry, (old & 0xC000) | nd)
            else:
                if args.depth is not None:
                    nd = args.depth
                elif args.outcome == "draw":
                    nd = 0
                else:
                    nd = depth if outcome in (1, 3) else 0
                    want_odd = args.outcome == "win"
                    if (nd % 2 == 1) != want_odd:
                        nd += 1
                if not 0 <= nd <= 0x3FFF:
                    raise Impossible(f"--depth {nd}: out of range 0..16383")
                new = encode(args.outcome, nd)
                if new == old:
                    raise Impossible(f"{path}: entry {entry} already holds {describe(old)}")
                put(entry, new)
            if args.reseal:
                f.seek(80)
                if f.read(32) != bytes(32):  # all zero: the producer recorded no digest
                    f.seek(HEADER)
                    digest = hashlib.sha256(f.read()).digest()
                    f.seek(80)
                    f.write(digest)
                    print(f"{path}: offset 80: body digest resealed to {digest.hex()}")
    except Impossible as e:
        print(f"inject_fault: {e}", file=sys.stderr)
        return 2
    except (Unusable, OSError) as e:
        print(f"inject_fault: {e}", file=sys.stderr)
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main())
