"""``python -m reference_scheduler``: flags, kubeconfig, signals, then the loop.

Mirrors cmd/kube-scheduler/app/server.go (``NewSchedulerCommand``, ``Run``), the flags the reference has.
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys

from kubernetes import client, config

from reference_scheduler.features import FEATURES, parse_feature_gates
from reference_scheduler.plugins.fault import check_label_key
from reference_scheduler.runner import DEFAULT_SCHEDULER_NAME
from reference_scheduler.runner.api_writer import WRITERS
from reference_scheduler.runner.errors import one_line
from reference_scheduler.runner.loop import Runner

log = logging.getLogger("reference_scheduler")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m reference_scheduler",
                                     description="gangconf's reference gang scheduler, against a real API server")
    parser.add_argument("--kubeconfig", required=True, help="kubeconfig of the scheduler's own identity")
    parser.add_argument("--scheduler-name", action="append", default=None, metavar="NAME",
                        help="a spec.schedulerName this scheduler serves (repeatable, like kube-scheduler's "
                             f"profiles; default {DEFAULT_SCHEDULER_NAME})")
    parser.add_argument("--feature-gates", default="", metavar="GATE=BOOL,...",
                        help="alpha gates to follow, as kube-scheduler's flag: "
                             + ", ".join(sorted(FEATURES)) + " (GenericWorkload is always on)")
    parser.add_argument("--fault-reserve-label", default=None, metavar="KEY",
                        help="test only (the fault profile): pods labelled KEY=once fail their first Reserve before "
                             "binding, KEY=always every one (see reference_scheduler/plugins/fault.py)")
    parser.add_argument("-v", "--verbose", action="store_true", help="log every cycle")
    args = parser.parse_args(argv)
    try:
        features = parse_feature_gates(args.feature_gates)
        if args.fault_reserve_label is not None:
            check_label_key(args.fault_reserve_label)
    except ValueError as exc:
        print(f"reference_scheduler: {exc}", file=sys.stderr)
        return 2
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.INFO,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        configuration = client.Configuration()
        config.load_kube_config(config_file=args.kubeconfig, client_configuration=configuration)
        # One connection per writer thread and informer, so that none waits for a free one.
        configuration.connection_pool_maxsize = WRITERS + 8
        api = client.ApiClient(configuration)
    except Exception as exc:
        log.error("cannot load kubeconfig %s: %s", args.kubeconfig, one_line(exc))
        return 2
    names = list(dict.fromkeys(args.scheduler_name or [DEFAULT_SCHEDULER_NAME]))
    runner = Runner(api, names[0], features, fault_reserve_label=args.fault_reserve_label,
                    also_serve=tuple(names[1:]))
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: runner.stop.set())
    log.info("reference scheduler %s starting against %s", ", ".join(names), api.configuration.host)
    runner.run()
    runner.writer.close()
    log.info("reference scheduler stopped")
    return 0
