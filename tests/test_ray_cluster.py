"""Scaling out for real: a two-node Ray cluster on this machine (``ray start`` on loopback).

A head node and a second node process, each ``ray start --block`` in its own process group
with 1 CPU, its own temp dir and its own ports; ``scripts/tune.py --address --storage`` runs two
twin trials (seed 0, identical but for a no-op difference in the checkpoint interval), one on
each node.  When the second node's trial has written its first checkpoint, that node is killed
(SIGKILL to its whole process group: raylet, its workers, agents -- a lost machine); its trial
is restarted by Tune on the head from its last checkpoint and ends with the same learning
curve as its uninterrupted twin.  ``pytest -m ray_cluster`` runs it alone.

``python tests/test_ray_cluster.py --measure`` times the same kind of sweep (``--trials``
seeds) on one node (1 CPU, then 2 CPUs) versus two node processes of 1 CPU each, all on this
one machine.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import glob
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import need

ROOT = Path(__file__).resolve().parent.parent
RAY = Path(sys.executable).with_name("ray")
#: a Penta trial of seconds: 64 envs x 64 steps per rollout, a checkpoint each rollout (16 in all:
#: the second node is killed after its first, a few rollouts may pass before it is gone)
TINY = ["--set", "num_envs=64", "--set", "ppo.batch_size=1024", "--set", "eval.games=20",
        "--set", "eval.every_timesteps=16384"]
TIMESTEPS = 65536
#: the GCS declares a silent node dead after ~2 s instead of ~30 s
FAST_DEATH = {"RAY_health_check_initial_delay_ms": "1000", "RAY_health_check_period_ms": "500",
              "RAY_health_check_timeout_ms": "500", "RAY_health_check_failure_threshold": "3"}


def free_ports(count: int) -> list[int]:
    """``count`` distinct free TCP ports on loopback (bound together, then released)."""
    socks = []
    try:
        for _ in range(count):
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def ray_env() -> dict[str, str]:
    """The environment of the nodes and the driver: this checkout importable (the workers
    inherit the raylet's environment), no auth token (a local test cluster), no usage stats."""
    env = dict(os.environ, RAY_AUTH_MODE="disabled", RAY_USAGE_STATS_ENABLED="0",
               PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
               .rstrip(os.pathsep))
    env.update(FAST_DEATH)
    return env


class Node:
    """One ``ray start --block`` in its own process group (so it can be killed whole)."""

    def __init__(self, name: str, args: list[str], temp_dir: Path, log: Path) -> None:
        self.name, self.temp_dir, self.log = name, temp_dir, log
        self.proc = subprocess.Popen(
            [str(RAY), "start", "--block", "--node-ip-address", "127.0.0.1",
             "--temp-dir", str(temp_dir), "--disable-usage-stats", *args],
            stdout=log.open("w"), stderr=subprocess.STDOUT, env=ray_env(),
            start_new_session=True)

    def wait_started(self, timeout: float = 90) -> None:
        deadline = time.monotonic() + timeout
        while "--block" not in self.log.read_text():  # printed once the node is up
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"ray start ({self.name}) failed:\n{self.log.read_text()}")
            time.sleep(0.2)

    def kill(self) -> None:
        """SIGKILL the node's whole process group (``ray start``, raylet, workers, agents)."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(10)


def worker_ports() -> list[str]:
    node_manager, object_manager, agent_listen, agent_grpc, runtime_env, metrics = free_ports(6)
    return ["--node-manager-port", str(node_manager), "--object-manager-port",
            str(object_manager), "--dashboard-agent-listen-port", str(agent_listen),
            "--dashboard-agent-grpc-port", str(agent_grpc), "--runtime-env-agent-port",
            str(runtime_env), "--metrics-export-port", str(metrics)]


@contextlib.contextmanager
def cluster(base: Path, nodes: int = 2, cpus: int = 1):
    """A head (``{"head": 1}``) and ``nodes - 1`` second node processes (``{"worker": 1}``),
    ``cpus`` CPUs each, on loopback; yields ``(address, [Node, ...])``; always torn down (the
    node processes killed, ``base`` removed)."""
    base.mkdir(parents=True, exist_ok=True)
    started: list[Node] = []
    try:
        port, client, dashboard = free_ports(3)
        head = Node("head", ["--head", "--port", str(port), "--num-cpus", str(cpus),
                             "--resources", json.dumps({"head": 1}),
                             "--include-dashboard=false", "--dashboard-port", str(dashboard),
                             "--ray-client-server-port", str(client),
                             "--min-worker-port", "0", "--max-worker-port", "0",
                             *worker_ports()],
                    base / "h", base / "head.log")
        started.append(head)
        head.wait_started()
        address = f"127.0.0.1:{port}"
        for i in range(1, nodes):
            node = Node(f"node{i}", ["--address", address, "--num-cpus", str(cpus),
                                     "--resources", json.dumps({"worker": 1}),
                                     "--min-worker-port", "0", "--max-worker-port", "0",
                                     *worker_ports()],
                        base / f"w{i}", base / f"node{i}.log")
            started.append(node)
            node.wait_started()
        yield address, started
    finally:
        for node in reversed(started):
            node.kill()
        shutil.rmtree(base, ignore_errors=True)


def tune_command(address: str, storage: Path, out: Path, extra: list[str]) -> list[str]:
    return [sys.executable, str(ROOT / "scripts" / "tune.py"), "penta", "--seeds", "1",
            "--timesteps", str(TIMESTEPS), *TINY, "--address", address, "--storage",
            str(storage), "--out", str(out), *extra]


@pytest.mark.ray_cluster
@pytest.mark.xdist_group("ray")
def test_a_trial_on_a_lost_node_finishes_on_the_head_from_its_checkpoint(tmp_path):
    need("ray.tune", "pip install -e '.[ray]'")
    # a short temp dir: Ray's socket paths must fit in 107 bytes
    base = Path(f"/tmp/raycl-{os.getpid()}-{time.monotonic_ns() % 10**6}")
    out = tmp_path / "sweep"
    start = time.perf_counter()
    with cluster(base) as (address, (head, node)):
        print(f"cluster up: {time.perf_counter() - start:.1f} s")
        log = (tmp_path / "tune.log").open("w")
        sweep = subprocess.Popen(
            tune_command(address, tmp_path / "storage", out,
                         ["--grid", "checkpoint_every_timesteps=4096,4095",
                          "--max-failures", "2"]),
            stdout=log, stderr=subprocess.STDOUT, env=ray_env(), cwd=tmp_path)
        try:
            # the trial on the second node is the one whose Tune working dir is there; kill the
            # node once that trial has written its first checkpoint
            pattern = node.temp_dir / "session_*/artifacts/*/*/working_dirs/trial*"
            deadline = time.monotonic() + 100
            while True:
                on_node = {Path(p).name for p in glob.glob(str(pattern))}
                points = {re.sub(r"^trial\d+-|-seed0$", "", name) for name in on_node}
                if any((out / "trials" / point / "seed0" / "checkpoint.pkl").exists()
                       for point in points):
                    break
                assert sweep.poll() is None, (tmp_path / "tune.log").read_text()
                assert time.monotonic() < deadline, (tmp_path / "tune.log").read_text()
                time.sleep(0.1)
            seen = time.perf_counter() - start
            node.kill()  # the lost machine
            print(f"first checkpoint of {sorted(on_node)} on the second node seen at "
                  f"{seen:.1f} s; node killed at {time.perf_counter() - start:.1f} s")
            assert sweep.wait(100) == 0, (tmp_path / "tune.log").read_text()
        finally:
            if sweep.poll() is None:
                sweep.kill()
                sweep.wait()
            log.close()
    print(f"two-node test: {time.perf_counter() - start:.1f} s")
    print((tmp_path / "tune.log").read_text())
    rows = list(csv.DictReader((out / "tune_trials.csv").open()))
    assert len(rows) == 2 and all(r["status"] == "done" for r in rows)
    assert all(int(r["timesteps"]) == TIMESTEPS for r in rows)
    moved = [r for r in rows if r["restarts"] != "0"]
    steady = [r for r in rows if r["restarts"] == "0"]
    assert len(moved) == 1 and len(steady) == 1, rows  # the lost node's trial restarted once
    # the restarted trial is the one that ran on the lost node (its Tune working dir was there)
    assert any(name.endswith(f"-{moved[0]['point']}-seed0") for name in on_node), on_node
    resumed_at = int(moved[0]["starts"].split(",")[1])
    assert moved[0]["restarts"] == "1" and 4096 <= resumed_at < TIMESTEPS  # not from 0
    curves = [[(e["timesteps"], e["mean_score"]) for e in
               csv.DictReader((Path(r["run_dir"]) / "eval.csv").open())] for r in moved + steady]
    assert curves[0] == curves[1]
    assert [int(t) for t, _ in curves[0]] == list(range(0, TIMESTEPS + 1, 16384))
    assert moved[0]["final"] == steady[0]["final"]


def measure(trials: int, work: Path) -> None:
    """Trials per hour of a ``trials``-seed sweep on one node (1 CPU, then 2 CPUs) vs two
    node processes of 1 CPU each -- all on this one machine."""
    work.mkdir(parents=True, exist_ok=True)
    for nodes, cpus in ((1, 1), (1, 2), (2, 1)):
        base = Path(f"/tmp/raycl-m{nodes}{cpus}-{os.getpid()}")
        with cluster(base, nodes=nodes, cpus=cpus) as (address, _):
            out = work / f"nodes{nodes}x{cpus}"
            command = tune_command(address, work / f"storage{nodes}x{cpus}", out, [])
            command[command.index("--seeds") + 1] = str(trials)
            print("$ " + " ".join(command), flush=True)
            clock = time.perf_counter()
            subprocess.run(command, env=ray_env(), check=True, cwd=work,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            seconds = time.perf_counter() - clock
        print(f"{nodes} node process(es) x {cpus} CPU: {trials} trials in {seconds:.1f} s = "
              f"{trials * 3600 / seconds:.0f} trials/hour", flush=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--measure", action="store_true", help="time 1 vs 2 node processes")
    parser.add_argument("--trials", type=int, default=6)
    parser.add_argument("--work", type=Path, default=Path("/tmp/raycl/measure"))
    args = parser.parse_args()
    if args.measure:
        measure(args.trials, args.work)
