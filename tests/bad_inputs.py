"""The bad inputs gangconf refuses in one line, as a table: what the user did, what gangconf says.

``tests/test_bad_input.py`` runs every case in a child process of its own and requires one line
naming what is wrong and what to do, a usage error's exit code, no traceback and nothing left
running. The README's table of bad inputs is generated from :data:`CASES`
(``python tests/bad_inputs.py`` prints it) and a test keeps the two the same.

A case's argv, env and files may name ``{tmp}`` (the case's own directory), ``{closed}`` (a URL
of 127.0.0.1 where nothing listens) and ``{old}`` (the URL of a server that answers ``/version``
as v1.36.3 does, :mod:`clusterstubs`); the cases of a real cluster's credentials also name that
cluster's (:attr:`Case.cluster`). The test fills them in.
"""

from __future__ import annotations

import dataclasses

import yaml

#: A PATH without the Go toolchain.
NO_GO_PATH = "/usr/bin:/bin"
QUORUM = "suites/test_quorum.py"


@dataclasses.dataclass(frozen=True)
class Case:
    id: str
    #: What the user did, as the README says it.
    did: str
    #: The arguments after the entry point (``pytest``, with ``--reports-dir`` and ``-q`` before them, or ``build``).
    argv: tuple[str, ...]
    #: A fragment of the one line: what is wrong (``{tmp}`` and ``{old}`` are filled in).
    says: str
    #: A fragment of the same line: what to do.
    advice: str
    #: ``pytest`` (a suite run; a usage error is exit 4) or ``build`` (the binaries' command line; exit 2).
    command: str = "pytest"
    env: tuple[tuple[str, str], ...] = ()
    #: Files written under ``{tmp}`` before the run: name, text.
    files: tuple[tuple[str, str], ...] = ()
    #: Of ``files``, those made executable.
    executable: tuple[str, ...] = ()
    #: A limit on the size of any file the run writes (RLIMIT_FSIZE): a disk without room.
    file_size_limit: int | None = None
    #: Whether the run may make the cache of built binaries (``GANGCONF_CACHE``): it looks for a
    #: toolchain to build them, and finds none. Every other case is refused before it is touched.
    looks_for_binaries: bool = False
    #: Whether the case needs the real cluster the test starts (its URL ``{server}``, its CA
    #: ``{ca}``; another CA ``{wrong_ca}``; tokens ``{admin_token}``, ``{revoked_token}`` of a
    #: deleted ServiceAccount, ``{reader_token}`` of one that may only read).
    cluster: bool = False
    #: A copy of upstream v1.37.2's tree at ``{tmp}/tree`` with this text appended to this file of it.
    fork_edit: tuple[str, str] | None = None

    #: Ctrl-C (SIGINT to the run's process group) once a process of this name runs in it.
    interrupt_at: str | None = None

    @property
    def exit_code(self) -> int:
        """A usage error's (pytest's 4, the build command's 2); pytest's 2 for an interrupted run."""
        return 4 if self.command == "pytest" and not self.interrupt_at else 2


def kubeconfig(server: str, *, ca: str | None = None, token: str = "x", contexts=("vendor-prod", "staging"),
               current="vendor-prod") -> str:
    """A kubeconfig of one cluster at ``server`` (TLS checked against ``ca``, base64 PEM, if given), a token
    user and ``contexts``."""
    tls = {"certificate-authority-data": ca} if ca else {"insecure-skip-tls-verify": True}
    return yaml.safe_dump({
        "apiVersion": "v1", "kind": "Config", "current-context": current,
        "clusters": [{"name": "c", "cluster": {"server": server, **tls}}],
        "users": [{"name": "u", "user": {"token": token}}],
        "contexts": [{"name": n, "context": {"cluster": "c", "user": "u"}} for n in contexts],
    })


def _profile(gates: str) -> str:
    return f"kind: Cluster\napiVersion: kind.x-k8s.io/v1alpha4\nfeatureGates:\n{gates}"


_KUBECONFIG = "--kubeconfig={tmp}/kubeconfig"
_CLOSED = (("kubeconfig", kubeconfig("{closed}")),)
_NOT_KUBERNETES = (("tree/go.mod", "module example.com/scheduler\n\ngo 1.26\n"),)
_KUBERNETES = (("tree/go.mod", "module k8s.io/kubernetes\n\ngo 1.26\n"),)
_SCRIPT_EXITS = (("kube-scheduler", "#!/bin/sh\nexit 1\n"),)

CASES: tuple[Case, ...] = (
    # -- the cluster profile and the release
    Case("unknown-profile", "`--profile` names no profile", ("--profile=gang-betta", QUORUM),
         "kind-configs/gang-betta.yaml does not exist", "the profiles in kind-configs/ are: api-without-gate"),
    Case("malformed-profile", "a profile that is not valid YAML", ("--profile={tmp}/broken.yaml", QUORUM),
         "broken.yaml:4:1 is not valid YAML", "fix the file",
         files=(("broken.yaml", "kind: Cluster\napiVersion: kind.x-k8s.io/v1alpha4\nfeatureGates: [\n"),)),
    Case("unknown-gate", "a profile with a misspelt feature gate", ("--profile={tmp}/typo.yaml", QUORUM),
         "unknown feature gate GenericWorkloads (did you mean GenericWorkload?)", "fix or remove it",
         files=(("typo.yaml", _profile("  GenericWorkloads: true\n")),)),
    Case("removed-gate", "a profile with a gate v1.37 removed (GangScheduling)", ("--profile={tmp}/old.yaml", QUORUM),
         "feature gate GangScheduling does not exist in v1.37", "remove it and set GenericWorkload: true",
         files=(("old.yaml", _profile("  GangScheduling: true\n")),)),
    Case("merged-gate", "a profile with a gate v1.37 merged into GenericWorkload (WorkloadAwarePreemption)",
         ("--profile={tmp}/old.yaml", QUORUM),
         "feature gate WorkloadAwarePreemption does not exist in v1.37", "remove it and set GenericWorkload: true",
         files=(("old.yaml", _profile("  WorkloadAwarePreemption: true\n")),)),
    Case("profile-of-another-release", "a v1.36 profile for the local v1.37 cluster", ("--profile=gang-alpha-1.36", QUORUM),
         "is for v1.36.3 (its node images) but the local cluster runs v1.37.2", "pass --k8s-version v1.36.3"),
    Case("malformed-k8s-version", "`--k8s-version` without the patch release", ("--k8s-version=v1.37", QUORUM),
         "Kubernetes version 'v1.37' is not of the form vMAJOR.MINOR.PATCH", "for example v1.37.2"),
    # -- the Go toolchain
    Case("no-go", "no Go toolchain and no built binaries", (QUORUM,),
         "the Go toolchain is not on PATH", "or run against a cluster you have with --kubeconfig PATH",
         env=(("PATH", NO_GO_PATH),), looks_for_binaries=True),
    Case("upgrade-without-go", "the upgrade profile without a Go toolchain", ("--profile=upgrade", "suites/test_upgrade.py"),
         "the Go toolchain is not on PATH", "(https://go.dev/dl/) to build the local control plane",
         env=(("PATH", NO_GO_PATH),), looks_for_binaries=True),
    Case("build-without-go", "`make build` without a Go toolchain", ("build",),
         "the Go toolchain is not on PATH", "or run against a cluster you have with --kubeconfig PATH",
         command="build", env=(("PATH", NO_GO_PATH),), looks_for_binaries=True),
    Case("build-malformed-version", "`make build K8S_VERSION=1.36`", ("build", "--version", "1.36"),
         "Kubernetes version '1.36' is not of the form vMAJOR.MINOR.PATCH", "for example v1.37.2", command="build"),
    Case("ctrl-c-during-the-build", "Ctrl-C while the control plane builds", (QUORUM,),
         "interrupted (Ctrl-C)", "Ctrl-C again stops at once", looks_for_binaries=True, interrupt_at="go"),
    # -- the scheduler under test
    Case("unknown-scheduler", "`--scheduler` names no scheduler", ("--scheduler=kube-schedular", QUORUM),
         "--scheduler kube-schedular: no such scheduler", "known: kube-scheduler, reference"),
    Case("scheduler-binary-missing", "`--scheduler-binary` names no file", ("--scheduler-binary={tmp}/nothing", QUORUM),
         "--scheduler-binary {tmp}/nothing does not exist", "give the path of a kube-scheduler binary"),
    Case("scheduler-binary-not-executable", "`--scheduler-binary` is not executable",
         ("--scheduler-binary={tmp}/kube-scheduler", QUORUM),
         "is not an executable file", "chmod +x it if it is one", files=(("kube-scheduler", "not a program\n"),)),
    Case("scheduler-binary-exits", "`--scheduler-binary` exits at once", ("--scheduler-binary={tmp}/kube-scheduler", QUORUM),
         "exited 1 at once on --version", "give a kube-scheduler binary", files=_SCRIPT_EXITS,
         executable=("kube-scheduler",)),
    Case("scheduler-binary-not-kube-scheduler", "`--scheduler-binary` is some other program",
         ("--scheduler-binary=/bin/true", QUORUM),
         "answered on --version (true (GNU coreutils)", "give a kube-scheduler binary"),
    Case("scheduler-binary-on-existing", "`--scheduler-binary` with a cluster of your own",
         (_KUBECONFIG, "--scheduler-binary={tmp}/kube-scheduler", QUORUM),
         "--scheduler-binary is run by the local provider; this run uses --provider existing",
         "give the cluster the fork's scheduler yourself", files=_CLOSED + _SCRIPT_EXITS, executable=("kube-scheduler",)),
    Case("scheduler-config-missing", "`--scheduler-config` names no file", ("--scheduler-config={tmp}/nothing.yaml", QUORUM),
         "scheduler config {tmp}/nothing.yaml cannot be read", "No such file or directory"),
    Case("scheduler-config-malformed", "`--scheduler-config` is not valid YAML", ("--scheduler-config={tmp}/sched.yaml", QUORUM),
         "scheduler config {tmp}/sched.yaml cannot be read", "while parsing a flow node",
         files=(("sched.yaml", "profiles: [\n"),)),
    Case("second-scheduler-name-is-the-first", "`--second-scheduler-name default-scheduler`",
         ("--second-scheduler-name=default-scheduler", "suites/test_consistency.py"),
         "--second-scheduler-name must name a second profile", "other than the one the suite's pods use"),
    Case("scheduler-name-with-reference", "`--scheduler-name` with the reference scheduler",
         ("--scheduler=reference", "--scheduler-name=gangconf-second", QUORUM),
         "--scheduler-name names profiles of the cluster's kube-scheduler",
         "drop --scheduler-name or --scheduler reference"),
    # -- a fork's tree
    Case("fork-components-without-source", "`--fork-components` without `--scheduler-source`", ("--fork-components=all", QUORUM),
         "--fork-components chooses the components of a fork's build", "it needs --scheduler-source"),
    Case("fork-source-and-binary", "both `--scheduler-source` and `--scheduler-binary`",
         ("--scheduler-source={tmp}/tree", "--scheduler-binary={tmp}/kube-scheduler", QUORUM),
         "--scheduler-source and --scheduler-binary both name the kube-scheduler to run", "give one",
         files=_NOT_KUBERNETES + _SCRIPT_EXITS, executable=("kube-scheduler",)),
    Case("fork-source-not-a-module", "`--scheduler-source` is a directory without go.mod",
         ("--scheduler-source={tmp}", QUORUM),
         "is not a Go module (no go.mod)", "give the root of a kubernetes checkout"),
    Case("fork-source-other-module", "`--scheduler-source` is another Go module", ("--scheduler-source={tmp}/tree", QUORUM),
         "is the Go module example.com/scheduler, not k8s.io/kubernetes",
         "give the root of a kubernetes checkout or fork", files=_NOT_KUBERNETES),
    Case("fork-source-other-release", "`--scheduler-source` is a v1.36 tree", ("--scheduler-source={tmp}/tree", QUORUM),
         "is v1.36.3 (KUBE_GIT_VERSION), not v1.37.x", "build a fork of a release-1.37 branch",
         env=(("KUBE_GIT_VERSION", "v1.36.3"),), files=_KUBERNETES),
    Case("fork-source-unreadable-version", "`--scheduler-source` with a version that is no release",
         ("--scheduler-source={tmp}/tree", QUORUM),
         "its version 'main' (KUBE_GIT_VERSION) is not a semantic version", "set KUBE_GIT_VERSION=v1.37.N",
         env=(("KUBE_GIT_VERSION", "main"),), files=_KUBERNETES),
    Case("fork-source-does-not-compile", "`--scheduler-source` is a tree that does not compile",
         ("--scheduler-source={tmp}/tree", QUORUM),
         "gangscheduling/gangscheduling.go:", "fix the code at that line and run again",
         env=(("KUBE_GIT_VERSION", "v1.37.2"),), looks_for_binaries=True,
         fork_edit=("pkg/scheduler/framework/plugins/gangscheduling/gangscheduling.go", "\nfunc broken() { return 1 }\n")),
    # -- a cluster of your own
    Case("unknown-provider", "`--provider` names no provider", ("--provider=kind3", QUORUM),
         "--provider kind3: no such provider", "known: existing, kind, local"),
    Case("existing-without-kubeconfig", "`--provider existing` without `--kubeconfig`", ("--provider=existing", QUORUM),
         "--provider existing needs --kubeconfig PATH", "--kubeconfig PATH"),
    Case("kubeconfig-missing", "`--kubeconfig` names no file", ("--kubeconfig={tmp}/nothing", QUORUM),
         "kubeconfig {tmp}/nothing does not exist", "pass the path of a readable kubeconfig"),
    Case("kubeconfig-malformed", "a kubeconfig that is not valid YAML", (_KUBECONFIG, QUORUM),
         "kubeconfig {tmp}/kubeconfig cannot be read", "pass a valid kubeconfig", files=(("kubeconfig", "clusters: [\n"),)),
    Case("context-missing", "`--context` the kubeconfig lacks", (_KUBECONFIG, "--context=prod-eu", QUORUM),
         "has no context 'prod-eu'; its contexts are: vendor-prod, staging", "pass one of them with --context",
         files=_CLOSED),
    Case("require-context-without-context", "`--require-context` without `--context`", (_KUBECONFIG, "--require-context", QUORUM),
         "--require-context is set but no --context was named", "pass --context vendor-prod to run against it",
         files=_CLOSED),
    Case("unreachable-cluster", "a kubeconfig whose server is down", (_KUBECONFIG, QUORUM),
         "cannot reach the cluster at https://127.0.0.1:", "check the kubeconfig and that the cluster is up",
         files=_CLOSED),
    Case("server-older-than-v1.37", "a cluster older than v1.37", (_KUBECONFIG, "--context=vendor-prod", QUORUM),
         "the server at {old} is v1.36.3, older than v1.37", "upgrade the cluster or point --kubeconfig/--context at a v1.37 one",
         files=(("kubeconfig", kubeconfig("{old}")),)),
    Case("wrong-ca", "a kubeconfig with another cluster's CA", (_KUBECONFIG, QUORUM),
         "presents a certificate that the kubeconfig's certificate authority did not sign",
         "fix certificate-authority(-data) of the kubeconfig's cluster", cluster=True,
         files=(("kubeconfig", kubeconfig("{server}", ca="{wrong_ca}", token="{admin_token}")),)),
    Case("unknown-token", "a kubeconfig whose token the cluster does not know (expired, mistyped)", (_KUBECONFIG, QUORUM),
         "refuses the kubeconfig's credentials", "log in again or refresh the kubeconfig's user",
         cluster=True, files=(("kubeconfig", kubeconfig("{server}", ca="{ca}", token="gangconf-expired-token")),)),
    Case("revoked-token", "a kubeconfig whose ServiceAccount token was revoked (the account deleted)", (_KUBECONFIG, QUORUM),
         "refuses the kubeconfig's credentials", "log in again or refresh the kubeconfig's user",
         cluster=True, files=(("kubeconfig", kubeconfig("{server}", ca="{ca}", token="{revoked_token}")),)),
    Case("no-rbac", "a context whose user may read but not create namespaces", (_KUBECONFIG, QUORUM),
         "the kubeconfig's user may not create namespaces, delete namespaces, create pods",
         "use a context whose user may (cluster-admin does)",
         cluster=True, files=(("kubeconfig", kubeconfig("{server}", ca="{ca}", token="{reader_token}")),)),
    # -- run policy and the run directory
    Case("timeout-scale-zero", "`--timeout-scale 0`", ("--timeout-scale=0", QUORUM),
         "--timeout-scale multiplies every deadline, so it must be a positive number, not 0.0",
         "give 1 to keep them or 2 to double them"),
    Case("timeout-scale-negative", "`--timeout-scale -1`", ("--timeout-scale=-1", QUORUM),
         "it must be a positive number, not -1.0", "give 1 to keep them or 2 to double them"),
    Case("reports-dir-not-a-directory", "`--reports-dir` under a file", ("--reports-dir={tmp}/file/reports", QUORUM),
         "the run directory {tmp}/file/reports/runs/", "give a --reports-dir on a disk you can write",
         files=(("file", "a file, not a directory\n"),)),
    Case("disk-full", "no room on the disk of the run directory", (QUORUM,),
         "cannot be written (File too large)", "with room for the run's logs", file_size_limit=16 * 1024),
)


README_BEGIN = "<!-- bad inputs: generated by `python tests/bad_inputs.py`; do not edit -->"
README_END = "<!-- end of bad inputs -->"


def readme_block() -> str:
    """The README's table of the bad inputs, between its markers."""
    lines = [README_BEGIN, "", "| what you did | what is wrong (the line says) | what to do (the same line says) | case |",
             "|---|---|---|---|"]

    def cell(text: str) -> str:
        return text.replace("{tmp}", "DIR").replace("{old}", "URL").replace("|", "\\|")

    for case in CASES:
        lines.append(f"| {case.did} | {cell(case.says)} | {cell(case.advice)} | `{case.id}` |")
    lines += ["", README_END]
    return "\n".join(lines)


if __name__ == "__main__":
    print(readme_block())
