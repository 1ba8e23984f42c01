#!/usr/bin/env bash
# RAC Bench on a real GPU, in one call, from the kit that `npm run device:kit` builds (.device/):
# no Node, npm or network needed on the machine, only bash, coreutils and python3 (to unpack
# Node where xz is missing; PyTorch, if present, for the comparison).
#
#   bash scripts/device/gpu-check.sh [--dry-run] [--kit DIR] [--out DIR] [--budget SECONDS]
#
# Stages, each in its own process under its own time limit (what a stage printed before a limit
# stopped it is kept), the whole within --budget (default 345 s: under 6 minutes with unpacking):
#   adapter  the WebGPU adapter (Dawn on Vulkan): vendor, architecture, limits; a software adapter
#            (SwiftShader, llvmpipe) is refused unless --dry-run
#   steps    one training step of each deep method at rsb size on WebGPU: ms per step, kernels,
#            programs, bytes up/down, achieved TFLOP/s
#   torch    the same steps in PyTorch on the same GPU (scripts/bench/deep_step.py --device cuda);
#            "not available" in the table where python3 has no CUDA torch
#   fit      one whole FT-Transformer fit (iris · distribution · 5 labels, seed 0: 1 000 steps)
#   cells    if time is left: the FT-Transformer iris · distribution · 5 cells for seeds 0–4,
#            compared with the published means
# Then ONE table is printed and written, with result.json and log.txt, to --out (default $OUT,
# else ./device-out).
#
# --dry-run: tiny network, few steps, software adapter accepted, PyTorch on the CPU if present,
# a 600 s budget unless --budget says otherwise:
# proves the kit works on a machine without a GPU (tests/unit/device/gpuCheck.test.ts runs it on
# SwiftShader). Environment: PYTHON (default python3), VK_ICD_FILENAMES / VK_DRIVER_FILES (the
# Vulkan driver; found automatically for NVIDIA's container layout).
set -uo pipefail

DRY=0
BUDGET=""
KIT=""
OUTDIR="${OUT:-./device-out}"
usage() { sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
  case "$1" in
    --dry-run) DRY=1 ;;
    --kit) KIT="${2:?--kit needs a folder}"; shift ;;
    --out) OUTDIR="${2:?--out needs a folder}"; shift ;;
    --budget) BUDGET="${2:?--budget needs seconds}"; shift ;;
    -h | --help) usage; exit 0 ;;
    *) echo "gpu-check: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done
# A real run must end within 6 minutes; a dry run on a software adapter gets longer.
[ -z "$BUDGET" ] && BUDGET=$([ $DRY = 1 ] && echo 600 || echo 345)
case "$BUDGET" in '' | *[!0-9]*) echo "gpu-check: --budget must be whole seconds, got '$BUDGET'" >&2; exit 2 ;; esac

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if [ -z "$KIT" ]; then
  # Inside the kit (.device/gpu-check.sh) or in the repository (scripts/device/gpu-check.sh).
  if [ -f "$HERE/manifest.json" ]; then KIT="$HERE"; else KIT="$HERE/../../.device"; fi
fi
if [ ! -f "$KIT/manifest.json" ]; then
  echo "gpu-check: no kit at $KIT (manifest.json missing). Build it first: npm run device:kit" >&2
  exit 2
fi
KIT="$(cd "$KIT" && pwd)"
mkdir -p "$OUTDIR" || { echo "gpu-check: cannot create $OUTDIR" >&2; exit 2; }
OUTDIR="$(cd "$OUTDIR" && pwd)"

T0=$(date +%s)
elapsed() { echo $(($(date +%s) - T0)); }
say() { printf '[%4ss] %s\n' "$(elapsed)" "$*"; }
WORK="$(mktemp -d "${TMPDIR:-/tmp}/rac-gpu-check.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
LOG="$OUTDIR/log.txt"
: >"$LOG"
: >"$WORK/stages.tsv"

# ---- unpack ------------------------------------------------------------------------------------
unxz_to() { # unxz_to FILE.xz DEST: xz where present, else Python's lzma (same format)
  # GPU_CHECK_NO_XZ=1 takes the Python path even where xz is present (the tests check it).
  if [ -z "${GPU_CHECK_NO_XZ:-}" ] && command -v xz >/dev/null 2>&1; then
    xz -dc "$1" >"$2"
  elif command -v python3 >/dev/null 2>&1; then
    python3 -c 'import lzma,shutil,sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], "wb"))' "$1" "$2"
  else
    echo "gpu-check: neither xz nor python3 is here to unpack $1" >&2
    return 1
  fi
}
if command -v sha256sum >/dev/null 2>&1 && ! (cd "$KIT" && sha256sum -c --quiet SHA256SUMS >>"$LOG" 2>&1); then
  echo "gpu-check: the kit at $KIT does not match its SHA256SUMS (a partial copy?); rebuild it: npm run device:kit" >&2
  exit 2
fi
cp -R "$KIT/app" "$WORK/app"
mkdir -p "$WORK/bin" "$WORK/lib"
unxz_to "$KIT/node.xz" "$WORK/bin/node" && chmod +x "$WORK/bin/node" || exit 2
unxz_to "$KIT/dawn.node.xz" "$WORK/app/node_modules/webgpu/dist/linux-x64/dawn.node" || exit 2
NODE="$WORK/bin/node"
if ! NODE_VERSION="$("$NODE" --version 2>>"$LOG")"; then
  echo "gpu-check: the kit's Node does not start here:" >&2
  ldd "$NODE" >&2 2>&1 || true
  exit 2
fi

# The kit's Vulkan loader (and any library it brought) only where the system lacks that library:
# a system copy matches its driver better than Debian's.
LDCONFIG="$(command -v ldconfig || echo /sbin/ldconfig)" # /sbin is not on every user's PATH
have_lib() { "$LDCONFIG" -p 2>/dev/null | grep -q "^[[:space:]]*$1 .*x86-64"; }
for so in "$KIT"/lib/usr/lib/x86_64-linux-gnu/*.so.* "$KIT"/lib/lib/x86_64-linux-gnu/*.so.*; do
  [ -e "$so" ] || continue
  name="$(basename "$so")"
  if ! have_lib "$name"; then ln -sf "$so" "$WORK/lib/$name"; fi
done
NODE_LD="$WORK/lib"
for d in /usr/local/nvidia/lib64 /usr/local/nvidia/lib; do [ -d "$d" ] && NODE_LD="$NODE_LD:$d"; done
NODE_LD="$NODE_LD${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# NVIDIA's container layout keeps the Vulkan ICD outside the loader's search path: name it (and
# only it, so that a software ICD installed beside it cannot be the adapter Dawn picks). A driver
# named in the environment wins.
if [ -z "${VK_ICD_FILENAMES:-}${VK_DRIVER_FILES:-}" ]; then
  for icd in /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json /usr/local/nvidia/icd.d/nvidia_icd.json; do
    if [ -f "$icd" ]; then export VK_DRIVER_FILES="$icd" VK_ICD_FILENAMES="$icd"; break; fi
  done
fi
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-$WORK}"
# An array, not a function: timeout(1) runs programs only.
NODE_RUN=(env "LD_LIBRARY_PATH=$NODE_LD" "$NODE")
BENCH="$WORK/app/dist/bin/bench.mjs"
CLI="$WORK/app/dist/bin/rac-bench.mjs"
say "kit $(sed -n 's/.*"commit": "\([0-9a-f]\{10\}\).*/\1/p' "$KIT/manifest.json" | head -1) unpacked; Node $NODE_VERSION; Vulkan loader: $([ -e "$WORK/lib/libvulkan.so.1" ] && echo "the kit's" || echo "the system's")"

# ---- stages ------------------------------------------------------------------------------------
RESERVE=12 # seconds kept for the table
# stage NAME CAP OUTFILE CMD...: runs CMD with stdout to OUTFILE under min(CAP, what is left).
stage() {
  local name="$1" cap="$2" outfile="$3"
  shift 3
  local left=$((BUDGET - $(elapsed) - RESERVE))
  local budget=$((cap < left ? cap : left))
  if [ "$budget" -lt 5 ]; then
    printf '%s\tskipped\t0\t0\tno time left\n' "$name" >>"$WORK/stages.tsv"
    say "$name: skipped (no time left)"
    return 99
  fi
  local s=$(date +%s) rc
  say "$name: running (up to ${budget} s)"
  timeout -k 5 "$budget" "$@" >"$outfile" 2>"$WORK/$name.err"
  rc=$?
  local took=$(($(date +%s) - s)) status note=""
  case $rc in
    0) status=ok ;;
    124 | 137) status=timeout; note="stopped at its ${budget} s limit" ;;
    *) status=failed; note="exit $rc: $(grep -v '^\s*$' "$WORK/$name.err" | tail -1 | tr '\t' ' ' | cut -c1-300)" ;;
  esac
  printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$status" "$took" "$budget" "$note" >>"$WORK/stages.tsv"
  { echo "== $name ($status, $took s): $*"; tail -c 20000 "$WORK/$name.err"; } >>"$LOG"
  say "$name: $status ($took s)${note:+ — $note}"
  return $rc
}
skip() { printf '%s\tskipped\t0\t0\t%s\n' "$1" "$2" >>"$WORK/stages.tsv"; say "$1: skipped ($2)"; }

if [ $DRY = 1 ]; then
  # A software adapter runs tfjs' tiled matrix products slowly (workgroup barriers are emulated):
  # a one-block, 8-wide network on iris' shape, one step each, keeps the dry run to a minute or two.
  SIZE=1:8:2:8 DATASET=iris:4:3 STEP_OPTS=(--reps 1 --quick) TORCH_REPS=1 ALLOW=(--allow-software)
  DEEP_OPTS=(--option ftt.size=tiny --option ftt.steps=3) CELL_SEEDS=0-1
else
  SIZE=rsb DATASET=letter:16:26 STEP_OPTS=(--reps 5) TORCH_REPS=10 ALLOW=()
  DEEP_OPTS=() CELL_SEEDS=0-4
fi
METHODS=ftt,fixmatch,pseudolabel,pimodel,meanteacher,ict,uda,flexmatch,softmatch

stage adapter 60 "$WORK/adapter.json" "${NODE_RUN[@]}" "$BENCH" adapter --backend webgpu "${ALLOW[@]}"
ADAPTER_RC=$?
if [ $ADAPTER_RC != 0 ]; then
  grep -v '^\s*$' "$WORK/adapter.err" | tail -5 >&2
  [ $ADAPTER_RC = 3 ] && echo "gpu-check: refusing to measure a software adapter; --dry-run accepts one." >&2
fi
if [ $ADAPTER_RC = 0 ]; then
  stage steps $((DRY ? 300 : 150)) "$WORK/steps.jsonl" "${NODE_RUN[@]}" "$BENCH" steps --backend webgpu --size $SIZE --dataset $DATASET --methods $METHODS "${STEP_OPTS[@]}"
else
  skip steps "no usable WebGPU adapter"
fi

PY="${PYTHON:-python3}"
DEEP_STEP="$KIT/py/bench/deep_step.py"
TORCH_DEVICE="$("$PY" -c 'import numpy, torch; print("cuda" if torch.cuda.is_available() else "cpu")' 2>>"$LOG")"
if [ -z "$TORCH_DEVICE" ]; then
  skip torch "PyTorch side not available: $PY has no torch/numpy"
elif [ "$TORCH_DEVICE" = cpu ] && [ $DRY = 0 ]; then
  skip torch "PyTorch side not available: torch sees no CUDA GPU"
else
  stage torch 90 "$WORK/torch.json" "$PY" "$DEEP_STEP" $DATASET $METHODS $TORCH_REPS 0 --device "$TORCH_DEVICE" --size $SIZE
fi

if [ $ADAPTER_RC = 0 ]; then
  s=$(date +%s)
  stage fit $((DRY ? 200 : 150)) "$WORK/fit.log" "${NODE_RUN[@]}" "$CLI" run --dataset iris --setting distribution --labels 5 --algorithms ftt \
    --seeds 0 --t 0 --backend webgpu --quiet "${DEEP_OPTS[@]}" --out "$WORK/fit.json" && echo $(($(date +%s) - s)) >"$WORK/fit.wall"
  stage cells 600 "$WORK/cells.log" "${NODE_RUN[@]}" "$CLI" run --dataset iris --setting distribution --labels 5 --algorithms ftt \
    --seeds $CELL_SEEDS --t all --backend webgpu --quiet "${DEEP_OPTS[@]}" --out "$WORK/cells.json"
else
  skip fit "no usable WebGPU adapter"
  skip cells "no usable WebGPU adapter"
fi

# ---- the table ---------------------------------------------------------------------------------
TABLE_ARGS=(--work "$WORK" --out "$OUTDIR" --budget-s "$BUDGET" --elapsed-s "$(elapsed)")
[ $DRY = 1 ] && TABLE_ARGS+=(--dry-run)
if ! "${NODE_RUN[@]}" "$BENCH" table "${TABLE_ARGS[@]}" 2>>"$LOG"; then
  echo "gpu-check: the table could not be made; the stages' logs are in $LOG" >&2
  cat "$WORK/stages.tsv" >&2
  exit 1
fi
say "written: $OUTDIR/table.md, result.json, log.txt"
[ $ADAPTER_RC = 0 ] || exit $([ $ADAPTER_RC = 3 ] && echo 3 || echo 1)
exit 0
