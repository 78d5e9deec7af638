"""A fork's tree before it is built: refusals in one line, the version rules, the content hash, the build module.

Small trees made here; nothing is built or started.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from fixtures import forks
from fixtures.providers.local import binaries
from fixtures.errors import ForkRefused

GOMOD = "module k8s.io/kubernetes\n\ngo 1.26.0\n"
BASE_GO = 'package version\n\nconst (\n\tDefaultKubeBinaryVersion = "{}"\n)\n'


def _tree(root: Path, *, module: str = "k8s.io/kubernetes", staging: tuple[str, ...] = ("api", "kube-scheduler"),
          minor: str | None = "1.37") -> Path:
    """A minimal kubernetes-shaped tree: go.mod, a package, staging modules, optionally base.go."""
    (root / "pkg" / "scheduler").mkdir(parents=True)
    (root / "go.mod").write_text(GOMOD.replace("k8s.io/kubernetes", module))
    (root / "pkg" / "scheduler" / "scheduler.go").write_text("package scheduler\n")
    for name in staging:
        (root / forks.STAGING / name).mkdir(parents=True)
        (root / forks.STAGING / name / "go.mod").write_text(f"module k8s.io/{name}\n")
    if minor:
        base = root / forks.BASE_VERSION_FILE
        base.parent.mkdir(parents=True, exist_ok=True)
        (base.parent.parent / "go.mod").write_text("module k8s.io/component-base\n")
        base.write_text(BASE_GO.format(minor))
    return root


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@localhost", *args],
                   check=True, capture_output=True)


def _tagged(root: Path, tag: str) -> Path:
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "base")
    _git(root, "tag", tag)
    return root


@pytest.fixture(autouse=True)
def _no_version_override(monkeypatch):
    monkeypatch.delenv("KUBE_GIT_VERSION", raising=False)


# -- refusals ---------------------------------------------------------------------------------


@pytest.mark.parametrize("shape, message", [
    ("missing", "no such directory"),
    ("no-go-mod", "is not a Go module (no go.mod)"),
    ("other-module", "is the Go module example.com/other, not k8s.io/kubernetes"),
])
def test_a_tree_that_is_not_kubernetes_is_refused_in_one_line(tmp_path, shape, message):
    root = tmp_path / "tree"
    if shape == "no-go-mod":
        root.mkdir()
    elif shape == "other-module":
        _tree(root, module="example.com/other")
    with pytest.raises(ForkRefused, match=re.escape(message)) as info:
        forks.inspect(root)
    assert "\n" not in str(info.value)


def test_a_tree_of_another_release_is_refused_in_one_line(tmp_path):
    root = _tagged(_tree(tmp_path / "tree", minor="1.38"), "v1.38.0-alpha.0")
    with pytest.raises(ForkRefused, match=r"is v1.38.0-alpha.0 \(git describe\), not v1.37.x") as info:
        forks.inspect(root)
    assert "\n" not in str(info.value)


def test_a_tree_whose_release_cannot_be_told_is_refused_with_the_fix(tmp_path):
    with pytest.raises(ForkRefused, match="cannot tell its release.*set KUBE_GIT_VERSION=v1.37.N"):
        forks.inspect(_tree(tmp_path / "tree", minor=None))


def test_a_version_that_is_not_semver_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("KUBE_GIT_VERSION", "release-1.37")
    with pytest.raises(ForkRefused, match="is not a semantic version"):
        forks.inspect(_tree(tmp_path / "tree"))


# -- the version rules ------------------------------------------------------------------------


def test_kube_git_version_is_taken_as_given(tmp_path, monkeypatch):
    monkeypatch.setenv("KUBE_GIT_VERSION", "v1.37.4-corp.2")
    source = forks.inspect(_tagged(_tree(tmp_path / "tree"), "v1.37.2"))
    assert (source.version, source.version_from) == ("v1.37.4-corp.2", "KUBE_GIT_VERSION")


def test_git_describe_is_turned_into_a_semantic_version_as_kubernetes_does(tmp_path):
    root = _tagged(_tree(tmp_path / "tree"), "v1.37.2")
    assert forks.inspect(root).version == "v1.37.2"
    (root / "pkg" / "scheduler" / "fork.go").write_text("package scheduler\n\nconst fork = 1\n")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "the fork's change")
    source = forks.inspect(root)
    commit = source.git_commit
    assert source.version == f"v1.37.2-1+{commit[:14]}" and source.version_from == "git describe"
    assert source.git_describe == f"v1.37.2-1-g{commit[:7]}" and source.git_tree_state == "clean"
    (root / "pkg" / "scheduler" / "fork.go").write_text("package scheduler\n\nconst fork = 2\n")
    dirty = forks.inspect(root)
    assert dirty.version.endswith("-dirty") and dirty.git_tree_state == "dirty" and dirty.git_describe.endswith("-dirty")


def test_without_git_the_tree_states_its_release_in_base_go(tmp_path):
    source = forks.inspect(_tree(tmp_path / "tree"))
    assert source.version == f"v1.37.0-fork+{source.content_hash[:12]}"
    assert source.version_from.startswith("DefaultKubeBinaryVersion") and source.git_describe is None


def test_the_staging_modules_the_tree_carries_are_listed(tmp_path):
    source = forks.inspect(_tree(tmp_path / "tree"))
    assert source.staging == ("k8s.io/api", "k8s.io/component-base", "k8s.io/kube-scheduler")
    assert forks.inspect(_tree(tmp_path / "bare", staging=(), minor="1.37")).staging == ("k8s.io/component-base",)


# -- the content hash -------------------------------------------------------------------------


def test_the_hash_follows_what_the_build_reads_and_nothing_else(tmp_path):
    root = _tree(tmp_path / "tree")
    (root / "pkg" / "scheduler" / "tmpl").mkdir()
    (root / "pkg" / "scheduler" / "tmpl" / "page.html").write_text("v1")
    (root / "pkg" / "scheduler" / "embed.go").write_text('package scheduler\n\nimport "embed"\n\n//go:embed tmpl\nvar pages embed.FS\n')
    before = forks.content_hash(root)
    not_read = {
        "pkg/scheduler/scheduler_test.go": "package scheduler\n",
        "pkg/scheduler/testdata/x.go": "package x\n",
        "vendor/example.com/x/x.go": "package x\n",
        ".git/objects/x": "blob",
        "_output/bin/kube": "binary",
        "hack/tools/go.mod": "module k8s.io/kubernetes/hack/tools\n",
        "hack/tools/tool.go": "package tools\n",
        "docs/README.md": "words",
    }
    for name, text in not_read.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    assert forks.content_hash(root) == before, "a file the build does not read changed the hash"
    for name, text in {"pkg/scheduler/tmpl/page.html": "v2", "pkg/scheduler/scheduler.go": "package scheduler // x\n",
                       f"{forks.STAGING}/api/types.go": "package api\n", "go.sum": "x v1 h1:x\n",
                       "pkg/scheduler/asm_amd64.s": "TEXT ·f(SB),0,$0\n"}.items():
        (root / name).write_text(text)
        after = forks.content_hash(root)
        assert after != before, f"changing {name} did not change the hash"
        before = after


# -- the build module -------------------------------------------------------------------------


def test_the_build_module_takes_kubernetes_and_the_carried_staging_modules_from_the_tree(tmp_path):
    source = forks.inspect(_tree(tmp_path / "tree", staging=("api",)))
    gomod = binaries.fork_gomod((binaries.SOURCE_DIR / "go.mod").read_text(), source)
    replaces = dict(line.strip().split(" => ") for line in gomod.splitlines() if " => " in line)
    assert replaces["k8s.io/kubernetes"] == str(source.path)
    assert replaces["k8s.io/api"] == str(source.path / forks.STAGING / "api")
    assert replaces["k8s.io/component-base"] == str(source.path / forks.STAGING / "component-base")
    assert replaces["k8s.io/client-go"] == "k8s.io/client-go v0.37.2", "a module the tree lacks stays at its tag"
    assert sum(" k8s.io/api =>" in f" {line.strip()}" for line in gomod.splitlines()) == 1


def test_a_fork_build_has_a_cache_directory_of_its_own_named_by_its_content(tmp_path, monkeypatch):
    monkeypatch.setenv("GANGCONF_CACHE", str(tmp_path / "cache"))
    source = forks.inspect(_tree(tmp_path / "tree"))
    tags = binaries.build_tags("v1.37.2")
    fork_dir = binaries._kube_dir("v1.37.2", tags, fork=source)
    assert fork_dir.name == f"kube-fork-{source.content_hash[:16]}-{binaries._sources_hash()}"
    assert fork_dir != binaries._kube_dir("v1.37.2", tags)
    assert binaries._src_dir("v1.37.2", source) != binaries._src_dir("v1.37.2")
