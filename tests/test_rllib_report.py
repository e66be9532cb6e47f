"""``dice-env train-rllib``'s report: throughput that leaves the warm-up out unless it is all
there is, and a markdown report that says when the warm-up was timed."""

import pytest

# -- train_rllib (dice-env train-rllib) --------------------------------------------------------

def _rows(*iterations):
    """Rows of train_rllib's loop from ``(env steps, seconds)`` of each iteration."""
    rows, total = [], 0
    for steps, seconds in iterations:
        total += steps
        rows.append({"iteration": len(rows) + 1, "env_steps": total, "seconds": seconds})
    return rows


def test_rllib_throughput_excludes_the_warm_up_unless_it_is_all_there_is():
    from agents.training.ray.rllib import throughput

    assert throughput(_rows((1000, 9.0), (1000, 1.0), (1000, 1.0))) == {
        "steps_per_s": 1000.0, "timed_iterations": 2, "warmup_included": False}
    assert throughput(_rows((1000, 4.0))) == {
        "steps_per_s": 250.0, "timed_iterations": 1, "warmup_included": True}


@pytest.mark.parametrize("lean", [False, True])
def test_rllib_report_says_when_the_warm_up_is_timed(lean):
    from agents.evaluation.reports.rllib import to_markdown
    from agents.training.ray.rllib import throughput

    def summary(rows):
        s = {"command": "python scripts/train_rllib.py penta", "game": "penta", "ray": "2",
             "gymnasium": "1", "torch": "2", "threads": 2, "machine": "x86_64, 2 CPUs",
             "rllib": {"env_steps": rows[-1]["env_steps"], "iterations": len(rows),
                       **throughput(rows), "episode_return_mean": 100.0,
                       "num_env_runners": 0, "envs_per_runner": 64, "train_batch": 1000},
             "eval": None}
        if lean:
            s["lean"] = {"steps_per_s": 5000.0, "num_envs": 64, "iterations": 2, "steps": 2000}
        return s

    one = " ".join(to_markdown(summary(_rows((1000, 4.0)))).split())
    assert "include its warm-up" in one and "count whole iterations" not in one
    assert "their ratio is fair" not in one
    two = " ".join(to_markdown(summary(_rows((1000, 4.0), (1000, 1.0)))).split())
    assert "count whole iterations (sampling + update) after the first" in two
    assert "warm-up" not in two
    assert ("their ratio is fair" in two) is lean
