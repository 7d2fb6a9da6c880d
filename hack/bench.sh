#!/usr/bin/env bash
# make bench: every benchmark in one run, results in bench/results/<date>-<machine>.md and the
# targets table in README.md. Needs h2load (Debian/Ubuntu: apt-get install nghttp2-client), Go
# (builds bench/reference-go from the module proxy) and the local control plane (built if missing).
#   BENCH_ROUNDS=2 BENCH_SECONDS=5   webhook A/B rounds and seconds per timed h2load run
#   BENCH_MACHINES=10000 BENCH_POOLS=1000 BENCH_DRAIN=1000   fleet size
#   BENCH_BOUND_MACHINES=100   Machines bound to the pool the webhook's eviction warnings list
#   BENCH_PORT=21201 BENCH_HEALTH_PORT=21210   loopback ports used
#   BENCH_PARTS="webhook fleet jmh"   parts to run; a part left out keeps its last output in bench/target/bench
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
MVN=${MVN:-mvn}

if ! command -v h2load >/dev/null; then
  echo "make bench: h2load not found. Install it with: apt-get install nghttp2-client (Debian/Ubuntu; Fedora: dnf install nghttp2)" >&2
  exit 1
fi
if ! command -v go >/dev/null; then
  echo "make bench: go not found (needed to build the reference webhook bench/reference-go); install Go >= 1.24" >&2
  exit 1
fi

out_dir=bench/target/bench
parts=" ${BENCH_PARTS:-webhook fleet jmh} "
mkdir -p "$out_dir"
for part in webhook fleet jmh; do
  if [[ $parts == *" $part "* ]]; then rm -rf "$out_dir/$part" "$out_dir/$part.md" "$out_dir/$part.txt"; fi
done
started=$(date -u +%s)
load_before=$(uptime)

echo "make bench: building the Go reference webhook (bench/reference-go, Go module proxy)"
(cd bench/reference-go && GOFLAGS=-mod=mod go build -o "$repo/bench/target/reference-webhook" .)

echo "make bench: local control plane"
bin_dir="$(hack/build-controlplane.sh)"

echo "make bench: building our modules and the image's Java (package, runtime classpaths, hack/java-runtime.sh)"
$MVN -B -q -Pbench -DskipTests package dependency:build-classpath \
  -Dmdep.outputFile=target/classpath.txt -Dmdep.includeScope=runtime -pl bench,image -am
# our processes run on the image's Java, started as the Deployments start them (bench ImageJava)
image_jvm=image/target/jvm
bench_cp="bench/target/classes:$(cat bench/target/classpath.txt)"

load_mid="(webhook part not run)"
if [[ $parts == *" webhook "* ]]; then
echo "make bench: webhook, ours vs reference (A/B alternating)"
java -Dironcore.maintenance.log.level=WARN -cp "$bench_cp" dev.ironcore.maintenance.bench.WebhookBench \
  --work "$out_dir/webhook" --out "$out_dir/webhook.md" \
  --image-jvm "$image_jvm" --deployment manifests/deploy/webhook_deployment.yaml \
  --reference bench/target/reference-webhook \
  --rounds "${BENCH_ROUNDS:-2}" --seconds "${BENCH_SECONDS:-5}" --port "${BENCH_PORT:-21201}" \
  --controlplane-dir "$bin_dir" --bound-machines "${BENCH_BOUND_MACHINES:-100}"
load_mid=$(uptime)
fi

load_after_fleet="(fleet part not run)"
if [[ $parts == *" fleet "* ]]; then
echo "make bench: controller at fleet scale"
java -Dironcore.maintenance.log.level=WARN -cp "$bench_cp" dev.ironcore.maintenance.bench.FleetBench \
  --work "$out_dir/fleet" --out "$out_dir/fleet.md" --repo "$repo" \
  --controlplane-dir "$bin_dir" --image-jvm "$image_jvm" \
  --deployment manifests/deploy/controller_deployment.yaml \
  --machines "${BENCH_MACHINES:-10000}" --pools "${BENCH_POOLS:-1000}" --drain-size "${BENCH_DRAIN:-1000}" \
  --health-port "${BENCH_HEALTH_PORT:-21210}"
load_after_fleet=$(uptime)
fi

if [[ $parts == *" jmh "* ]]; then
echo "make bench: JMH (admission core, drain decision)"
java -Dironcore.maintenance.log.level=WARN -cp "$bench_cp" org.openjdk.jmh.Main -f 1 -wi 2 -w 1s -i 3 -r 1s ${JMH_ARGS:-} | tee "$out_dir/jmh.txt"
fi
load_after=$(uptime)

machine=$(hostname -s)
date=$(date -u +%Y-%m-%d)
results=bench/results/$date-$machine.md
# a part's figures, or a line saying it was neither run now nor kept from an earlier run
part_output() {
  if [ -f "$1" ]; then cat "$1"; else echo "($(basename "$1" .md) part: not run now, no earlier output in $out_dir)"; fi
}
mkdir -p bench/results
{
  echo "# make bench, $date, machine \`$machine\`"
  echo
  echo "| | |"
  echo "|---|---|"
  echo "| CPU | $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores available |"
  echo "| memory | $(free -m | awk '/Mem:/ {print $2}') MiB |"
  echo "| kernel | $(uname -r) |"
  echo "| JVM of our processes (the image's, jlink) | $("$image_jvm/runtime/bin/java" -version 2>&1 | sed -n 2p) |"
  echo "| JVM of the benchmark driver | $(java -version 2>&1 | sed -n 2p) |"
  echo "| Go | $(go version) |"
  echo "| h2load | $(h2load --version | head -1) |"
  echo "| load before | \`$load_before\` |"
  echo "| load after webhook bench | \`$load_mid\` |"
  echo "| load after fleet bench | \`$load_after_fleet\` |"
  echo "| load at the end | \`$load_after\` |"
  echo "| parts run now | $parts(others from the previous run in bench/target/bench) |"
  echo "| wall time | $(( $(date -u +%s) - started )) s |"
  echo
  echo
  part_output "$out_dir/webhook.md"
  echo
  part_output "$out_dir/fleet.md"
  echo
  echo "## JMH (one fork, 2 × 1 s warm-up, 3 × 1 s measurement)"
  echo
  echo '```'
  if [ -f "$out_dir/jmh.txt" ]; then sed -n '/^Benchmark/,$p' "$out_dir/jmh.txt"; else echo "(not run)"; fi
  echo '```'
  # why the targets missed are missed: kept with the code (mechanisms, what was tried), not generated
  if [ -f bench/analysis.md ]; then echo; cat bench/analysis.md; fi
} > "$results"

# README: the targets tables of this run between the bench markers
python3 - "$results" <<'PY'
import re, sys
results = sys.argv[1]
text = open(results).read()
tables = re.findall(r"### Targets\n\n(\|.*?)(?:\n\n|\Z)", text, re.S)
block = ("<!-- bench:begin (written by make bench) -->\nLatest run: [`%s`](%s) (see it for the machine, its"
         " load, every figure and why a target is missed).\n\n" % (results, results)
         + "\n".join(t.strip() + "\n" for t in tables) + "<!-- bench:end -->")
readme = open("README.md").read()
if "<!-- bench:begin" in readme:
    readme = re.sub(r"<!-- bench:begin.*?<!-- bench:end -->", lambda m: block, readme, flags=re.S)
    open("README.md", "w").write(readme)
PY
echo "make bench: wrote $results (and the targets into README.md) in $(( $(date -u +%s) - started )) s"
