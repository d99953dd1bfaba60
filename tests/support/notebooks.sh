#!/usr/bin/env bash
# Runs every notebooks/*.ipynb headless in its small CI size (KSIM_NB_SMALL=1)
# with Debian's Python, and fails if any cell fails (each notebook ends in
# assertions on its qualitative result). ctest runs it as the test "notebooks".
#
#   tests/support/notebooks.sh KSIM_BINARY [OUTPUT_DIR]
#
# The executed notebooks, with the CSVs, reports and PNG figures they made, go
# to OUTPUT_DIR (default: a new temporary directory, kept). The notebooks in
# the repository are never written to, and must be committed without outputs.
set -euo pipefail

if [[ $# -lt 1 || $# -gt 2 ]]; then
  echo "usage: $0 KSIM_BINARY [OUTPUT_DIR]" >&2
  exit 2
fi
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
ksim=$(realpath "$1")
if [[ ! -x $ksim ]]; then
  echo "$0: no ksim binary at $1" >&2
  exit 2
fi
out=${2:-$(mktemp -d "${TMPDIR:-/tmp}/ksim-notebooks.XXXXXX")}
mkdir -p "$out"
out=$(realpath "$out")

# Debian's Python and Jupyter, whatever python3 is first on PATH (pyenv's has no pandas).
py=/usr/bin/python3
if ! "$py" -c 'import pandas, matplotlib, nbconvert, nbformat, ipykernel' 2>/dev/null; then
  echo "$0: $py lacks pandas, matplotlib, nbconvert or ipykernel;" \
    "install python3-pandas python3-matplotlib python3-nbconvert jupyter-nbconvert python3-ipykernel (scripts/setup does)" >&2
  exit 1
fi
unset PYTHONHOME PYTHONPATH
export PYTHONNOUSERSITE=1

# A kernel named python3 that runs Debian's Python, first on JUPYTER_PATH so
# that no user or pyenv kernelspec of that name is picked instead; and every
# Jupyter, IPython and matplotlib directory under the output, so a read-only
# or missing HOME does not matter.
mkdir -p "$out/jupyter/kernels/python3" "$out/runtime" "$out/ipython" "$out/mpl"
cat >"$out/jupyter/kernels/python3/kernel.json" <<EOF
{"argv": ["$py", "-m", "ipykernel_launcher", "-f", "{connection_file}"],
 "display_name": "Python 3 (Debian)", "language": "python"}
EOF
export JUPYTER_PATH="$out/jupyter" JUPYTER_RUNTIME_DIR="$out/runtime" IPYTHONDIR="$out/ipython" MPLCONFIGDIR="$out/mpl"
export PYDEVD_DISABLE_FILE_VALIDATION=1 MPLBACKEND=Agg KSIM_NB_SMALL=1 KSIM_BIN="$ksim" KSIM_ROOT="$root"

cd "$root"
shopt -s nullglob
notebooks=(notebooks/*.ipynb)
if [[ ${#notebooks[@]} -eq 0 ]]; then
  echo "$0: no notebooks in $root/notebooks" >&2
  exit 1
fi

# Outputs in a committed notebook are a mistake: they are big, and they hide
# whether the notebook still runs. Clear them with
#   /usr/bin/jupyter nbconvert --clear-output --inplace notebooks/NAME.ipynb
"$py" - "${notebooks[@]}" <<'EOF'
import sys, nbformat
bad = [path for path in sys.argv[1:]
       if any(c.cell_type == "code" and (c.outputs or c.execution_count is not None)
              for c in nbformat.read(path, as_version=4).cells)]
if bad:
    sys.exit("notebooks with outputs (clear them: /usr/bin/jupyter nbconvert --clear-output --inplace "
             + " ".join(bad) + ")")
EOF

failed=()
start=$SECONDS
for nb in "${notebooks[@]}"; do
  name=$(basename "$nb" .ipynb)
  mkdir -p "$out/$name"
  t0=$SECONDS
  # Each notebook writes its CSVs and figures under $out/NAME; the executed copy goes to $out.
  if KSIM_NB_OUT="$out/$name" "$py" -m nbconvert --to notebook --execute \
    --ExecutePreprocessor.kernel_name=python3 --ExecutePreprocessor.timeout=900 \
    --output-dir "$out" "$nb" >"$out/$name.log" 2>&1; then
    echo "ok   $nb ($((SECONDS - t0))s)"
  else
    echo "FAIL $nb ($((SECONDS - t0))s):"
    tail -n 40 "$out/$name.log" | sed 's/^/    /'
    failed+=("$nb")
  fi
done
echo "notebooks: ${#notebooks[@]} run in $((SECONDS - start))s, ${#failed[@]} failed; executed copies in $out"
[[ ${#failed[@]} -eq 0 ]]
