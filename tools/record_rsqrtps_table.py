"""Records the x86 `rsqrtps` approximation of this machine's CPU into
server/tfcluster/kernels/rsqrtps_table.json, the table kernels/_eigen_psqrt.py reads.

TF 1.15's CPU kernels take float32 square roots of whole AVX packets with Eigen's fast-math
psqrt: `rsqrtps`'s estimate, one Newton step, times x. The estimate is the CPU's own: on the
AMD EPYC the TF 1.15 references were recorded on it depends only on the exponent's parity and
the top 12 mantissa bits (checked over every mantissa of [1, 4) when recording), and scales by
2^-k when x scales by 4^k, so two rows of 4096 values give it for every normal float.

Needs gcc (AVX intrinsics); the project itself never does:
    python tools/record_rsqrtps_table.py
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import tempfile

import numpy as np

OUT = os.path.join(
    os.path.dirname(os.path.abspath(__file__)),
    "..",
    "server",
    "tfcluster",
    "kernels",
    "rsqrtps_table.json",
)

# Prints rsqrtps of every float of [1, 4) (two exponents, all mantissas) as uint32 bits, in
# mantissa order, first exponent 127 then 128.
_PROGRAM = r"""
#include <immintrin.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
int main(void) {
  for (uint32_t e = 127; e <= 128; e++) {
    for (uint32_t m = 0; m < (1u << 23); m += 8) {
      float in[8], out[8];
      for (int k = 0; k < 8; k++) { uint32_t b = (e << 23) | (m + k); memcpy(&in[k], &b, 4); }
      _mm256_storeu_ps(out, _mm256_rsqrt_ps(_mm256_loadu_ps(in)));
      fwrite(out, 4, 8, stdout);
    }
  }
  return 0;
}
"""


def _cpu_name() -> str:
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return "unknown"


def main() -> None:
    with tempfile.TemporaryDirectory() as d:
        src, exe = os.path.join(d, "rsqrtps.c"), os.path.join(d, "rsqrtps")
        with open(src, "w") as f:
            f.write(_PROGRAM)
        subprocess.run(["gcc", "-O2", "-mavx", src, "-o", exe], check=True)
        raw = subprocess.run([exe], check=True, stdout=subprocess.PIPE).stdout
    every = np.frombuffer(raw, np.uint32).reshape(2, 1 << 23)
    rows = every[:, ::2048]  # the first mantissa of each bucket of the top 12 bits
    # The estimate must be constant over each bucket, or a 12-bit table cannot hold it.
    if not np.array_equal(np.repeat(rows, 2048, axis=1), every):
        raise SystemExit("rsqrtps depends on more than the top 12 mantissa bits on this CPU")
    table = {
        "cpu": _cpu_name(),
        "layout": "uint32 bits, little endian, [exponent 127 | 128][top 12 mantissa bits]",
        "bits": base64.b64encode(rows.astype("<u4").tobytes()).decode("ascii"),
    }
    with open(OUT, "w") as f:
        json.dump(table, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
