"""Generated mutants of C source for scripts/mutate --generate (docs/verifier.md "Generated mutants").

A C tokenizer (comments, string and character literals and preprocessor lines are whole tokens,
so nothing inside them is ever mutated), a pass that finds the function bodies at file scope, and
the mutation operators over the tokens of each body. Each site yields one mutant; where an
operator has several replacements (a relational operator, a constant other than 0 and 1) one is
drawn by a generator seeded with the seed and the mutant's id, so a mutant is the same on every
run and under any edit outside its function.

A mutant's id is FILE:FUNCTION:OPERATOR:K, K counting that operator's sites in that function
from 1 in source order; edits elsewhere in the file do not move it.
"""
import hashlib
import random
import re

# ---- the tokenizer ----

_PUNCT = sorted("""
%:%: ... <<= >>= -> ++ -- << >> <= >= == != && || *= /= %= += -= &= ^= |= ## <: :> <% %> %:
[ ] ( ) { } . & * + - ~ ! / % < > ^ | ? : ; = , #
""".split(), key=len, reverse=True)

_TOKEN = re.compile(r"""
    (?P<ws>(?:[ \t\r\f\v]|\\\n)+)
  | (?P<nl>\n)
  | (?P<comment>//(?:[^\n\\]|\\.|\\\n)*|/\*.*?\*/)
  | (?P<string>(?:u8|u|U|L)?"(?:[^"\\\n]|\\.|\\\n)*")
  | (?P<char>(?:u8|u|U|L)?'(?:[^'\\\n]|\\.)*')
  | (?P<number>\.?[0-9](?:[eEpP][+-]|[0-9A-Za-z_.'])*)
  | (?P<ident>[A-Za-z_][A-Za-z_0-9]*)
  | (?P<punct>""" + "|".join(re.escape(p) for p in _PUNCT) + r""")
""", re.X | re.S)


class Token:
    __slots__ = ("kind", "text", "start", "end", "line", "pp")

    def __init__(self, kind, text, start, end, line, pp):
        self.kind, self.text, self.start, self.end, self.line, self.pp = kind, text, start, end, line, pp

    def __repr__(self):
        return f"{self.kind}:{self.text!r}@{self.line}"


def tokenize(source):
    """Every token of source, whitespace and comments included, with its byte span and line.
    A token of a preprocessor directive (from a # first on its line to the end of the line, line
    splices and comments included) has pp set. Raises ValueError on text that is not C."""
    tokens, pos, line, pp, line_start = [], 0, 1, False, True
    while pos < len(source):
        m = _TOKEN.match(source, pos)
        if not m:
            raise ValueError(f"line {line}: cannot tokenize {source[pos:pos + 20]!r}")
        kind, text = m.lastgroup, m.group()
        if kind == "nl":
            pp = False
        elif kind == "punct" and text in ("#", "%:") and line_start:
            pp = True
        if kind not in ("ws", "comment", "nl"):
            line_start = False
        if kind == "nl":
            line_start = True
        tokens.append(Token(kind, text, pos, m.end(), line, pp))
        line += text.count("\n")
        pos = m.end()
    return tokens


def code_tokens(tokens):
    """The tokens the compiler sees as code: no whitespace, comment or preprocessor line."""
    return [t for t in tokens if t.kind not in ("ws", "nl", "comment") and not t.pp]


# ---- function bodies ----

def _match(toks, i):
    """Index of the bracket closing toks[i] ((, [ or {)."""
    pairs = {"(": ")", "[": "]", "{": "}"}
    open_, close, depth = toks[i].text, pairs[toks[i].text], 0
    for j in range(i, len(toks)):
        if toks[j].text == open_:
            depth += 1
        elif toks[j].text == close:
            depth -= 1
            if depth == 0:
                return j
    raise ValueError(f"line {toks[i].line}: unbalanced {open_!r}")


def functions(toks):
    """[(name, open_index, close_index)] of the function definitions among the code tokens toks:
    a { at file scope right after a parameter list (and any attributes)."""
    out, i, depth = [], 0, 0
    while i < len(toks):
        t = toks[i]
        if t.text == "{" and depth == 0 and i > 0 and toks[i - 1].text == ")":
            # walk back over the ( ) groups before the brace to the one a name precedes
            j, name = i - 1, None
            while j >= 0 and toks[j].text == ")":
                depth_back, k = 0, j
                while k >= 0:
                    if toks[k].text == ")":
                        depth_back += 1
                    elif toks[k].text == "(":
                        depth_back -= 1
                        if depth_back == 0:
                            break
                    k -= 1
                before = toks[k - 1] if k > 0 else None
                if before is not None and before.kind == "ident" and before.text not in (
                        "__attribute__", "__asm__", "asm", "__declspec"):
                    name = before.text
                    break
                j = k - 2 if before is not None and before.kind == "ident" else k - 1
            end = _match(toks, i)
            if name:
                out.append((name, i, end))
            i = end + 1
            continue
        if t.text in ("{", "(", "["):
            depth += 1
        elif t.text in ("}", ")", "]"):
            depth -= 1
        i += 1
    return out


# ---- the operators ----

RELATIONAL = ("<", "<=", ">", ">=", "==", "!=")
# a declaration starts with one of these (or with a type name: an identifier followed by an identifier or *)
_DECL_WORDS = {"int", "char", "short", "long", "unsigned", "signed", "float", "double", "void", "_Bool",
               "bool", "const", "volatile", "static", "register", "extern", "struct", "union", "enum",
               "typedef", "auto", "restrict", "inline", "_Atomic", "_Thread_local", "__thread",
               "_Static_assert", "__extension__"}
_KEYWORDS = {"if", "else", "while", "for", "do", "switch", "case", "default", "return", "break",
             "continue", "goto", "sizeof", "_Alignof"} | _DECL_WORDS
_ASSIGN = {"=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=", "++", "--"}
# A deleted call to one of these only leaks memory, which the release suite cannot see (the ASan
# build's LeakSanitizer would); so are the va_end/va_copy bookkeeping calls. Never deleted.
_NO_DELETE = re.compile(r"^(free|va_end|va_start|va_copy|\w+_free|\w+_destroy|\w+_release)$")
_INT = re.compile(r"^(0[xX][0-9A-Fa-f]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)([uUlL]*)$")
_ZEROISH = {"0": "1", "false": "true", "MA_OK": "MA_EINVAL", "0u": "1u", "0U": "1U"}

OPERATORS = ("ror", "lcr", "neg", "const", "ret", "del", "brk")
OPERATOR_WORDS = {
    "ror": "relational operator replaced",
    "lcr": "logical connector swapped",
    "neg": "condition negated",
    "const": "integer constant tweaked",
    "ret": "return value replaced",
    "del": "statement deleted",
    "brk": "break/continue swapped",
}


def _int_value(text):
    m = _INT.match(text)
    if not m:
        return None
    digits, suffix = m.group(1), m.group(2)
    if digits[:2] in ("0x", "0X"):
        return int(digits[2:], 16), "x", suffix, digits[:2]
    if digits[:2] in ("0b", "0B"):
        return int(digits[2:], 2), "b", suffix, digits[:2]
    if len(digits) > 1 and digits[0] == "0":
        return int(digits, 8), "o", suffix, "0"
    return int(digits), "d", suffix, ""


def _int_text(value, base, suffix, prefix, width, upper=False):
    if base == "x":
        return prefix + format(value, "X" if upper else "x").zfill(width) + suffix
    if base == "b":
        return prefix + format(value, "b") + suffix
    if base == "o":
        return "0" + format(value, "o") + suffix
    return str(value) + suffix


def _statement_starts(body):
    """Indices into body (a function's code tokens, outer braces excluded) where a statement
    starts: after ; { } (a block's, not an initializer's), after the ) of an if/while/for/switch
    header, after else and do, after a label's or case's colon."""
    starts, n = [], len(body)
    expect = True            # the next token starts a statement
    paren = 0                # depth of ( ) and [ ]
    header_close = set()     # indices of the ) closing an if/while/for/switch header
    init_brace = []          # stack: is this { an initializer's (True) or a block's (False)
    case_pending = False
    i = 0
    while i < n:
        t = body[i]
        if expect and paren == 0 and t.text not in ("}",):
            starts.append(i)
            expect = False
            # a label: identifier followed by a colon at statement start
            if t.kind == "ident" and t.text not in _KEYWORDS and i + 1 < n and body[i + 1].text == ":":
                expect = True
                i += 2
                continue
        if t.text in ("case", "default") and paren == 0:
            case_pending = True
        if t.text in ("if", "while", "for", "switch") and i + 1 < n and body[i + 1].text == "(":
            header_close.add(_match(body, i + 1))
        if t.text in ("(", "["):
            paren += 1
        elif t.text in (")", "]"):
            paren -= 1
            if i in header_close:
                expect = True
        elif t.text == "{":
            prev = body[i - 1].text if i else ";"
            is_init = prev in ("=", ",", "{", ")") and i - 1 not in header_close and paren == 0 \
                and not (prev == ")" and i - 1 in header_close)
            # "(type){...}" compound literal or "= {...}": an initializer; a block otherwise
            is_init = is_init or paren > 0 or (bool(init_brace) and init_brace[-1])
            init_brace.append(is_init)
            if not is_init:
                expect = True
        elif t.text == "}":
            was_init = init_brace.pop() if init_brace else False
            if not was_init:
                expect = True
        elif t.text == ";" and paren == 0:
            expect = True
        elif t.text in ("else", "do"):
            expect = True
        elif t.text == ":" and case_pending and paren == 0:
            case_pending = False
            expect = True
        i += 1
    return starts


def _statement_end(body, i):
    """Index of the ; ending the simple statement starting at body[i] (brackets balanced), or None."""
    depth = 0
    for j in range(i, len(body)):
        x = body[j].text
        if x in ("(", "[", "{"):
            depth += 1
        elif x in (")", "]", "}"):
            depth -= 1
            if depth < 0:
                return None
        elif x == ";" and depth == 0:
            return j
    return None


def _expression_statement(stmt):
    """Why the simple statement stmt (its tokens, ; excluded) may be deleted: "call" or
    "assignment", or None (a declaration, an empty statement, a keyword statement, a
    statement with neither a call nor an assignment at its top level)."""
    if not stmt or stmt[0].text == "{":
        return None
    first = stmt[0]
    if first.kind == "ident" and (first.text in _KEYWORDS):
        return None
    if first.kind == "ident" and len(stmt) > 1 and (stmt[1].kind == "ident" or stmt[1].text == "*"):
        return None  # "type name ..." or "type *name ...": a declaration
    depth, kind = 0, None
    for k, t in enumerate(stmt):
        if t.text in ("(", "[", "{"):
            if t.text == "(" and depth == 0 and k > 0 and stmt[k - 1].kind == "ident" \
                    and stmt[k - 1].text not in _KEYWORDS and kind is None:
                if _NO_DELETE.match(stmt[k - 1].text) and k == 1:
                    return None
                kind = "call"
            depth += 1
        elif t.text in (")", "]", "}"):
            depth -= 1
        elif depth == 0 and t.text in _ASSIGN:
            return "assignment"
    if kind == "call" and stmt[0].text == "(" and len(stmt) > 3 and stmt[1].text == "void":
        return "call"  # (void)f(x);
    return kind


class Site:
    """One mutation: the code tokens' span [a, b) of the body replaced by text."""
    __slots__ = ("op", "a", "b", "text", "what")

    def __init__(self, op, a, b, text, what):
        self.op, self.a, self.b, self.text, self.what = op, a, b, text, what


def _sites(source, body, rng_for):
    """The mutation sites of one function body (its code tokens without the outer braces), in
    source order per operator; rng_for(op, k) is the seeded generator of the k-th site of op."""
    sites = {op: [] for op in OPERATORS}

    def add(op, a, b, text_fn, what_fn):
        k = len(sites[op]) + 1
        rng = rng_for(op, k)
        text = text_fn(rng)
        if text is None:
            return
        sites[op].append(Site(op, a, b, text, what_fn(text)))

    n = len(body)
    for i, t in enumerate(body):
        if t.kind == "punct" and t.text in RELATIONAL:
            alts = [r for r in RELATIONAL if r != t.text]
            add("ror", i, i + 1, lambda rng, alts=alts: rng.choice(alts),
                lambda x, t=t: f"`{t.text}` -> `{x}`")
        elif t.kind == "punct" and t.text in ("&&", "||"):
            other = "||" if t.text == "&&" else "&&"
            add("lcr", i, i + 1, lambda rng, o=other: o, lambda x, t=t: f"`{t.text}` -> `{x}`")
        elif t.kind == "ident" and t.text in ("if", "while") and i + 1 < n and body[i + 1].text == "(":
            close = _match(body, i + 1)
            if close > i + 2:
                sites["neg"].append(Site("neg", i + 2, close, None, ""))
        elif t.kind == "ident" and t.text == "for" and i + 1 < n and body[i + 1].text == "(":
            close = _match(body, i + 1)
            semis, depth = [], 0
            for j in range(i + 2, close):
                x = body[j].text
                depth += x in ("(", "[", "{")
                depth -= x in (")", "]", "}")
                if x == ";" and depth == 0:
                    semis.append(j)
            if len(semis) == 2 and semis[1] > semis[0] + 1:
                sites["neg"].append(Site("neg", semis[0] + 1, semis[1], None, ""))
        elif t.kind == "number":
            v = _int_value(t.text)
            if v is None:
                continue
            value, base, suffix, prefix = v
            width = len(t.text) - len(prefix) - len(suffix) if base == "x" else 0

            def tweak(rng, value=value, base=base, suffix=suffix, prefix=prefix, width=width, t=t):
                if value == 0:
                    new = 1
                elif value == 1:
                    new = 0
                else:
                    new = value + rng.choice((1, -1))
                return _int_text(new, base, suffix, prefix, width, any(c in "ABCDEF" for c in t.text[2:]))
            add("const", i, i + 1, tweak, lambda x, t=t: f"`{t.text}` -> `{x}`")
        elif t.kind == "ident" and t.text == "return":
            end = _statement_end(body, i + 1)
            if end is None or end == i + 1:
                continue  # return; of a void function
            expr = [x.text for x in body[i + 1:end]]
            if len(expr) == 1 and expr[0] in _ZEROISH:
                new = _ZEROISH[expr[0]]
            elif expr == ["NULL"]:
                continue  # no other pointer to give
            elif len(expr) == 1 and expr[0] == "true":
                new = "false"
            else:
                new = "0"
            add("ret", i + 1, end, lambda rng, new=new: new,
                lambda x, e=_text(source, body[i:end + 1]): f"`{e}` -> `return {x};`")
        elif t.kind == "ident" and t.text in ("break", "continue") and i + 1 < n and body[i + 1].text == ";":
            other = "continue" if t.text == "break" else "break"
            add("brk", i, i + 1, lambda rng, o=other: o, lambda x, t=t: f"`{t.text}` -> `{x}`")
    # a negation's text is made from the source it wraps (generate)
    for s in sites["neg"]:
        s.what = "condition `" + _text(source, body[s.a:s.b]) + "` negated"
    # deletions
    for i in _statement_starts(body):
        end = _statement_end(body, i)
        if end is None:
            continue
        why = _expression_statement(body[i:end])
        if why:
            sites["del"].append(Site("del", i, end + 1, ";",
                                     f"{why} `{_text(source, body[i:end + 1])}` deleted"))
    return sites


def _text(source, toks, limit=60):
    """The source of the tokens toks, whitespace collapsed, cut to limit characters."""
    text = " ".join(source[toks[0].start:toks[-1].end].split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


class Mutant:
    """A generated mutant: its id, file, function, operator, line, the words for it, and the
    mutated source's span [start, end) of the original replaced by new."""
    __slots__ = ("id", "file", "function", "op", "k", "line", "what", "start", "end", "new",
                 "window", "function_lines")

    def __init__(self, **kw):
        for k, v in kw.items():
            setattr(self, k, v)

    def apply(self, source):
        return source[:self.start] + self.new + source[self.end:]


def generate(path_name, source, seed):
    """Every mutant of the C source (path_name is its repository path, used in the ids)."""
    toks = code_tokens(tokenize(source))
    out, names = [], {}
    for name, lo, hi in functions(toks):
        # a second definition of one name in one file (under #if branches) gets a suffix
        names[name] = names.get(name, 0) + 1
        fname = name if names[name] == 1 else f"{name}#{names[name]}"
        body = toks[lo + 1:hi]

        def rng_for(op, k, fname=fname):
            key = f"{seed}:{path_name}:{fname}:{op}:{k}".encode()
            return random.Random(int.from_bytes(hashlib.sha256(key).digest()[:8], "big"))

        sites = _sites(source, body, rng_for)
        function_lines = (toks[lo].line, toks[hi].line)
        for op in OPERATORS:
            for k, s in enumerate(sites[op], 1):
                first, last = body[s.a], body[s.b - 1]
                # the lines from the statement boundary before the site to the one after it: a test
                # that executes none of them cannot execute the site (scripts/mutate's selection)
                a = s.a - 1
                while a >= 0 and body[a].text not in (";", "{", "}"):
                    a -= 1
                b = s.b
                while b < len(body) and body[b].text not in (";", "{", "}"):
                    b += 1
                window = (body[a].line if a >= 0 else toks[lo].line,
                          body[b].line if b < len(body) else toks[hi].line)
                if op == "neg":
                    new = "!(" + source[first.start:last.end] + ")"
                else:
                    new = s.text
                out.append(Mutant(id=f"{path_name}:{fname}:{op}:{k}", file=path_name, function=fname,
                                  op=op, k=k, line=first.line, what=s.what,
                                  start=first.start, end=last.end, new=new, window=window,
                                  function_lines=function_lines))
    out.sort(key=lambda m: (m.start, OPERATORS.index(m.op)))
    return out


# ---- the hunk: the changed lines with enough context to match once ----

def hunk(source, m):
    """(find, replace, core_before, core_after): the whole lines the mutant changes, widened by
    context lines until find occurs exactly once in source; core_* are the changed lines alone,
    whitespace-collapsed (what the list of equivalent mutants records)."""
    a = source.rfind("\n", 0, m.start) + 1
    b = source.find("\n", m.end)
    b = len(source) if b < 0 else b
    mutated = m.apply(source)
    shift = len(m.new) - (m.end - m.start)
    core_before = " ".join(source[a:b].split())
    core_after = " ".join(mutated[a:b + shift].split())
    lo, hi = a, b
    up = True
    while True:
        find = source[lo:hi]
        if source.count(find) == 1 and find.strip() and not find.split("\n")[-1].startswith("# ") \
                and find.split("\n")[-1].strip():
            break
        # widen: one line up, then one down, alternately (down first when at the file's start)
        if (up and lo > 0) or hi >= len(source):
            lo = source.rfind("\n", 0, lo - 1) + 1
        else:
            nb = source.find("\n", hi + 1)
            hi = len(source) if nb < 0 else nb
        up = not up
        if lo == 0 and hi == len(source):
            find = source
            break
    replace = mutated[lo:hi + shift]
    return find, replace, core_before, core_after
