#!/bin/sh
# cluster.netns: two "hosts", each a network namespace on a bridge, run one MPI rank each
# against the mock server in the root namespace. Rank 1 also gets a private /tmp-like mount
# for the artifact directory, as a host without a shared file system would, so its records
# must reach rank 0 over MPI. Both "hosts" share this machine's CPUs, so the ranks yield while
# they wait (mpi_yield_when_idle): two busy-polling ranks on 2 CPUs would turn the clock
# ping-pong's microseconds into milliseconds. Needs root (ip netns, mount); exits 77 (skipped) otherwise.
# Usage: netns.sh RINGPERF_BINARY
set -eu
ringperf=$1
for tool in mpirun ip unshare python3; do
    command -v "$tool" >/dev/null 2>&1 || { echo "skip: $tool not found"; exit 77; }
done
[ "$(id -u)" -eq 0 ] || { echo "skip: needs root"; exit 77; }

id=$$
net="10.$((77 + id % 100)).$((id % 250))"
bridge="rpbr$id"
work=$(mktemp -d /tmp/ringperf-netns-XXXXXX)
mock_pid=""
cleanup() {
    [ -n "$mock_pid" ] && kill "$mock_pid" 2>/dev/null && wait "$mock_pid" 2>/dev/null
    ip netns del "rph0$id" 2>/dev/null || true
    ip netns del "rph1$id" 2>/dev/null || true
    ip link del "$bridge" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' HUP INT PIPE TERM

if ! ip link add "$bridge" type bridge 2>/dev/null; then
    echo "skip: cannot create network devices here"
    exit 77
fi
ip addr add "$net.1/24" dev "$bridge"
ip link set "$bridge" up
for i in 0 1; do
    ip netns add "rph$i$id"
    ip link add "rpv$i$id" type veth peer name eth0 netns "rph$i$id"
    ip link set "rpv$i$id" master "$bridge" up
    ip -n "rph$i$id" addr add "$net.1$i/24" dev eth0
    ip -n "rph$i$id" link set eth0 up
    ip -n "rph$i$id" link set lo up
done

mkdir -p "$work/shared" "$work/tmp0" "$work/tmp1"
# mpirun "ssh"es into a host with this agent: host .10 is namespace 0; host .11 is namespace 1
# with its own mount of the artifact directory's parent. Each "host" has its own Open MPI
# session directory, as real hosts do (they share a host name here).
cat >"$work/agent.sh" <<AGENT
#!/bin/sh
host=\$1
shift
case \$host in
$net.10) exec ip netns exec rph0$id env OMPI_MCA_orte_tmpdir_base=$work/tmp0 /bin/sh -c "\$*" ;;
$net.11) exec ip netns exec rph1$id env OMPI_MCA_orte_tmpdir_base=$work/tmp1 unshare --mount --propagation private /bin/sh -c "mount -t tmpfs tmpfs $work/shared && \$*" ;;
esac
echo "agent: unknown host \$host" >&2
exit 1
AGENT
chmod +x "$work/agent.sh"
printf '%s.10 slots=1\n%s.11 slots=1\n' "$net" "$net" >"$work/hosts"

"$ringperf" mock-server --host "$net.1" --port 0 --ttft-ms 1 --itl-ms 0.2 >"$work/mock.out" 2>&1 &
mock_pid=$!
for _ in $(seq 50); do
    grep -q "listening" "$work/mock.out" 2>/dev/null && break
    sleep 0.1
done
port=$(head -1 "$work/mock.out" | sed 's/.*://')

dir="$work/shared/run"
# Open MPI keeps allocations until exit: under mpirun the ranks run without LeakSanitizer
# (see tests/cluster/test_mpi.c).
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" timeout 120 mpirun -np 2 --allow-run-as-root --hostfile "$work/hosts" \
    --mca plm_rsh_agent "$work/agent.sh" --mca oob_tcp_if_include "$net.0/24" \
    --mca btl tcp,self --mca btl_tcp_if_include "$net.0/24" --mca mpi_yield_when_idle 1 \
    "$ringperf" profile --model m --url "$net.1:$port" --endpoint-type chat --streaming --osl 8 \
    --concurrency 4 --request-count 30 --artifact-dir "$dir" >"$work/run.out" 2>&1 || {
    cat "$work/run.out"
    echo "FAIL: mpirun across two namespaces"
    exit 1
}

python3 - "$dir" <<'PY'
import json, os, sys
d = sys.argv[1]
records = [json.loads(l)["metadata"] for l in open(os.path.join(d, "profile_export.jsonl"))]
ordinals = sorted(r["session_num"] for r in records)
assert ordinals == list(range(30)), ordinals
assert all(r["session_num"] % 2 == r["rank"] for r in records), "ordinal i from rank i mod 2"
info = json.load(open(os.path.join(d, "profile_export_aiperf.json")))["run_info"]
assert [r["records"] for r in info["ranks"]] == [15, 15], info["ranks"]
assert info["ranks"][1]["clock_uncertainty_ns"] > 0, info["ranks"]
assert not info["incomplete"]
# Rank 1 wrote to its own mount: only the records file it sent over MPI is here.
assert os.path.exists(os.path.join(d, "rank_1", "ringperf_records.jsonl"))
assert not os.path.exists(os.path.join(d, "rank_1", "profile_export_aiperf.json"))
print("ok: 30 records from 2 namespaces, rank 1's records sent over MPI;",
      "rank 1 clock offset %d +- %d ns" % (info["ranks"][1]["clock_offset_ns"],
                                           info["ranks"][1]["clock_uncertainty_ns"]))
PY
