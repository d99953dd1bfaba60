"""The figures the differential suite compares that ksim check does not report, read from a
history (docs/history.md): the same code reads a real cluster's history (ground-truth/run) and
ksim's (ksim run --history). The anomalies (lost, duplicated, reordered; per group unprocessed,
processed twice, aborted reads) come from ksim check on each history (scripts/ground-truth-suite),
one implementation for both sides and for ksim's own verdicts.

- rebalances: the highest generation a group's members saw, the coordinator's count of
  completed rebalances (callback_bursts: the bursts of rebalance callbacks, first revoked/lost to
  last assigned, ending after 1 s without one, as ksim check counts a real history's);
- failover_s: for each broker crash, the longest a partition then went without an ack
  (see failover_seconds), the largest over crashes.
"""

import json
from collections import defaultdict

BURST_GAP_NS = 1_000_000_000


def read_history(path):
    events = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                events.append(json.loads(line))
    if not events or events[0].get("event") != "header":
        raise ValueError(f"{path}: not a history (no header)")
    return events[0], events[1:]


def figures(path):
    header, events = read_history(path)
    members = defaultdict(set)
    for i, c in enumerate(header["consumers"]):
        members[c["group"]].add(i)
    return {
        "source": header["source"],
        "failover_s": failover_seconds(header, events),
        "groups": {name: {"rebalances": rebalances(events, m)} for name, m in members.items()},
    }


def rebalances(events, members):
    """The group's completed rebalances: the highest generation its members saw (a fresh group's
    first rebalance makes generation 1; a static member's rejoin makes none), or, for members
    outside a group (assign()), the bursts of callbacks."""
    generations = [e["generation"] for e in events
                   if e["event"] in ("process", "commit") and e["consumer"] in members and e["generation"] >= 0]
    return max(generations) if generations else callback_bursts(events, members)


def callback_bursts(events, members):
    times = sorted(e["t"] for e in events
                   if e["event"] in ("assigned", "revoked", "lost") and e["consumer"] in members)
    bursts = 0
    last = None
    for t in times:
        if last is None or t - last > BURST_GAP_NS:
            bursts += 1
        last = t
    return bursts


def failover_seconds(header, events):
    """The longest a partition went without an ack from a broker crash on: of the gaps
    between its consecutive acks, those that end after the crash and start at most 2 s
    after it, counted from the crash; the largest over partitions and crashes."""
    crashes = [f for f in header.get("faults", [])
               if f["kind"] in ("crash", "shutdown") and any(n.startswith("broker-") for n in f["nodes"])]
    if not crashes:
        return None
    acks = defaultdict(list)
    for e in events:
        if e["event"] == "ack":
            acks[(e["topic"], e["partition"])].append(e["t"])
    worst = 0
    for crash in crashes:
        for times in acks.values():
            times.sort()
            for a, b in zip(times, times[1:]):
                if b > crash["at"] and a <= crash["at"] + 2_000_000_000:
                    worst = max(worst, b - max(a, crash["at"]))
    return worst / 1e9
