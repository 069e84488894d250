"""Reading JUnit XML in the tests: a real XML parser (xml.etree) for the content and xmllint
validating against tests/data/junit-10.xsd (the Jenkins/Ant structure CI servers read)."""
import shutil
import subprocess
import xml.etree.ElementTree as ET

from conftest import ROOT

XSD = ROOT / "tests" / "data" / "junit-10.xsd"


def validate(path):
    """Fails unless xmllint accepts path against the JUnit schema."""
    xmllint = shutil.which("xmllint")
    assert xmllint, "xmllint missing: scripts/install-deps --test installs libxml2-utils"
    proc = subprocess.run([xmllint, "--noout", "--schema", str(XSD), str(path)], capture_output=True, text=True)
    assert proc.returncode == 0, f"{path} does not validate against {XSD}:\n{proc.stderr}"


def load(path):
    """Validates path and returns its cases: a list of dicts with suite, classname, name, time,
    outcome ("pass", "failure", "error", "skipped"), type, message, text, out."""
    validate(path)
    root = ET.parse(path).getroot()
    assert root.tag == "testsuites"
    cases = []
    for suite in root.findall("testsuite"):
        for case in suite.findall("testcase"):
            outcome, el = "pass", None
            for tag in ("failure", "error", "skipped"):
                found = case.find(tag)
                if found is not None:
                    assert el is None, f"{case.get('name')}: more than one of failure/error/skipped"
                    outcome, el = tag, found
            out = case.find("system-out")
            cases.append({
                "suite": suite.get("name"), "classname": case.get("classname"), "name": case.get("name"),
                "time": case.get("time"), "outcome": outcome,
                "type": el.get("type") if el is not None else None,
                "message": el.get("message") if el is not None else None,
                "text": (el.text or "") if el is not None else "",
                "out": (out.text or "") if out is not None else "",
            })
        # the suite's counts agree with its cases
        mine = [c for c in cases if c["suite"] == suite.get("name")]
        assert int(suite.get("tests")) == len(mine)
        for tag, attr in (("failure", "failures"), ("error", "errors"), ("skipped", "skipped")):
            assert int(suite.get(attr)) == sum(c["outcome"] == tag for c in mine)
    assert int(root.get("tests")) == len(cases)
    return cases


def failing(cases):
    return {c["name"] for c in cases if c["outcome"] == "failure"}
