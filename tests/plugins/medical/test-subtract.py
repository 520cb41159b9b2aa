#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The subtract filter (plugins/medical, ABI 1.3's second input) run by lightbox-cli filter
--aux, against numpy: out = clip(image − mask + round(offset/100 × max), 0, max) per colour
sample, halves rounded away from zero, alpha passed through; in process and in
lightbox-filter-host alike. A mask of another size and a missing mask are refused."""

import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pngcheck import Verdicts, load, save  # noqa: E402

cli = sys.argv[1]
verdicts = Verdicts()
check = verdicts.check


def expect(post, pre, offset, maxv, alpha):
    shift = offset / 100.0 * maxv
    shift = np.sign(shift) * np.floor(abs(shift) + 0.5)
    out = np.clip(post.astype(np.int64) - pre.astype(np.int64) + int(shift), 0, maxv)
    if alpha:
        out[..., -1] = post[..., -1]
    return out


def run(args, env_extra=None):
    env = dict(os.environ)
    env.update(env_extra or {})
    return subprocess.run([cli, "filter", "--force"] + args, env=env, capture_output=True,
                          text=True)


rng = np.random.default_rng(29)
with tempfile.TemporaryDirectory() as tmp:
    cases = [
        ("gray8", np.uint8, 255, (37, 53)),
        ("gray16", np.uint16, 65535, (37, 53)),
        ("rgb8", np.uint8, 255, (37, 53, 3)),
        ("rgba8", np.uint8, 255, (37, 53, 4)),
    ]
    for name, dtype, maxv, shape in cases:
        post = rng.integers(0, maxv + 1, size=shape, dtype=np.int64).astype(dtype)
        pre = rng.integers(0, maxv + 1, size=shape, dtype=np.int64).astype(dtype)
        # a vessel: post brighter than pre along a band, equal elsewhere in one corner
        pre[:5, :5] = post[:5, :5]
        post_path = os.path.join(tmp, name + "-post.png")
        pre_path = os.path.join(tmp, name + "-pre.png")
        save(post, post_path)
        save(pre, pre_path)
        for offset in (-100, -37.5, 0, 0.2, 50, 100):
            outputs = []
            for isolation in ("none", "all"):
                out_path = os.path.join(tmp, "%s-%s-%s.png" % (name, offset, isolation))
                r = run(["--aux", pre_path, post_path, out_path, "subtract:offset=%g" % offset],
                        {"LIGHTBOX_PLUGIN_ISOLATION": isolation})
                if r.returncode != 0:
                    check(False, "%s offset %g (%s): %s" % (name, offset, isolation, r.stderr))
                    continue
                outputs.append(load(out_path))
            if len(outputs) != 2:
                continue
            ref = expect(post, pre, offset, maxv, name.endswith("a8"))
            check(np.array_equal(outputs[0], ref),
                  "%s offset %g equals numpy in process" % (name, offset))
            check(np.array_equal(outputs[1], ref),
                  "%s offset %g equals numpy in lightbox-filter-host" % (name, offset))

    small = os.path.join(tmp, "small.png")
    save(np.zeros((5, 7), np.uint8), small)
    post_path = os.path.join(tmp, "gray8-post.png")
    r = run(["--aux", small, post_path, os.path.join(tmp, "x.png"), "subtract"])
    check(r.returncode == 1 and "the mask (7×5) must have the size and the format of the image"
          in r.stderr and not os.path.exists(os.path.join(tmp, "x.png")),
          "a mask of another size is refused: " + r.stderr.strip())
    r = run([post_path, os.path.join(tmp, "y.png"), "subtract"])
    check(r.returncode == 1 and "reads a second image, and none was given" in r.stderr
          and not os.path.exists(os.path.join(tmp, "y.png")),
          "no mask is refused: " + r.stderr.strip())

sys.exit(1 if verdicts.failures else 0)
