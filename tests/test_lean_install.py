"""The lean install (issue 29): the client author's commands without Z3, Hypothesis, pytest or
cosmic-ray; the commands of an extra naming it (conformance/extras.py); a module of the user's
that would shadow one of the kit's packages named, not imported (conformance/shadowing.py).

The install itself — a fresh virtual environment, `pip install` of the clone without extras,
`kodex run -q` over the whole corpus there — needs PyPI and is `.ci/lean-install`, a CI step of
its own. Here the same commands run in the test environment with the four packages blocked.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import pytest

from conformance import extras, shadowing

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
OPTIONAL = ("z3", "hypothesis", "pytest", "_pytest", "cosmic_ray")
OPTIONAL_DISTRIBUTIONS = {"z3-solver", "hypothesis", "pytest", "cosmic-ray"}


def _name(requirement: str) -> str:
    return re.match(r"[A-Za-z0-9._-]+", requirement).group(0).lower().replace("_", "-")


def test_the_lean_dependencies_leave_out_the_four():
    lean = {_name(r) for r in PYPROJECT["dependencies"]}
    assert lean and not lean & OPTIONAL_DISTRIBUTIONS, lean


def test_each_optional_command_s_extra_installs_the_module_it_names():
    """extras.NEEDS and pyproject.toml agree: the extra exists and one of its requirements is
    the distribution that provides the module the command needs (read from what is installed)."""
    provided_by = metadata.packages_distributions()
    for command, (extra, module) in extras.NEEDS.items():
        requirements = {_name(r) for r in PYPROJECT["optional-dependencies"][extra]}
        dists = {d.lower().replace("_", "-") for d in provided_by[module]}
        assert dists & requirements, (command, extra, module, dists, requirements)
    test_extra = {_name(r) for r in PYPROJECT["optional-dependencies"]["test"]}
    assert "pytest" in test_extra


def test_make_installs_every_extra():
    line = next(ln for ln in (ROOT / "Makefile").read_text(encoding="utf-8").splitlines()
                if "pip install" in ln and "-e" in ln)
    named = set(re.search(r"\.\[([^\]]*)\]", line).group(1).split(","))
    assert named == set(PYPROJECT["optional-dependencies"]), line


def test_missing_names_the_extra_only_for_its_own_module(monkeypatch):
    assert extras.missing("run") is None
    assert extras.missing("prove") is None                 # installed here
    monkeypatch.setattr(extras.importlib.util, "find_spec", lambda name: None)
    assert extras.missing("prove") == \
        "kodex prove: needs the extra [prove]: pip install 'hkk-kodex[prove]'"
    monkeypatch.undo()
    assert extras.missing("fuzz", ModuleNotFoundError("no", name="hypothesis.strategies")) == \
        "kodex fuzz: needs the extra [fuzz]: pip install 'hkk-kodex[fuzz]'"
    assert extras.missing("fuzz", ModuleNotFoundError("no", name="yaml")) is None


# Runs kodex commands in one process in which the optional packages cannot be imported; prints
# one JSON line per command: its exit status, what it wrote on stderr, the optional modules loaded.
DRIVER = r"""
import contextlib, importlib.abc, io, json, sys
BLOCKED = set(json.loads(sys.argv[1]))
class Blocked(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
sys.meta_path.insert(0, Blocked())
from conformance.cli import main
if sys.argv[2] == "serve":
    sys.exit(main(["serve"]))
for argv in json.loads(sys.argv[2]):
    err, out = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
        rc = main(argv)
    print(json.dumps({"argv": argv, "rc": rc, "stderr": err.getvalue(),
                      "loaded": sorted(m for m in sys.modules if m.split(".")[0] in BLOCKED)}),
          flush=True)
"""


def _driver(tmp_path: Path) -> Path:
    driver = tmp_path / "blocked_kodex.py"
    driver.write_text(DRIVER, encoding="utf-8")
    return driver


def _blocked(tmp_path: Path, commands: list[list[str]]) -> list[dict]:
    run = subprocess.run([sys.executable, str(_driver(tmp_path)), json.dumps(OPTIONAL),
                          json.dumps(commands)], cwd=tmp_path, capture_output=True, text=True,
                         timeout=300, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert run.returncode == 0, run.stderr
    return [json.loads(line) for line in run.stdout.splitlines() if line.startswith("{")]


def test_the_client_author_s_commands_need_none_of_the_four(tmp_path):
    corpus = ROOT / "conformance" / "corpus"
    amended = tmp_path / "amended"
    amended.mkdir()
    for text in (ROOT / "conformance" / "kodex").glob("*.txt"):
        shutil.copy(text, amended)
    serve = f"{sys.executable} {_driver(tmp_path)} '{json.dumps(OPTIONAL)}' serve"
    few = ["-k", "4.8.4/*"]
    commands = [
        ["run", "-q", str(corpus), *few, "--json", "a.json"],
        ["run", "-q", str(corpus), *few, "--shard", "1/2", "--json", "s1.json"],
        ["run", "-q", str(corpus), *few, "--shard", "2/2", "--json", "s2.json"],
        ["merge", "s1.json", "s2.json", "--json", "m.json"],
        ["diff", "a.json", "m.json"],
        ["run", "-q", str(corpus), *few, "--impl", serve],
        ["check", str(corpus / "kodex-04a-alapfogalmak.yaml")],
        ["clause", "136.8"],
        ["clauses", "--grep", "regenerálódás"],
        ["explain", "-k", "4.8.4/void-to-hand-refused"],
        ["coverage", "--results", "a.json", "--out", "cov"],
        ["report", "--results", "a.json", "--out", "site"],
        ["amend", str(amended), "--out", "amend"],
    ]
    results = _blocked(tmp_path, commands)
    assert [r["argv"][0] for r in results] == [c[0] for c in commands]
    for r in results:
        assert (r["rc"], r["loaded"]) == (0, []), r
    assert (tmp_path / "site" / "index.html").is_file()


def test_a_command_whose_extra_is_missing_names_it(tmp_path):
    results = _blocked(tmp_path, [[name] for name in extras.NEEDS])
    for r in results:
        name = r["argv"][0]
        assert r["rc"] == 2, r
        assert r["stderr"].strip() == extras.install_hint(name), r
        assert f"[{extras.NEEDS[name][0]}]" in r["stderr"]


# --------------------------------------------------------------------------
# shadowing

SHADOW = "import pathlib; pathlib.Path(__file__).with_name('IMPORTED').touch()\n"


@pytest.mark.parametrize("package", ["model", "properties", "reports"])
def test_a_user_s_module_that_shadows_a_kit_package_is_named_not_imported(tmp_path, package):
    user = tmp_path / "project"
    user.mkdir()
    if package == "reports":                    # a package of the user's, not a module
        (user / "reports").mkdir()
        shadow = user / "reports" / "__init__.py"
    else:
        shadow = user / f"{package}.py"
    shadow.write_text(SHADOW, encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "conformance", "run", "-q", "-k", "4.8.4/*"],
                         cwd=user, capture_output=True, text=True, timeout=120,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert run.returncode == 2, run.stdout + run.stderr
    line = " ".join(run.stderr.split())
    assert f"{shadow} shadows the kit's package '{package}' ({ROOT / package})" in line
    assert "Traceback" not in run.stderr
    assert not list(user.rglob("IMPORTED"))


def test_a_shadow_on_pythonpath_is_named_and_an_output_directory_is_no_shadow(tmp_path):
    elsewhere = tmp_path / "lib"
    elsewhere.mkdir()
    (elsewhere / "model.py").write_text(SHADOW, encoding="utf-8")
    (tmp_path / "reports").mkdir()              # where kodex writes: a directory, no package
    (tmp_path / "reports" / "coverage.md").write_text("old\n", encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(elsewhere)])}
    ok = subprocess.run([sys.executable, "-m", "conformance", "run", "-q", "-k", "4.8.4/*"],
                        cwd=tmp_path, capture_output=True, text=True, timeout=120, env=env)
    assert ok.returncode == 0, ok.stdout + ok.stderr      # the kit's model comes first
    env["PYTHONPATH"] = os.pathsep.join([str(elsewhere), str(ROOT)])
    bad = subprocess.run([sys.executable, "-m", "conformance", "run", "-q", "-k", "4.8.4/*"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=120, env=env)
    assert bad.returncode == 2, bad.stdout + bad.stderr
    assert f"{elsewhere / 'model.py'} shadows the kit's package 'model'" in \
        " ".join(bad.stderr.split())
    assert not list(tmp_path.rglob("IMPORTED"))


def test_nothing_shadows_the_kit_here():
    assert shadowing.shadowed() == []


def test_the_pytest_plugin_names_a_shadow_before_it_runs_a_case(tmp_path):
    corpus = tmp_path / "conformance" / "corpus"
    corpus.mkdir(parents=True)
    shutil.copy(ROOT / "conformance" / "corpus" / "kodex-04a-alapfogalmak.yaml", corpus)
    (tmp_path / "pytest.ini").write_text("[pytest]\ntestpaths = conformance/corpus\n")
    (tmp_path / "conftest.py").write_text("")   # pytest puts the rootdir on the import path
    (tmp_path / "model.py").write_text(SHADOW, encoding="utf-8")
    installed = any(ep.name == "kodex_corpus" for ep in metadata.entry_points(group="pytest11"))
    plugin = [] if installed else ["-p", "conformance.pytest_plugin"]
    run = subprocess.run([sys.executable, "-m", "pytest", *plugin, "-p", "no:cacheprovider",
                          "-q"], cwd=tmp_path, capture_output=True,
                         text=True, timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert run.returncode == 1, run.stdout + run.stderr
    assert f"{tmp_path / 'model.py'} shadows the kit's package 'model'" in " ".join(run.stdout.split())
    assert not (tmp_path / "IMPORTED").exists()
