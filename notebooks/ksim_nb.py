"""Shared helpers for the notebooks: find the repository and the ksim binary,
run `ksim sweep` and `ksim run --json`, summarise over seeds, save figures.

Environment:
  KSIM_ROOT      the repository's root (default: found upwards from the working directory)
  KSIM_BIN       the ksim binary (default: build/ksim under the root)
  KSIM_NB_SMALL  1 for the small CI size (tests/support/notebooks.sh sets it)
  KSIM_NB_OUT    where CSVs, reports and figures go (default: a new temporary directory)
  KSIM_NB_JOBS   runs at once (default 2)
"""
from __future__ import annotations

import json
import os
import pathlib
import shlex
import subprocess
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

import matplotlib
import matplotlib.pyplot as plt
import pandas as pd


def _find_root() -> pathlib.Path:
    if os.environ.get("KSIM_ROOT"):
        return pathlib.Path(os.environ["KSIM_ROOT"]).resolve()
    here = pathlib.Path.cwd().resolve()
    for d in [here, *here.parents]:
        if (d / "scenarios").is_dir() and (d / "notebooks" / "ksim_nb.py").is_file():
            return d
    return pathlib.Path(__file__).resolve().parent.parent


ROOT = _find_root()
SMALL = os.environ.get("KSIM_NB_SMALL", "").lower() in ("1", "true", "yes", "on")
JOBS = int(os.environ.get("KSIM_NB_JOBS", "2"))


def _find_bin() -> pathlib.Path:
    given = os.environ.get("KSIM_BIN")
    path = pathlib.Path(given) if given else ROOT / "build" / "ksim"
    if not path.is_absolute():
        path = ROOT / path
    if not (path.is_file() and os.access(path, os.X_OK)):
        raise FileNotFoundError(
            f"no ksim binary at {path}: build it (cmake -S . -B build && cmake --build build) "
            "or point KSIM_BIN at one")
    return path


KSIM = _find_bin()
OUT = pathlib.Path(os.environ.get("KSIM_NB_OUT") or tempfile.mkdtemp(prefix="ksim-nb-")).resolve()
OUT.mkdir(parents=True, exist_ok=True)


def describe() -> None:
    """One line saying what runs where, for the top of a notebook."""
    mode = "small (CI)" if SMALL else "full"
    print(f"repository {ROOT}\nksim       {KSIM}\nsize       {mode}, {JOBS} runs at once\noutput     {OUT}")


def _set_args(sets: dict | None) -> list[str]:
    args = []
    for key, value in (sets or {}).items():
        if isinstance(value, (list, tuple)):
            value = ",".join(str(v) for v in value)
        args += ["--set", f"{key}={value}"]
    return args


def _run(cmd: list[str], ok=(0,)) -> subprocess.CompletedProcess:
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if proc.returncode not in ok:
        raise RuntimeError(f"{shlex.join(cmd)} exited {proc.returncode}:\n{proc.stderr[-4000:]}")
    return proc


def sweep(scenario: str, sets: dict, seeds: str | None = None, name: str = "sweep") -> pd.DataFrame:
    """`ksim sweep SCENARIO --set K=v1,v2 ... --seeds S -j JOBS --out OUT/NAME.csv`; the CSV as a DataFrame.

    A list value is one swept key; a plain string is a fixed override."""
    out = OUT / f"{name}.csv"
    cmd = [str(KSIM), "sweep", scenario, *_set_args(sets), "-j", str(JOBS), "--quiet", "--out", str(out)]
    if seeds:
        cmd += ["--seeds", str(seeds)]
    start = time.monotonic()
    _run(cmd)
    sidecar = json.loads(out.with_name(out.name + ".json").read_text())
    print(f"{shlex.join(cmd[1:])}\n  {sidecar['runs_in_file']} runs in {time.monotonic() - start:.1f}s wall")
    return pd.read_csv(out)


def run_json(scenario: str, sets: dict | None = None, seed: int | None = None) -> dict:
    """`ksim run SCENARIO --json`: the report. Status 1 (an expectation did not hold) still gives a report."""
    cmd = [str(KSIM), "run", scenario, "--json", *_set_args(sets)]
    if seed is not None:
        cmd += ["--seed", str(seed)]
    return json.loads(_run(cmd, ok=(0, 1)).stdout)


def run_many(jobs: dict[str, tuple[str, dict | None]]) -> dict[str, dict]:
    """Several `ksim run --json` at once, JOBS at a time: {name: (scenario, sets)} -> {name: report}."""
    start = time.monotonic()
    with ThreadPoolExecutor(max_workers=JOBS) as pool:
        futures = {name: pool.submit(run_json, scenario, sets) for name, (scenario, sets) in jobs.items()}
        reports = {name: f.result() for name, f in futures.items()}
    print(f"{len(reports)} runs in {time.monotonic() - start:.1f}s wall")
    (OUT / "reports.json").write_text(json.dumps(reports, indent=1))
    return reports


def over_seeds(df: pd.DataFrame, by: str, columns: list[str]) -> pd.DataFrame:
    """Mean, min and max of each column over the seeds, one row per value of `by` (sorted)."""
    g = df.groupby(by)[columns].agg(["mean", "min", "max"])
    return g.sort_index()


def plot_band(ax, summary: pd.DataFrame, column: str, label: str | None = None, scale: float = 1.0, **kw):
    """The mean over seeds as a line with markers, min to max as a shaded band."""
    x = summary.index.to_numpy()
    mean = summary[(column, "mean")] * scale
    (line,) = ax.plot(x, mean, marker="o", label=label or column, **kw)
    ax.fill_between(x, summary[(column, "min")] * scale, summary[(column, "max")] * scale,
                    color=line.get_color(), alpha=0.2, linewidth=0)
    return line


def show(fig, name: str) -> None:
    """Save the figure as OUT/NAME.png, and show it when the backend can (inline in Jupyter)."""
    fig.savefig(OUT / f"{name}.png", dpi=100, bbox_inches="tight")
    if "agg" == matplotlib.get_backend().lower():
        plt.close(fig)  # headless (MPLBACKEND=Agg): the PNG is the output
    else:
        plt.show()
