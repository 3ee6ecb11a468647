#!/usr/bin/env bash
# ragscope-cli's start-up and a whole bootstrap process against the tools they replace, side by
# side with hyperfine (not run by ctest or scripts/bench: it needs hyperfine and python3-scipy).
#
#   tests/bench/startup_vs_tools.sh [BUILD_DIR]     (default: build-release if it has the CLI,
#                                                    else build)
#
# Measures, each process started directly (hyperfine -N) after warm-up runs:
#   1. `ragscope-cli --version`, and `trec_eval -v` when a trec_eval is on PATH;
#   2. a small `eval` (trec_eval's own test qrels.test + results.test, read in place from
#      ../shared/data/trec_eval/test), and trec_eval on the same files when there is one;
#   3. `ragscope-cli bootstrap` of 10,000 values x 10,000 resamples (percentile CI) against
#      /usr/bin/python3 with scipy.stats.bootstrap (vectorised, in batches of 1000 resamples:
#      scipy's default, all 10^8 draws at once, takes about 4x longer and 1.6 GB) and a plain
#      numpy resampling loop;
# then prints the ratios. The values are generated into a temporary folder (fixed seed).
# Also lists how many shared libraries the CLI maps at start (ldd).
set -euo pipefail
cd "$(dirname "$0")/../.."

build="${1:-}"
if [ -z "$build" ]; then
  if [ -x build-release/app/ragscope-cli ]; then build=build-release; else build=build; fi
fi
cli="$build/app/ragscope-cli"
[ -x "$cli" ] || { echo "startup_vs_tools: no $cli (build the ragscope-cli target)" >&2; exit 2; }
command -v hyperfine >/dev/null || { echo "startup_vs_tools: hyperfine is not installed" >&2; exit 2; }
python=/usr/bin/python3
"$python" -c "import scipy" 2>/dev/null ||
  { echo "startup_vs_tools: $python has no scipy (apt-get install python3-scipy)" >&2; exit 2; }

data="${RAGSCOPE_DATA_DIR:-../shared/data}/trec_eval/test"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

echo "== $cli: $(ldd "$cli" | wc -l) shared objects at start"
echo

# 1 + 2: start-up and a small eval.
runs=(-N --warmup 20 --min-runs 200 --export-json "$work/startup.json")
cmds=("$cli --version")
if command -v trec_eval >/dev/null; then cmds+=("trec_eval -v"); fi
if [ -f "$data/qrels.test" ]; then
  cmds+=("$cli eval $data/qrels.test $data/results.test")
  if command -v trec_eval >/dev/null; then cmds+=("trec_eval $data/qrels.test $data/results.test"); fi
else
  echo "startup_vs_tools: $data not found: the eval run is left out" >&2
fi
hyperfine "${runs[@]}" "${cmds[@]}"

# 3: bootstrap, 10,000 values x 10,000 resamples.
"$python" - "$work/values.q" <<'EOF'
import random, sys
r = random.Random(2024)
with open(sys.argv[1], "w") as f:
    for i in range(10000):
        f.write("map                   \tq%d\t%.4f\n" % (i, r.random()))
EOF
cat > "$work/scipy_bootstrap.py" <<'EOF'
import sys
import numpy as np
from scipy import stats
values = np.array([float(line.split()[2]) for line in open(sys.argv[1])])
batch = None if sys.argv[2] == "all" else int(sys.argv[2])
r = stats.bootstrap((values,), np.mean, n_resamples=10000, method="percentile", batch=batch,
                    vectorized=True, random_state=np.random.default_rng(42))
print(r.confidence_interval)
EOF
cat > "$work/numpy_loop.py" <<'EOF'
import sys
import numpy as np
values = np.array([float(line.split()[2]) for line in open(sys.argv[1])])
rng = np.random.default_rng(42)
means = np.empty(10000)
for b in range(0, 10000, 500):
    means[b:b + 500] = values[rng.integers(0, values.size, (500, values.size))].mean(axis=1)
print(np.percentile(means, [2.5, 97.5]))
EOF
hyperfine -N --warmup 2 --min-runs 10 --export-json "$work/bootstrap.json" \
  "$cli bootstrap $work/values.q --measure map --B 10000" \
  "$python $work/scipy_bootstrap.py $work/values.q 1000" \
  "$python $work/numpy_loop.py $work/values.q"

echo
"$python" - "$work/startup.json" "$work/bootstrap.json" <<'EOF'
import json, statistics, sys
def load(path):
    return [(r["command"], statistics.median(r["times"]) * 1e3) for r in json.load(open(path))["results"]]
startup = load(sys.argv[1])
boot = load(sys.argv[2])
print("median wall time per process:")
for name, ms in startup + boot:
    print(f"  {ms:9.2f} ms  {name}")
trec_eval = next((ms for name, ms in startup if name.startswith("trec_eval -v")), None)
ref = trec_eval if trec_eval is not None else 0.6
label = "trec_eval -v here" if trec_eval is not None else "trec_eval's 0.6 ms (issue 26; no trec_eval here)"
print(f"start-up against {label}:")
for name, ms in startup:
    if "ragscope-cli" in name:
        print(f"  {ms / ref:6.1f}x  {name}   (goal: at most 8x)")
ours = boot[0][1]
print("bootstrap 10k x 10k, ragscope-cli against:")
for name, ms in boot[1:]:
    print(f"  {ms / ours:6.1f}x faster than {name}   (goal: at least 12x)")
EOF
