#!/bin/bash
# Probe of the authors' OSSFS.m (doodzhou/OSFS). NOT a reference run: OSSFS calls Fisher_Ztest,
# which is not public (README.md), so the relevance test is replaced by a stub that declares
# chosen features relevant and only the aggregation stage (bandwidth, hyperspheres, merging,
# representatives) runs, unmodified.
#
#   OSFS=path/to/doodzhou/OSFS ./run_probe.sh
#
# OSFS   a clone (bare or not) of github.com/doodzhou/OSFS (the probe was made at 6a381353e928)
# OUT    output folder (default: this folder): probe_results.txt, probe_trace.txt (both rewritten)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
: "${OSFS:?set OSFS to a clone of github.com/doodzhou/OSFS}"
OUT=${OUT:-$HERE}
FILE="Online Stable Streaming Feature Selection via Feature Aggregation/OSSFS.m"
BLOB=ad6dc29fbe54211d555dcca8d11f356505f81dbe   # git blob id of OSSFS.m at 6a381353e928
export OPENBLAS_NUM_THREADS=1
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$TMP/src" "$TMP/trace" "$TMP/data"

# 1. the authors' file, unmodified (CRLF line endings and GBK comments kept; Octave reads them)
if git -C "$OSFS" rev-parse --git-dir >/dev/null 2>&1; then
  echo "OSFS commit: $(git -C "$OSFS" rev-parse HEAD)"
  git -C "$OSFS" show "HEAD:$FILE" > "$TMP/src/OSSFS.m"
else
  cp "$OSFS/$FILE" "$TMP/src/OSSFS.m"
fi
got=$(git hash-object "$TMP/src/OSSFS.m")
[ "$got" = "$BLOB" ] || { echo "OSSFS.m is not the probed version ($got); line numbers below may not fit" >&2; exit 2; }
cp "$HERE/mapminmax.m" "$TMP/src/"

# 2. the PROBE STUB for the missing Fisher_Ztest (ours; NOT the authors' test)
cat > "$TMP/src/Fisher_Ztest.m" <<'STUB'
function [CI, dep] = Fisher_Ztest(X, Y, S, alpha)
% PROBE STUB, not the authors' Fisher_Ztest (which is not public). Ignores its arguments: the k-th
% call (= the k-th feature of the stream) is relevant (CI = 0, dep = 1) iff PROBE_MASK(k).
  global PROBE_MASK PROBE_K
  PROBE_K = PROBE_K + 1;
  if PROBE_MASK(PROBE_K)
    CI = 0; dep = 1;
  else
    CI = 1; dep = 0;
  end
end
STUB

# 3. a traced copy: only lines ending in % TRACE that print are added (after the given lines)
cp "$TMP/src/Fisher_Ztest.m" "$TMP/src/mapminmax.m" "$TMP/trace/"
tr -d '\r' < "$TMP/src/OSSFS.m" | awk '
  { print }
  NR == 33  { print "printf(\"TRACE i=%d first_cover n_relevant=%d bandwidth=%.6f n_hyperspheres=%d\\n\", i, sum(mode), bandwidth, size(HyperE.center,1)); % TRACE" }
  NR == 37  { print "printf(\"TRACE i=%d update n_relevant=%d n_hyperspheres=%d\\n\", i, sum(mode), size(HyperE.center,1)); % TRACE" }
  NR == 48  { print "printf(\"TRACE end_cover n_relevant=%d bandwidth=%.6f n_hyperspheres=%d S=[%s]\\n\", sum(mode), bandwidth, size(HyperE.center,1), sprintf(\"%.6g \", HyperE.S)); % TRACE" }
  NR == 55  { print "printf(\"TRACE end_update n_relevant=%d n_hyperspheres=%d S=[%s]\\n\", sum(mode), size(HyperE.center,1), sprintf(\"%.6g \", HyperE.S)); % TRACE" }
  NR == 126 { print "printf(\"TRACE merge %d -> %d hyperspheres\\n\", size(DataSet,1), size(newCenters,1)); % TRACE" }
' > "$TMP/trace/OSSFS.m"
for n in 33:HyperECover 37:HyperEUpdate 48:HyperECover 55:HyperEUpdate 126:newCenters; do
  tr -d '\r' < "$TMP/src/OSSFS.m" | sed -n "${n%%:*}p" | grep -q "${n#*:}" || { echo "line ${n%%:*} moved" >&2; exit 2; }
done

# 4. data: the seven fixtures
for s in ds1 ds2 ds3 ds4 ds5; do cp "$HERE/../kofsd_octave/${s}_X.csv" "$HERE/../kofsd_octave/${s}_y.csv" "$TMP/data/"; done
for s in ds6 ds7; do cp "$HERE/../lofs_octave/${s}_X.csv" "$HERE/../lofs_octave/${s}_y.csv" "$TMP/data/"; done
cp "$HERE/probe_one.m" "$TMP/"

# 5. runs: every feature relevant on each fixture; the first k features relevant on ds1
RES=$OUT/probe_results.txt
: > "$RES"
run() { timeout 300 octave --no-gui --norc -q --eval "addpath('$TMP'); probe_one($1)" >> "$TMP/octave.log" 2>&1; }
for s in ds1 ds2 ds3 ds4 ds5 ds6 ds7; do run "'$s','$TMP/data','$TMP/src','all','$RES'"; done
for k in 0 1 2 3 7 8 9 15 16 17 24; do run "'ds1','$TMP/data','$TMP/src',$k,'$RES'"; done
cat "$RES"

# 6. traces (ds1: the first 7, the first 17, all 40 features relevant); the traced copy must
#    return exactly what the unmodified file returned in step 5
TR=$OUT/probe_trace.txt
: > "$TR"
for k in 7 17 40; do
  echo "== ds1, the first $k features relevant" >> "$TR"
  timeout 300 octave --no-gui --norc -q --eval "addpath('$TMP/trace'); pkg load statistics; global PROBE_MASK PROBE_K; X = dlmread('$TMP/data/ds1_X.csv', ','); y = dlmread('$TMP/data/ds1_y.csv'); PROBE_MASK = false(1, 40); PROBE_MASK(1:$k) = true; PROBE_K = 0; sel = OSSFS(X, y(:), 0.05); printf('SELECTED [%s]\\n', strtrim(sprintf('%d ', sel)))" 2>/dev/null | grep -E "^(TRACE|SELECTED)" >> "$TR"
  if [ $k = 40 ]; then label=all; else label=first$k; fi
  want=$(grep "^ds1 .* relevant=$label " "$RES" | sed 's/.*order returned)=//')
  got=$(tail -n 1 "$TR" | sed 's/^SELECTED //')
  [ "$want" = "$got" ] || { echo "traced copy returned $got, unmodified $want" >&2; exit 1; }
done
cat "$TR"
