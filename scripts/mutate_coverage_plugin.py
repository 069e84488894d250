"""pytest plugin of scripts/mutate's coverage map (docs/verifier.md "Generated mutants").

Loaded by scripts/mutate (-p mutate_coverage_plugin) while the suite runs against a build
instrumented with gcov: every test, and every fixture shared by several tests (scope above
"function"), writes its gcov data under a directory of its own (GCOV_PREFIX, which the binaries a
test starts inherit). A test's coverage is then its own and that of each shared fixture it uses:
a shared fixture runs once, in whichever test needs it first, but its output feeds all of them.

A test that starts a binary with an environment of its own (no GCOV_PREFIX) writes the data into
the build tree instead; after each test the plugin moves any such file under that test's
directory, so no execution is lost or given to the wrong test.

Writes MUTATE_COV_DIR/index.json: {"tests": {nodeid: dir}, "fixtures": {key: dir},
"uses": {nodeid: [fixture key, ...]}}.
"""
import hashlib
import json
import os
import pathlib
import re
import shutil

import pytest

_DIR = pathlib.Path(os.environ["MUTATE_COV_DIR"])
_BUILD = pathlib.Path(os.environ["MUTATE_COV_BUILD"])
_index = {"tests": {}, "fixtures": {}, "uses": {}}
_strays = [0]


def _dir_for(name):
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", name)[:80]
    return f"{safe}-{hashlib.sha1(name.encode()).hexdigest()[:12]}"


def _fixture_key(node_id, argname):
    return f"{node_id}::{argname}"


def _collect_strays(into):
    """Moves gcov data written into the build tree (a binary run without GCOV_PREFIX) under into."""
    found = [p for p in _BUILD.rglob("*.gcda")]
    if not found:
        return
    _strays[0] += 1
    for p in found:
        dest = _DIR / into / "stray" / str(_strays[0]) / p.relative_to("/")
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(p), dest)


def _scope_node(item, scope):
    if scope == "session":
        return ""
    cls = {"package": pytest.Package, "module": pytest.Module, "class": pytest.Class}[scope]
    node = item.getparent(cls)
    return node.nodeid if node is not None else ""


def pytest_collection_modifyitems(session, config, items):
    for item in items:
        uses = []
        info = getattr(item, "_fixtureinfo", None)
        for argname in getattr(item, "fixturenames", []):
            defs = info.name2fixturedefs.get(argname) if info else None
            if not defs:
                continue
            fd = defs[-1]
            if fd.scope != "function":
                uses.append(_fixture_key(_scope_node(item, fd.scope), argname))
        _index["uses"][item.nodeid] = uses


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    d = _dir_for("test " + item.nodeid)
    _index["tests"][item.nodeid] = d
    os.environ["GCOV_PREFIX"] = str(_DIR / d)
    yield
    _collect_strays(d)
    os.environ["GCOV_PREFIX"] = str(_DIR / "outside-tests")


@pytest.hookimpl(hookwrapper=True)
def pytest_fixture_setup(fixturedef, request):
    if fixturedef.scope == "function":
        yield
        return
    key = _fixture_key(request.node.nodeid if fixturedef.scope != "session" else "", fixturedef.argname)
    d = _dir_for("fixture " + key)
    _index["fixtures"][key] = d
    before = os.environ.get("GCOV_PREFIX")
    _collect_strays(_dir_for("test " + request._pyfuncitem.nodeid) if hasattr(request, "_pyfuncitem") else "outside-tests")
    os.environ["GCOV_PREFIX"] = str(_DIR / d)
    try:
        yield
    finally:
        _collect_strays(d)
        if before is None:
            os.environ.pop("GCOV_PREFIX", None)
        else:
            os.environ["GCOV_PREFIX"] = before


def pytest_sessionfinish(session, exitstatus):
    _collect_strays("outside-tests")
    (_DIR / "index.json").write_text(json.dumps(_index))
