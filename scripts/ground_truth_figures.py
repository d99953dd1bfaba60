"""The figures the differential suite compares, read from a history (docs/history.md).

The same code reads a real cluster's history (ground-truth/run) and ksim's (ksim run
--history), so a difference between the two columns of the suite's table is a difference
between the two clusters, not between two ways of counting. ksim check's verdicts are
compared besides (scripts/ground-truth-suite); these are the counts behind them:

- lost: acknowledged records absent from the final committed log of their partition;
- duplicated: records (writer, partition, number) the final log holds more than once;
- reordered: records of one writer that the final log holds before one sent earlier to the
  same partition (first copies only);
- unprocessed: records of a group's topic in the final committed log that no member processed;
- processed_twice: records (partition, offset) a group processed more than once;
- aborted_reads: records a group processed that the final log holds only as aborted;
- rebalances: the highest generation a group's members saw, the coordinator's count of
  completed rebalances (callback_bursts: the bursts of rebalance callbacks, first revoked/lost to
  last assigned, ending after 1 s without one, as ksim check counts a real history's);
- failover_s: for each broker crash, the longest a partition then went without an ack
  (see failover_seconds), the largest over crashes.
"""

import json
from collections import Counter, defaultdict

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
    finals = [e for e in events if e["event"] == "final"]
    committed = {}
    aborted = {}
    for f in finals:
        committed[(f["topic"], f["partition"])] = f["committed"]
        aborted[(f["topic"], f["partition"])] = {o for o, _, _ in f["aborted"]}

    in_log = Counter()
    for (topic, partition), records in committed.items():
        for _, writer, record in records:
            in_log[(writer, topic, partition, record)] += 1
    acked = {(e["writer"], e["topic"], e["partition"], e["record"]) for e in events if e["event"] == "ack"}
    lost = sum(1 for r in acked if in_log[r] == 0)
    duplicated = sum(1 for n in in_log.values() if n > 1)

    reordered = 0
    for (topic, partition), records in committed.items():
        highest = {}
        seen = set()
        for _, writer, record in records:
            if (writer, record) in seen:
                continue
            seen.add((writer, record))
            if record < highest.get(writer, -1):
                reordered += 1
            highest[writer] = max(highest.get(writer, -1), record)

    consumers = header["consumers"]
    groups = defaultdict(lambda: {"topic": None, "members": set()})
    for i, c in enumerate(consumers):
        groups[c["group"]]["topic"] = c["topic"]
        groups[c["group"]]["members"].add(i)
    group_figures = {}
    for name, g in groups.items():
        processed = Counter()
        aborted_reads = 0
        for e in events:
            if e["event"] == "process" and e["consumer"] in g["members"]:
                processed[(e["topic"], e["partition"], e["offset"])] += 1
                if e["offset"] in aborted.get((e["topic"], e["partition"]), set()):
                    aborted_reads += 1
        unprocessed = 0
        for (topic, partition), records in committed.items():
            if topic != g["topic"]:
                continue
            unprocessed += sum(1 for offset, _, _ in records if processed[(topic, partition, offset)] == 0)
        group_figures[name] = {
            "unprocessed": unprocessed,
            "processed_twice": sum(1 for n in processed.values() if n > 1),
            "aborted_reads": aborted_reads,
            "rebalances": rebalances(events, g["members"]),
            "callback_bursts": callback_bursts(events, g["members"]),
            "processed": len(processed),
        }

    return {
        "source": header["source"],
        "acked": len(acked),
        "lost": lost,
        "duplicated": duplicated,
        "reordered": reordered,
        "failover_s": failover_seconds(header, events),
        "groups": group_figures,
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
