#!/bin/sh
# Remakes the nvdisasm listings tests/source/test_life_ranges.cpp reads, from the two kernels
# here: `sh make.sh NVCC TOOLKIT_BIN` (TOOLKIT_BIN holds ptxas, nvdisasm and cuobjdump of one
# CUDA version). nvcc (any version) writes the PTX; the toolkit's own ptxas compiles it for
# sm_90, since an nvdisasm reads only the cubins of its own version or older. The checked-in
# files came from nvcc 13.0 and CUDA 11.8's ptxas/nvdisasm (Debian bookworm's non-free
# nvidia-cuda-toolkit), the PTX's .version lowered to 7.8 for that ptxas.
set -e
NVCC=${1:-nvcc}
BIN=${2:?the folder of ptxas, nvdisasm and cuobjdump}
cd "$(dirname "$0")"
for k in saxpy spill; do
  regs=""
  [ "$k" = spill ] && regs="-maxrregcount=24"   # sm_90's least: 28 values live at once must spill
  "$NVCC" -ptx -arch=sm_90 -lineinfo -o "/tmp/$k.ptx" "$k.cu"
  sed 's/^\.version .*/.version 7.8/' "/tmp/$k.ptx" > "/tmp/$k.78.ptx"
  "$BIN/ptxas" -arch=sm_90 -lineinfo $regs -o "/tmp/$k.cubin" "/tmp/$k.78.ptx"
  # The line table names the file by its absolute path: kept relative, as the tests name it.
  "$BIN/nvdisasm" -c -gi "/tmp/$k.cubin" | sed "s|$(pwd)/||" > "$k.gi.txt"
  "$BIN/nvdisasm" -c -lrm count "/tmp/$k.cubin" > "$k.count.txt"
  "$BIN/nvdisasm" -c -lrm wide "/tmp/$k.cubin" > "$k.wide.txt"
  "$BIN/cuobjdump" -res-usage "/tmp/$k.cubin" > "$k.res-usage.txt"
  "$BIN/nvdisasm" --version | tail -1 > nvdisasm-version.txt
done
