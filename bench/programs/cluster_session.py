"""Issue 3: a remote session on a 2-task cluster on loopback.

Two tf.train.Server tasks (/job:worker/task:0 and task:1) run in their own processes; this
process holds only a tf.Session("grpc://<task 0>").

Rows:
  remote step: op on own task      fetch v0 + 1 with v0 on task 0 (the session's task)
  remote step: op on other task    fetch v1 + 1 with v1 on task 1
  fetch 64 MiB from other task     fetch a float32[16M] variable that lives on task 1 (GB/s)
  feed 64 MiB to other task        feed a float32[16M] placeholder on task 1, fetch one element
  loopback TCP 64 MiB (one socket pair)   the machine's loopback TCP throughput, measured in
                                   the same run: another process sends 64 MiB in big sends
                                   over one connection, this one receives it into a buffer
  peak RSS, 64 MiB fetch/feed: <process>  VmHWM of the client and of each task at the end
"""

from __future__ import annotations

import os
import sys
from typing import Any

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import _common as c

BIG = 16 * 1024 * 1024  # float32 elements: 64 MiB
FEATURES = ["train.Server", "train.ClusterSpec", "ConfigProto"]


def build(tf: Any) -> tuple[Any, dict[str, Any]]:
    g = tf.Graph()
    with g.as_default():
        with tf.device("/job:worker/task:0"):
            v0 = tf.Variable(1.0, name="v0")
            own = v0 + 1.0
        with tf.device("/job:worker/task:1"):
            v1 = tf.Variable(1.0, name="v1")
            other = v1 + 1.0
            big = tf.Variable(tf.ones([BIG], dtype=tf.float32), name="big")
            big_out = tf.identity(big)
            fed = tf.placeholder(tf.float32, shape=[BIG], name="fed")
            fed_head = fed[:1]
        init = tf.global_variables_initializer()
    return g, {
        "init": init,
        "own": own,
        "other": other,
        "big_out": big_out,
        "fed": fed,
        "fed_head": fed_head,
    }


def main() -> None:
    args = c.base_parser(__doc__ or "").parse_args()
    tf = c.import_tf(args.impl)
    c.require(tf, args.impl, FEATURES, "issue 3")
    cap = c.seconds_cap(args)
    profiled = {n.strip() for n in args.profile.split(",") if n.strip()}

    ports = c.free_ports(2)
    cluster = {"worker": [f"localhost:{p}" for p in ports]}
    c.progress(f"starting 2 task servers on ports {ports}")
    with c.TaskServers(args.impl, cluster) as servers:
        for i in range(2):
            servers.start("worker", i)
        g, t = build(tf)
        config = tf.ConfigProto(operation_timeout_in_ms=60_000)
        sess = tf.Session(f"grpc://{cluster['worker'][0]}", graph=g, config=config)
        sess.run(t["init"])
        assert float(sess.run(t["own"])) == 2.0 and float(sess.run(t["other"])) == 2.0
        payload = np.full([BIG], 0.5, dtype=np.float32)
        assert float(sess.run(t["fed_head"], {t["fed"]: payload})[0]) == 0.5
        assert float(sess.run(t["big_out"])[-1]) == 1.0

        fns = {
            "remote step: op on own task": lambda: sess.run(t["own"]),
            "remote step: op on other task": lambda: sess.run(t["other"]),
        }
        c.progress("step overhead: warm-up and timing")
        steps = c.sample_interleaved(
            fns, warmup=30, samples=10 if args.quick else 30, max_seconds=cap
        )
        rows = [c.time_row(n, xs) for n, xs in steps.items()]

        big_fns = {
            "fetch 64 MiB from other task": lambda: sess.run(t["big_out"]),
            "feed 64 MiB to other task": lambda: sess.run(t["fed_head"], {t["fed"]: payload}),
        }
        c.progress("loopback TCP throughput: one socket pair, 64 MiB transfers")
        loopback = c.loopback_tcp_gbps(BIG * 4, samples=4 if args.quick else 12)
        c.progress("64 MiB transfers: warm-up and timing")
        transfers = c.sample_interleaved(
            big_fns, warmup=2, samples=4 if args.quick else 12, max_seconds=cap, batch_target_s=0
        )
        nbytes = BIG * 4
        for name, xs in transfers.items():
            rows.append(
                c.rate_row(name, "GB/s", [nbytes / x / 1e9 for x in xs], detail=f"{nbytes} bytes")
            )

        rows.append(
            c.rate_row(
                "loopback TCP 64 MiB (one socket pair)",
                "GB/s",
                loopback,
                detail="another process sends 64 MiB over one loopback TCP connection",
            )
        )
        peaks = {"client": c.peak_rss_mb(), **servers.peak_rss_mb()}
        for who, mb in peaks.items():
            who = {"worker 0": "task 0 (session's)", "worker 1": "task 1 (holds the tensors)"}.get(
                who, who
            )
            rows.append(c.size_row(f"peak RSS, 64 MiB fetch/feed: {who}", mb))

        all_fns = {**fns, **big_fns}
        for row in rows:
            if row.name in profiled:
                per_call = row.median if row.kind == "time" else nbytes / row.median / 1e9
                calls = min(5000, max(5, int(1.0 / max(per_call, 1e-9))))
                c.progress(f"profiling {row.name!r} ({calls} calls)")
                row.profile = c.profile_calls(all_fns[row.name], calls)
        sess.close()
    for row in rows:
        shown = (
            f"{row.median * 1e6:.1f} us" if row.kind == "time" else f"{row.median:.3f} {row.unit}"
        )
        c.progress(f"  {row.name}: median {shown} over {row.samples} samples")
    c.emit(args.impl, rows)


if __name__ == "__main__":
    main()
