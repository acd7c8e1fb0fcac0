#!/bin/bash
# Regenerate the SFS-FI (OFSS_FI_mi.m) and OSSFS-DD (OSFS_DD_mi2.m) reference outputs.
#
#   OSFS=path/to/OSFS ./run_all.sh [SET ...]
#
# OSFS     a clone (bare or not) of github.com/doodzhou/OSFS, commit 6a38135 (required)
# OUT      output folder (default: this folder)
# DATA     folder with <SET>_X.csv and <SET>_y.csv; by default one is built in a temporary folder
#          from ../kofsd_octave (ds1-ds5), ../lofs_octave (ds6, ds7) and ../../datasets (SRBCT, GLIOMA;
#          else the repository's copies ../datasets/GLIOMA.parquet, ../../../sample_data/SRBCT.parquet)
# PYTHON   python with numpy + pandas + pyarrow (only used to convert the Parquet sets)
# TIMES    file the timings are appended to (default: $OUT/times.txt)
# TIMEOUT  seconds allowed per Octave call (default 1500)
# SEED     rand('state', SEED) is set just before each call (default 0; neither method draws)
# METHODS  default: sfs_fi ossfs_dd
# SETS (arguments) default: ds1 ds2 ds3 ds4 ds5 ds6 ds7 SRBCT GLIOMA
# TRACE    1 (default) also runs the traced copies and checks they select the same features
#
# The authors' code calls the compiled MEX file MIToolboxMex (mi/MIToolboxMex.mexw64, Windows
# only) through mi/h.m, mi.m, cmi.m and SU.m. Those m-files are used unmodified; the MEX file
# is replaced by fsengine's Octave equivalent, MIToolboxMex.m in this folder (see README.md).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
: "${OSFS:?set OSFS to a clone of github.com/doodzhou/OSFS}"
OUT=${OUT:-$HERE}
PYTHON=${PYTHON:-python3}
TIMES=${TIMES:-$OUT/times.txt}
TIMEOUT=${TIMEOUT:-1500}
SEED=${SEED:-0}
METHODS=${METHODS:-"sfs_fi ossfs_dd"}
TRACE=${TRACE:-1}
SETS=${*:-"ds1 ds2 ds3 ds4 ds5 ds6 ds7 SRBCT GLIOMA"}
export OPENBLAS_NUM_THREADS=1
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$OUT" "$TMP/src" "$TMP/trace" "$TMP/data"

# 1. the authors' code, unmodified (CRLF line endings kept; Octave reads them), and the
#    helpers of mi/ it calls
FI="Feature Interaction for Streaming Feature Selection/OFSS_FI_mi.m"
DD="Online Scalable Streaming Feature Selection via Dynamic Decision/OSFS_DD_mi2.m"
FILES=("$FI" "$DD" mi/SU.m mi/h.m mi/mi.m mi/cmi.m)
if git -C "$OSFS" rev-parse --git-dir >/dev/null 2>&1; then
  echo "OSFS commit: $(git -C "$OSFS" rev-parse HEAD) (the references were made at 6a381353e928)"
  for f in "${FILES[@]}"; do git -C "$OSFS" show "HEAD:$f" > "$TMP/src/$(basename "$f")"; done
else
  for f in "${FILES[@]}"; do cp "$OSFS/$f" "$TMP/src/$(basename "$f")"; done
fi
cp "$HERE/MIToolboxMex.m" "$TMP/src/"
# 2. traced copies: line endings normalised, then the logging lines added; the helpers as is
for f in OFSS_FI_mi OSFS_DD_mi2; do tr -d '\r' < "$TMP/src/$f.m" > "$TMP/trace/$f.m"; done
for p in "$HERE"/trace_patches/*.patch; do patch -s -d "$TMP/trace" -p1 < "$p"; done
cp "$TMP/src/SU.m" "$TMP/src/h.m" "$TMP/src/mi.m" "$TMP/src/cmi.m" "$TMP/src/MIToolboxMex.m" "$TMP/trace/"
cp "$HERE/run_one.m" "$HERE/run_trace.m" "$TMP/"

# 3. data
if [ -z "${DATA:-}" ]; then
  DATA=$TMP/data
  for s in $SETS; do
    case $s in
      ds[1-5]) cp "$HERE/../kofsd_octave/${s}_X.csv" "$HERE/../kofsd_octave/${s}_y.csv" "$DATA/" ;;
      ds6|ds7) cp "$HERE/../lofs_octave/${s}_X.csv" "$HERE/../lofs_octave/${s}_y.csv" "$DATA/" ;;
      SRBCT|GLIOMA)
        # ../shared/datasets seen from ../shared/reference/<this folder>, else the repository's copies
        for f in "$HERE/../../datasets/$s.parquet" "$HERE/../datasets/$s.parquet" "$HERE/../../../sample_data/$s.parquet"; do
          [ -f "$f" ] && break
        done
        "$PYTHON" "$HERE/../lofs_octave/parquet_to_csv.py" "$f" 2 "$DATA/$s" ;;
      *) echo "no default data for $s: set DATA" >&2; exit 2 ;;
    esac
  done
fi

# 4. run
oct() {  # run one Octave call; on failure record why (the error message, or the timeout)
  local rc=0
  # from the temporary folder: Octave 7.3 may leave an octave-workspace file where it runs
  (cd "$TMP" && timeout "$TIMEOUT" octave --no-gui --norc -q --eval "addpath('$TMP'); $1") > "$TMP/call.log" 2>&1 || rc=$?
  cat "$TMP/call.log" >> "$TMP/octave.log"
  if [ $rc -ne 0 ]; then
    if [ $rc -eq 124 ]; then WHY="timed out after ${TIMEOUT} s"; else WHY=$(grep -m1 "^error:" "$TMP/call.log" || echo "exit $rc"); fi
  fi
  return $rc
}
status=0
for s in $SETS; do
  for m in $METHODS; do
    rm -f "$OUT/${s}_${m}_"*.csv
    if ! oct "run_one('$m','$s','$DATA','$OUT','$TMP/src','$TIMES',$SEED)"; then
      echo "$s $m: FAILED: $WHY"; status=1; echo "$s $m  FAILED: $WHY" >> "$TIMES"; continue
    fi
    tail -n 1 "$TIMES"
    if [ "$TRACE" = 1 ]; then
      oct "run_trace('$m','$s','$DATA','$OUT','$TMP/trace',$SEED)" || { echo "$s $m: traced run FAILED: $WHY"; status=1; continue; }
      if cmp -s "$OUT/${s}_${m}_selected.csv" "$OUT/${s}_${m}_selected_traced.csv"; then
        rm "$OUT/${s}_${m}_selected_traced.csv"
      else
        echo "$s $m: TRACED RUN SELECTED DIFFERENT FEATURES"; status=1
      fi
    fi
  done
done
grep -v "X11\|disabling GUI\|execution_exception" "$TMP/octave.log" | sort | uniq -c | sort -rn | head -20 || true
exit $status
