"""One way to write a count (issue 45): every output says "1 entry" and "3,421,866 discrepancies",
because every count goes through common/counts.h (ma_num, ma_noun, ma_count, MA_NUM, MA_COUNT).
This test greps the product's C sources for a count written by hand: a printf conversion of an
integer right before a counted noun ("%llu entries", "%zu sectors", `" PRIu64 " positions`), and a
plural picked by hand (`n == 1 ? "" : "s"`, `== 1 ? "y" : "ies"`). Identifiers that are numbers
stand after their noun ("entry 189586", "offset 80", "run 3") and are not matched.

The second half proves the pattern can fail: it finds each kind of hand-written count in a planted
snippet, so a grep that silently matches nothing cannot pass this test."""
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]
PRODUCT = ["cli", "common", "reports", "verifier", "indexer", "checksums", "solver", "examples", "lib"]

NOUNS = (r"entr(?:y|ies)|positions?|sectors?|discrepanc(?:y|ies)|files?|bytes?|rows?|turns?|runs?|moves?"
         r"|roots?|errors?|differences?|chunks?|shards?|lines?|records?|pairs?|wins?|draws?|losses|players?"
         r"|games?|plies|ply|classes|class|boards?|representatives?|threads?|digests?|values?|sides?"
         r"|steps?|items?|cases?|tests?|failures?|mutants?|seconds?|inputs?|outputs?|keys?|markers?")
# an integer conversion, then (inside the literal or after a PRI macro) a space and a counted noun
COUNT_BY_HAND = re.compile(
    r'%[-+ #0-9.*]*(?:hh|h|ll|l|z|j|t)?[udi](?:\s+|"\s*PRI[udi](?:8|16|32|64)\s*"\s*)?\s?(?:more\s+)?(?:' + NOUNS + r')\b'
    r'|"\s*PRI[udi](?:8|16|32|64)\s*"\s+(?:more\s+)?(?:' + NOUNS + r')\b')
PLURAL_BY_HAND = re.compile(r'[!=]=\s*1\s*\?\s*"(?:|s|y|ies|es)"\s*:\s*"(?:|s|y|ies|es)"')
# string and character literals are matched first, so that a "/*" or "//" inside one (a URL, CSS)
# does not start a comment that would hide the rest of the file from the grep
TOKEN = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|/\*.*?\*/|//[^\n]*', re.S)


def offences(text):
    """(line number, line) of every hand-written count or plural in C source text (comments out)."""
    code = TOKEN.sub(lambda m: m.group(0) if m.group(0)[0] in "\"'" else re.sub(r"[^\n]", " ", m.group(0)), text)
    found = []
    for pat in (COUNT_BY_HAND, PLURAL_BY_HAND):
        for m in pat.finditer(code):
            line = code.count("\n", 0, m.start()) + 1
            found.append((line, text.splitlines()[line - 1].strip()))
    return sorted(set(found))


def product_sources():
    for d in PRODUCT:
        base = ROOT / d
        if base.is_dir():
            yield from sorted(p for p in base.rglob("*") if p.suffix in (".c", ".h"))


def test_no_count_is_written_by_hand():
    bad = []
    for path in product_sources():
        for line, src in offences(path.read_text(errors="replace")):
            bad.append(f"{path.relative_to(ROOT)}:{line}: {src}")
    assert not bad, ("counts written by hand (use MA_NUM / MA_COUNT / ma_noun of common/counts.h):\n"
                     + "\n".join(bad))


def test_the_grep_finds_every_kind_of_hand_written_count():
    planted = {
        'printf("%llu entries\\n", n);': 1,
        'printf("... %zu more rows", n);': 1,
        'fprintf(f, "%zu sectors", n);': 1,
        'printf("%" PRIu64 " positions", n);': 1,
        'snprintf(b, 9, "%d bytes", MAX);': 1,
        'printf("%s sector%s", a, n == 1 ? "" : "s");': 1,
        'printf("%s entr%s", a, n == 1 ? "y" : "ies");': 1,
        'printf("%s", MA_COUNT(n, "entry", "entries"));': 0,
        'printf("entry %llu (offset %llu)", e, o);': 0,   # identifiers, not counts
        '/* printf("%llu entries") in a comment */': 0,
        'const char *css = "a { b: url(http://x/*) }"; printf("%zu files", n); /* */': 1,  # no comment in a string
    }
    for snippet, expected in planted.items():
        assert len(offences(snippet)) == expected, snippet
