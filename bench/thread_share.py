#!/usr/bin/env python3
"""Runs a command and reports the CPU time of its main thread against all its other threads
while the others run: for `ringperf profile`, the coordinator (the main thread) against the
shards (and the idle signal watcher), from /proc/PID/task/*/schedstat (ns on the CPU), sampled
every 20 ms. Works for any build, so a build without run_info's coordinator_cpu_share can be
compared with one that has it.

Usage: bench/thread_share.py CMD ARGS...   (prints "coordinator_ns others_ns share" on stderr's
last line; the command's own output goes where it would.) A command still running after
THREAD_SHARE_LIMIT_S seconds (default 300) is killed (SIGKILL: a SCHED_FIFO process that spins
would never get to a SIGTERM handler on its own CPU) and the run fails."""
import os
import subprocess
import sys
import time


def cpu_ns(pid):
    tasks = {}
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            try:
                with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                    tasks[int(tid)] = int(f.read().split()[0])
            except OSError:
                pass
    except OSError:
        pass
    return tasks


def main():
    proc = subprocess.Popen(sys.argv[1:])
    deadline = time.monotonic() + float(os.environ.get("THREAD_SHARE_LIMIT_S", "300"))
    first = {}  # each thread's CPU time when first seen beside the main one and the watcher
    last = {}
    main_first = main_last = None
    while proc.poll() is None:
        tasks = cpu_ns(proc.pid)
        if len(tasks) >= 3 and proc.pid in tasks:
            for tid, ns in tasks.items():
                first.setdefault(tid, ns)
                last[tid] = ns
            if main_first is None:
                main_first = tasks[proc.pid]
            main_last = tasks[proc.pid]
        if time.monotonic() > deadline:
            proc.kill()
            proc.wait()
            print("thread_share: killed after the time limit", file=sys.stderr)
            return 1
        time.sleep(0.02)
    if main_first is None:
        print("thread_share: the command never ran more than two threads", file=sys.stderr)
        return proc.returncode or 1
    coordinator = main_last - main_first
    others = sum(last[t] - first[t] for t in last if t != proc.pid)
    share = coordinator / (coordinator + others) if coordinator + others > 0 else 0.0
    print(f"{coordinator} {others} {share:.4f}", file=sys.stderr)
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main())
