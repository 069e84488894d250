"""The independence scan: the producer (solver/) and the checker share nothing about rules, move
generation, indexing or file formats (README "Independence", BRIEF "Independence is the product").

This module is the check itself; tests/integration/test_independence.py runs it on the real tree
and on temporary copies with a planted violation, so what is tested is this code, not a re-typed
rule. It can also be run by hand: `python3 tests/integration/independence.py [ROOT] [BUILD_DIR]`.

Sides. Every C source directory of the tree belongs to exactly one side, and a new directory that
belongs to none is itself a violation (so a new module cannot escape the scan):
  producer  solver/ and cli/cmd_solve.c (the `solve` command, the only cli file that may reach
            solver/);
  checker   include/ (the public API) verifier/ (formats, check, run, audit) indexer/ reports/
            (store, render) checksums/ fuzz/ and every other cli/ file (new files, e.g. the run
            engine, are picked up by the directory they are in);
  common    common/: errors, exit codes, progress lines, file opening -- both sides link it, so it
            must hold nothing about rules, indexing or formats (FORBIDDEN_WORDS, FINGERPRINTS);
            and its public face in include/millaudit/ (COMMON_FILES: error.h, verdict.h,
            progress.h), which common/ includes;
  dispatch  cli/main.c and cli/commands.h: the command table, which names both sides' entry
            points and nothing else.
tests/ may use both sides and is not scanned.

Source rules (scan):
  1. Every #include is resolved to a real path the way the compiler does with the include
     directories CMake sets (the including file's directory for "...", then the repository root
     and build/generated; generated headers are mapped back to their configure_file template),
     `../` normalised and symbolic links followed. An include the scan cannot read (a macro) is a
     violation. Resolved edges must not cross sides: checker <-> producer never; common/ includes
     only common/ and generated headers; the dispatcher includes only commands.h, common/ and
     generated headers.
  2. No side names an identifier that only the other side declares (a hand-written prototype
     needs no include): names declared at file scope in the producer's headers or defined with
     external linkage in its .c files must not appear in checker code, and vice versa.
  3. Headers both sides include (common/*.h, cli/commands.h, generated headers) are where
     header-only sharing would hide from nm: every macro, static inline function and table in them
     is listed and checked against the forbidden concepts, tables are forbidden outright, and
     cli/commands.h may only declare `int ma_cmd_<name>(int argc, char **argv);`.
  4. common/ (code, not comments) contains no forbidden concept: identifiers whose words name
     rules, indexing or formats, the numbers that fingerprint the board (adjacency and mill masks,
     representative counts, the 24-point mask), or format markers in string literals.

Build rules (symbols, needs a build directory):
  5. nm over the static archives: no producer archive references a symbol the checker's archives
     define, and vice versa; no global symbol is defined on both sides (a static link would silently
     pick one); common's archive references neither side and its symbols name no forbidden concept.
     Every libma_*.a must belong to a side.
"""
import os
import pathlib
import re
import subprocess
import sys
from dataclasses import dataclass

PRODUCER_DIRS = ("solver",)
PRODUCER_FILES = ("cli/cmd_solve.c",)
CHECKER_DIRS = ("include", "lib", "examples", "verifier", "reports", "indexer", "checksums", "cli", "fuzz")
COMMON_DIRS = ("common",)
# The public face of common/ (errors, the verdict, the opaque progress handle): declared where a
# program of the API finds them, included by common/ itself, so common like the rest of it.
COMMON_FILES = ("include/millaudit/error.h", "include/millaudit/progress.h", "include/millaudit/verdict.h")
DISPATCH_FILES = ("cli/main.c", "cli/commands.h")
# Not part of any linked program: tests use both sides on purpose; build trees are outputs.
UNSCANNED_DIRS = ("tests", ".git", "docs", "scripts", "demo-out")
SOURCE_SUFFIXES = (".c", ".h", ".inc", ".def", ".h.in")

# Words that name a rules, indexing or format concept. An identifier in common/ code is split into
# words (at '_' and lower/upper case changes); any word equal to one of these is a violation.
FORBIDDEN_WORDS = {
    # rules and move generation
    "mill", "mills", "adj", "adjacent", "adjacency", "neighbour", "neighbours", "neighbor",
    "neighbors", "fly", "flies", "flying", "removal", "removable", "place", "places", "placing",
    "placement", "slide", "slides", "blocked", "stone", "stones", "board", "boards", "mover",
    "opponent", "opp", "turn", "turns", "ply", "plies", "variant", "variants", "std", "lask",
    "mora", "morris", "morabaraba", "ruleset", "rules", "rule", "retro", "solver", "succ",
    "successor", "successors",
    # indexing
    "rank", "unrank", "colex", "binom", "binomial", "binomials", "choose", "canon", "canonical",
    "sym", "symmetry", "perm", "permutation", "orbit", "orbits", "rep", "reps", "representative",
    "stabiliser", "stabilizer", "sector", "sectors", "hash_count", "marker", "markers",
    # values and formats
    "outcome", "depth", "wdl", "win", "loss", "draw", "malom", "sec2", "secval", "mdb",
    "magic",
}

# Literal numbers that fingerprint the board or the index (docs/format.md §1, §4.3;
# malom-format.md §1.3, §1.4): neighbour masks, mill-line masks, representative counts and the
# 24-point mask. Small values (< 100) are too common to mean anything and are left out.
_OPEN_ADJ = [514, 21, 16386, 1040, 170, 8208, 2176, 336, 4224, 2098177, 264712, 33856, 139520,
             1069088, 8396804, 67584, 688128, 69632, 525312, 5570560, 532480, 4194816, 11010048,
             4210688]
_OPEN_MILLS = [7, 56, 448, 3584, 28672, 229376, 1835008, 14680064, 2097665, 263176, 34880, 146,
               4784128, 135424, 1056800, 8404996, 73, 292, 2392064, 9568256]
_MALOM_ADJ = [386, 5, 1034, 20, 4136, 80, 16544, 65, 98817, 1280, 264708, 5120, 1058832, 20480,
              4235328, 16640, 8519936, 327680, 656384, 1310720, 2625536, 5242880, 10502144,
              4259840, 517, 2068, 8272, 32833, 132354, 529416, 2117664, 8405376, 328192, 1312768,
              5251072, 4292608]
_MALOM_MILLS = [14, 56, 224, 131, 3584, 14336, 57344, 33536, 917504, 3670016, 14680064, 8585216,
                65793, 263172, 1052688, 4210752]
_REP_COUNTS = [158, 757, 2830, 8774, 22188, 46879, 82880, 124124, 157668, 170854]
FINGERPRINTS = {n for n in _OPEN_ADJ + _OPEN_MILLS + _MALOM_ADJ + _MALOM_MILLS + _REP_COUNTS
                if n >= 100} | {0xFFFFFF}
# Format markers that must not appear in common/'s string literals.
FORMAT_STRINGS = ("\\x89MILL", "MILL\\r\\n", ".mdb", ".sec2", ".secval", ".sec", "sym16")

# an entry point, optionally with the command line as typed (an opaque struct of cli_util.h)
COMMAND_DECL = re.compile(r"^(int\s+ma_cmd_[a-z_]+\s*\(\s*int\s+argc\s*,\s*char\s*\*\*\s*argv\s*"
                          r"(,\s*const\s+struct\s+ma_cli_invocation\s*\*\s*typed\s*)?\)"
                          r"|struct\s+ma_cli_invocation)\s*;$")


@dataclass(frozen=True)
class Violation:
    rule: str   # "include", "identifier", "shared-header", "common", "layout", "symbol"
    where: str  # file (relative to the root) or archive
    what: str

    def __str__(self):
        return f"[{self.rule}] {self.where}: {self.what}"


# --- C text ------------------------------------------------------------------------------------

def lex(text):
    """(code, strings): the text with comments blanked and string/char literals reduced to "" / ''
    (line structure kept), and the contents of the string literals."""
    out, strings = [], []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            # a backslash-newline continues a // comment
            while j < n and j > 0 and text[j - 1] == "\\":
                k = text.find("\n", j + 1)
                j = n if k < 0 else k
            out.append(" " + "\n" * text.count("\n", i, j))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(" " + "\n" * text.count("\n", i, j))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            if c == '"':
                strings.append(text[i + 1:j])
            out.append(c + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out), strings


def join_continuations(code):
    return code.replace("\\\n", " ")


IDENT = re.compile(r"\b[A-Za-z_][A-Za-z0-9_]*\b")
NUMBER = re.compile(r"\b(0[xX][0-9a-fA-F]+|\d+)[uUlL]*\b")
DIRECTIVE = re.compile(r"^[ \t]*#[ \t]*(\w+)(.*)$", re.M)
C_KEYWORDS = set("""auto break case char const continue default do double else enum extern float for
goto if inline int long register restrict return short signed sizeof static struct switch typedef
union unsigned void volatile while _Bool _Atomic _Static_assert _Thread_local _Noreturn _Alignas
_Alignof _Generic bool true false NULL defined include define undef ifdef ifndef endif elif pragma
error line""".split())


def words(identifier):
    """The words of an identifier: split at '_' and at lower->upper case changes, lower-cased."""
    parts = []
    for chunk in identifier.split("_"):
        parts += re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z0-9]+", chunk)
    return [p.lower() for p in parts if p]


def forbidden_words(identifier):
    ws = words(identifier)
    hits = [w for w in ws if w in FORBIDDEN_WORDS]
    joined = "_".join(ws)
    hits += [w for w in FORBIDDEN_WORDS if "_" in w and w in joined]
    return hits


def number_value(token):
    t = token.rstrip("uUlL")
    try:
        return int(t, 16) if t[:2].lower() == "0x" else int(t, 8) if len(t) > 1 and t[0] == "0" else int(t)
    except ValueError:
        return None


# --- the tree --------------------------------------------------------------------------------

class Tree:
    """The C sources of a checkout at `root`, each assigned to a side."""

    def __init__(self, root):
        self.root = pathlib.Path(root).resolve()
        self.generated = self._generated_headers()
        self.files = {}      # relative path -> side
        self.layout = []     # layout violations
        for path in sorted(self.root.rglob("*")):
            if not path.is_file() or not str(path.name).endswith(SOURCE_SUFFIXES):
                continue
            rel = path.relative_to(self.root).as_posix()
            top = rel.split("/", 1)[0]
            if "/" not in rel or top in UNSCANNED_DIRS or top.startswith("build"):
                continue
            side = self.side_of(rel)
            if side is None:
                self.layout.append(Violation(
                    "layout", rel, f"source directory {top}/ belongs to no side (producer, checker, "
                    "common); add it to tests/integration/independence.py"))
                continue
            self.files[rel] = side
        self._lexed = {}

    @staticmethod
    def side_of(rel):
        if rel in DISPATCH_FILES:
            return "dispatch"
        if rel in PRODUCER_FILES:
            return "producer"
        if rel in COMMON_FILES:
            return "common"
        top = rel.split("/", 1)[0]
        if top in PRODUCER_DIRS:
            return "producer"
        if top in COMMON_DIRS:
            return "common"
        if top in CHECKER_DIRS:
            return "checker"
        return None

    def _generated_headers(self):
        """name -> template, from every configure_file(<in> ${CMAKE_BINARY_DIR}/generated/<name>)."""
        gen = {}
        pat = re.compile(r"configure_file\(\s*(\S+)\s+\$\{CMAKE_BINARY_DIR\}/generated/(\S+?)[\s)]")
        for cml in self.root.rglob("CMakeLists.txt"):
            rel = cml.relative_to(self.root).as_posix()
            if rel.startswith("build") or rel.startswith("tests/"):
                continue
            for src, name in pat.findall(cml.read_text()):
                src = src.replace("${CMAKE_SOURCE_DIR}/", "").replace("${CMAKE_CURRENT_SOURCE_DIR}/", "")
                gen[name] = (cml.parent / src).resolve()
        return gen

    def lexed(self, rel):
        if rel not in self._lexed:
            text = (self.root / rel).read_text(errors="replace")
            code, strings = lex(text)
            self._lexed[rel] = (join_continuations(code), strings)
        return self._lexed[rel]

    def includes(self, rel):
        """[(target, how)]: target is a path relative to the root, "<system:name>", or None when
        the directive cannot be read (computed include); how is the directive text."""
        code, _ = self.lexed(rel)
        raw = (self.root / rel).read_text(errors="replace")
        out = []
        for m in DIRECTIVE.finditer(code):
            if m.group(1) != "include":
                continue
            line_no = code.count("\n", 0, m.start()) + 1
            # take the operand from the raw line: lexing reduced "..." to ""
            raw_line = raw.splitlines()[line_no - 1] if line_no <= len(raw.splitlines()) else ""
            op = re.search(r'#\s*include\s*("([^"]+)"|<([^>]+)>)', raw_line)
            if not op:
                out.append((None, raw_line.strip() or m.group(0).strip()))
                continue
            quoted, name = op.group(2) is not None, op.group(2) or op.group(3)
            out.append((self.resolve(rel, name, quoted), op.group(0)))
        return out

    def resolve(self, rel, name, quoted):
        # the repository root and include/ (the public API), as CMake sets them
        dirs = ([(self.root / rel).parent] if quoted else []) + [self.root, self.root / "include"]
        for d in dirs:
            cand = d / name
            if cand.is_file():
                real = cand.resolve()
                try:
                    return real.relative_to(self.root).as_posix()
                except ValueError:
                    return f"<outside:{real}>"
        if name in self.generated:  # build/generated, mapped back to its template
            return self.generated[name].relative_to(self.root).as_posix()
        return f"<system:{name}>"


# --- rules -----------------------------------------------------------------------------------

def _allowed_edge(src_side, dst_rel, dst_side):
    if dst_side is None:
        return False
    if src_side == "common":
        return dst_side == "common"
    if src_side == "dispatch":
        return dst_side == "common" or dst_rel == "cli/commands.h"
    if dst_side == "dispatch":
        return dst_rel == "cli/commands.h"  # both sides implement the commands it declares
    return dst_side in ("common", src_side)


def include_violations(tree):
    out = []
    for rel, side in tree.files.items():
        for target, how in tree.includes(rel):
            if target is None:
                out.append(Violation("include", rel, f"computed include the scan cannot resolve: {how}"))
            elif target.startswith("<outside:"):
                out.append(Violation("include", rel, f"{how} resolves outside the tree: {target[9:-1]}"))
            elif target.startswith("<system:"):
                continue
            else:
                dst_side = tree.files.get(target) or tree.side_of(target)
                if target.endswith(".h.in") and target.startswith("common/"):
                    dst_side = "common"  # a generated header (version)
                if not _allowed_edge(side, target, dst_side):
                    out.append(Violation("include", rel,
                                         f"{how} resolves to {target} ({dst_side or 'no side'}); "
                                         f"{side} code may not include it"))
    return out


def _file_scope_names(code, header):
    """Identifiers a file owns at file scope: in a header its macros, typedef names, tags, enum
    constants, static inline functions and objects; in a .c file the functions and objects it
    defines with external linkage. Prototypes and extern declarations own nothing."""
    names = set()
    for m in DIRECTIVE.finditer(code):
        if m.group(1) == "define":
            d = IDENT.match(m.group(2).strip())
            if d and header:
                names.add(d.group(0))
    body = DIRECTIVE.sub("", code)
    if header:
        # enum constants and tags declared in a header are visible to every includer; in a .c
        # file they are private to it
        for em in re.finditer(r"\benum\b[^{;]*\{([^}]*)\}", body):
            for item in em.group(1).split(","):
                im = IDENT.match(item.strip())
                if im:
                    names.add(im.group(0))
        for tm in re.finditer(r"\b(?:struct|union|enum)\s+([A-Za-z_]\w*)\s*\{", body):
            names.add(tm.group(1))
    # walk file-scope declarations: text at brace depth 0 up to ';' or a function body '{'
    # (a struct/enum body or an initialiser stays part of its declaration)
    depth, start, function_body = 0, 0, False
    for i, ch in enumerate(body):
        if ch == "{":
            if depth == 0:
                function_body = re.search(r"\)\s*$", body[start:i]) is not None and \
                    "=" not in body[start:i]
                if function_body:
                    _declaration_names(body[start:i], header, names, definition=True)
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0 and function_body:
                start = i + 1
        elif ch == ";" and depth == 0:
            _declaration_names(body[start:i], header, names, definition=False)
            start = i + 1
    return {n for n in names if n not in C_KEYWORDS and not n.startswith("__")}


def _declaration_names(decl, header, names, definition):
    decl = re.sub(r"__attribute__\s*\(\(.*?\)\)", " ", decl, flags=re.S).strip()
    while re.search(r"\{[^{}]*\}", decl):  # drop struct/enum bodies and initialisers
        decl = re.sub(r"\{[^{}]*\}", " ", decl)
    if not decl:
        return
    static = re.search(r"\bstatic\b", decl) is not None
    if not header and static:
        return
    if re.search(r"\btypedef\b", decl):
        if not header:
            return  # a typedef in a .c file is private to it
        fp = re.search(r"\(\s*\*\s*([A-Za-z_]\w*)\s*\)", decl)
        last = fp.group(1) if fp else (IDENT.findall(decl) or [None])[-1]
        if last:
            names.add(last)
        return
    fn = re.match(r"[^(=]*?\b([A-Za-z_]\w*)\s*\(", decl)
    if fn and "=" not in decl.split("(", 1)[0]:
        # a function belongs to the side that defines it; a prototype (which may be hand-written
        # for the other side's function, the very thing rule 2 looks for) establishes nothing
        if definition:
            names.add(fn.group(1))
        return
    if definition or re.search(r"\bextern\b", decl):
        return  # struct/enum/union bodies: tags were taken above; extern: defined elsewhere
    # object declarations: the identifier before '=' or '[' or the end
    head = decl.split("=", 1)[0]
    head = head.split("[", 1)[0]
    ids = IDENT.findall(head)
    if ids and not re.match(r"\s*(struct|union|enum)\s+\w+\s*$", head):
        names.add(ids[-1])


def _side_names(tree, side):
    names = set()
    for rel, s in tree.files.items():
        if s != side:
            continue
        code, _ = tree.lexed(rel)
        names |= _file_scope_names(code, header=not rel.endswith(".c"))
    return names


def identifier_violations(tree):
    producer, checker = _side_names(tree, "producer"), _side_names(tree, "checker")
    shared = _side_names(tree, "common") | _side_names(tree, "dispatch")
    only = {"producer": producer - checker - shared, "checker": checker - producer - shared}
    out = []
    both = sorted((producer & checker) - shared)
    if both:
        # the same name defined on both sides: a copied piece, or at least a name that makes
        # rule 2 and the nm check blind to which side a use means
        out.append(Violation("identifier", "producer+checker",
                             f"names defined on both sides: {', '.join(both[:8])}"))
    for rel, side in tree.files.items():
        if side not in ("producer", "checker", "common", "dispatch"):
            continue
        code, _ = tree.lexed(rel)
        used = set(IDENT.findall(DIRECTIVE.sub(lambda m: "" if m.group(1) == "include" else m.group(0), code)))
        others = {"producer": ["checker"], "checker": ["producer"],
                  "common": ["producer", "checker"], "dispatch": []}[side]
        for other in others:
            hit = sorted(used & only[other])
            if hit:
                out.append(Violation("identifier", rel,
                                     f"{side} code names {other} identifiers: {', '.join(hit[:8])}"))
    return out


def _static_inline_functions(code):
    return re.findall(r"\bstatic\s+inline\b[^;{(]*?\b([A-Za-z_]\w*)\s*\(", code)


def _tables(code):
    """[(name, element count)] of array initialisers with numeric elements."""
    out = []
    for m in re.finditer(r"\b([A-Za-z_]\w*)\s*(\[[^\]]*\]\s*)+=\s*\{", code):
        j, depth = m.end(), 1
        while j < len(code) and depth:
            depth += {"{": 1, "}": -1}.get(code[j], 0)
            j += 1
        nums = NUMBER.findall(code[m.end():j])
        if len(nums) >= 4:
            out.append((m.group(1), len(nums)))
    return out


def _concept_hits(code, strings):
    """Forbidden concepts in code (identifiers, numbers) and string literals."""
    hits = []
    for ident in sorted(set(IDENT.findall(code))):
        if ident in C_KEYWORDS:
            continue
        bad = forbidden_words(ident)
        if bad:
            hits.append(f"identifier {ident} ({'/'.join(sorted(set(bad)))})")
    for tok in NUMBER.findall(code):
        v = number_value(tok)
        if v in FINGERPRINTS:
            hits.append(f"number {tok} (a board/index constant)")
    for s in strings:
        for marker in FORMAT_STRINGS:
            if marker in s:
                hits.append(f'string "{s[:40]}" ({marker}: a file format marker)')
    return hits


def shared_header_violations(tree):
    """Headers both sides include: what a header-only share (macro, static inline, table) would
    carry is listed and must be free of rules, indexing and formats; tables are forbidden."""
    out = []
    reach = {"producer": set(), "checker": set()}
    for rel, side in tree.files.items():
        if side in reach:
            for target, _ in tree.includes(rel):
                if target and not target.startswith("<"):
                    reach[side].add(target)
    for rel in sorted(reach["producer"] & reach["checker"]):
        code, strings = tree.lexed(rel) if rel in tree.files else lex((tree.root / rel).read_text())
        if rel == "cli/commands.h":
            body = DIRECTIVE.sub("", code)
            for decl in (d.strip() + ";" for d in body.split(";") if d.strip()):
                if not COMMAND_DECL.match(re.sub(r"\s+", " ", decl)):
                    out.append(Violation("shared-header", rel,
                                         f"declares more than command entry points: {decl[:80]}"))
            for m in DIRECTIVE.finditer(code):
                if m.group(1) not in ("ifndef", "define", "endif") or \
                        (m.group(1) == "define" and m.group(2).split()[1:]):
                    out.append(Violation("shared-header", rel, f"directive #{m.group(1)}{m.group(2)}"))
            continue
        for name, n in _tables(code):
            out.append(Violation("shared-header", rel,
                                 f"table {name} ({n} numbers) in a header both sides include"))
        items = []
        for m in DIRECTIVE.finditer(code):
            if m.group(1) == "define" and m.group(2).split()[1:]:
                items.append(("macro", m.group(0)))
        for fn in _static_inline_functions(code):
            items.append(("static inline", fn))
        for kind, text in items:
            bad = _concept_hits(text, [])
            if bad:
                out.append(Violation("shared-header", rel, f"{kind} {text.strip()[:60]}: {'; '.join(bad)}"))
    return out


def common_violations(tree):
    out = []
    for rel, side in tree.files.items():
        if side != "common":
            continue
        code, strings = tree.lexed(rel)
        hits = _concept_hits(code, strings)
        if hits:
            more = f" (+{len(hits) - 6} more)" if len(hits) > 6 else ""
            out.append(Violation("common", rel, "common/ holds nothing about rules, indexing or "
                                                f"formats; found {'; '.join(hits[:6])}{more}"))
    return out


def scan(root):
    """Every source-level violation of the tree at root (empty when independent)."""
    tree = Tree(root)
    return (tree.layout + include_violations(tree) + identifier_violations(tree)
            + shared_header_violations(tree) + common_violations(tree))


# --- symbols (nm) ----------------------------------------------------------------------------

REQUIRED_ARCHIVES = {
    "libma_solver.a": "producer", "libma_cli_producer.a": "producer",
    "libma_check.a": "checker", "libma_run.a": "checker", "libma_audit.a": "checker",
    "libma_store.a": "checker", "libma_render.a": "checker",
    "libma_formats.a": "checker", "libma_indexer.a": "checker",
    "libma_checksums.a": "checker", "libma_cli_checker.a": "checker",
    "libma_common.a": "common",
}
# Every archive the build may make; one not listed here belongs to no side and fails the check.
ARCHIVE_SIDES = dict(REQUIRED_ARCHIVES, **{
    # the test-only producer with planted bugs (millaudit-planted, docs/solver.md)
    "libma_solver_planted.a": "producer", "libma_cli_producer_planted.a": "producer",
})
WEAK_SHARED = {"ma_module_stamp"}  # common/module_stamp.c, linked into every module, weak


def archives(build):
    """{archive path: side} for every libma_*.a under the build directory (tests excluded)."""
    out = {}
    for a in sorted(pathlib.Path(build).rglob("libma_*.a")):
        out[a] = ARCHIVE_SIDES.get(a.name)
    return out


def nm_symbols(archive):
    """(defined global, undefined) symbol names of an archive or object."""
    res = subprocess.run(["nm", "-g", "-P", str(archive)], capture_output=True, text=True, check=True)
    defined, undefined = set(), set()
    for line in res.stdout.splitlines():
        parts = line.split()
        if len(parts) < 2 or line.endswith(":") or parts[0].endswith("]:"):
            continue
        name, kind = parts[0], parts[1]
        if kind == "U":
            undefined.add(name)
        elif kind not in ("w", "v"):
            defined.add(name)
    return defined, undefined


def symbol_violations(archive_sides):
    """Rule 5 on {archive: side}."""
    out = []
    sym = {}
    for a, side in archive_sides.items():
        if side is None:
            out.append(Violation("symbol", str(a), "archive belongs to no side; add it to "
                                                   "ARCHIVE_SIDES in tests/integration/independence.py"))
            continue
        sym[a] = (side, *nm_symbols(a))
    defined = {s: set() for s in ("producer", "checker", "common")}
    for side, d, _ in sym.values():
        defined[side] |= d
    for a, (side, d, u) in sym.items():
        for other in {"producer": ["checker"], "checker": ["producer"],
                      "common": ["producer", "checker"]}[side]:
            hit = sorted(u & defined[other])
            if hit:
                out.append(Violation("symbol", a.name, f"{side} archive references {other} symbols: "
                                                       f"{', '.join(hit[:8])}"))
        if side == "common":
            bad = sorted(n for n in d if forbidden_words(n))
            if bad:
                out.append(Violation("symbol", a.name, f"common defines rules/index/format symbols: "
                                                       f"{', '.join(bad[:8])}"))
    both = (defined["producer"] & defined["checker"]) - WEAK_SHARED
    if both:
        out.append(Violation("symbol", "producer+checker",
                             f"symbols defined on both sides: {', '.join(sorted(both)[:8])}"))
    return out


if __name__ == "__main__":
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).parents[2])
    found = scan(root)
    if len(sys.argv) > 2:
        found += symbol_violations(archives(sys.argv[2]))
    for v in found:
        print(v)
    print(f"{len(found)} violation(s)")
    sys.exit(1 if found else 0)
