#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""lightbox-python-host: runs ONE Python filter (a .py file in a plugin directory) for
Lightbox, in a python3 process of its own, so that a crash, an endless loop or an exception in
the filter costs one failed pass and never the workstation.

Started by Lightbox (src/engine/lb-python-filter.c and lb-isolation.c), never by hand:

    python3 lightbox-python-host.py --describe --module ORIGIN
        fd 4: the module's source (a sealed memfd, the text Lightbox read)
        Imports the module WITHOUT calling process(), checks its LIGHTBOX_FILTER descriptor
        and prints it on stdout as a GVariant text of type DESCRIPTOR_TYPE (below). Exit 0;
        3 if numpy is missing (the reason on stderr); 1 with the traceback on stderr for a
        module that cannot be imported or whose descriptor is wrong.

    python3 lightbox-python-host.py --serve --module ORIGIN
        fd 3: the SOCK_SEQPACKET socket of lightbox-filter-host's protocol
        (lb-filter-host-proto.h), fd 4: the module's source, fd 5: where a crash leaves its
        Python traceback (faulthandler).

The protocol is lightbox-filter-host's, with one documented difference: the RUN message's
version is LB_FH_VERSION_JSON and its parameters and metadata are UTF-8 JSON objects instead
of serialised GVariants (Python has no GVariant parser). The pixels arrive as the same memfds
and are mapped straight into numpy arrays: nothing is copied in or out.

The ORIGIN is the file's path, used for messages and tracebacks only: the code comes from
fd 4, so it is exactly the code whose descriptor Lightbox shows.
"""

import faulthandler
import json
import linecache
import mmap
import os
import socket
import struct
import sys
import traceback
import types

SOCKET_FD = 3
MODULE_FD = 4
CRASH_FD = 5

# lb-filter-host-proto.h: the C structs with native alignment (x86-64, aarch64: little
# endian, 8-byte aligned guint64 and double). lb-isolation.c asserts the sizes.
MAGIC = 0x4C424648
VERSION_JSON = 0x102
RUN = struct.Struct("@IIIIIIQQQQi4iIIIIIIIIQQ")       # LbFhRun, 128 bytes
REPLY = struct.Struct("@IIdIIiIIIIIQdd")               # LbFhReply, 72 bytes
T_RUN, T_PROGRESS, T_DONE, T_ERROR = 1, 2, 3, 4
MAX_MESSAGE = 128 * 1024
# LbError (src/core/lb-error.h): LB_ERROR_PLUGIN, LB_ERROR_INVALID_ARGUMENT
ERROR_DOMAIN = b"lb-error-quark"
LB_ERROR_PLUGIN = 8
LB_ERROR_INVALID_ARGUMENT = 2

# LbSampleFormat order: name, channels, bytes per sample
FORMATS = [
    ("gray8", 1, 1), ("gray16", 1, 2), ("graya8", 2, 1), ("graya16", 2, 2),
    ("rgb8", 3, 1), ("rgba8", 4, 1), ("rgb16", 3, 2), ("rgba16", 4, 2),
]
PARAM_TYPES = ("int", "double", "bool", "enum")
UNITS = ("none", "pixel", "degree", "percent", "mm", "sample")
# (id, alias, name, category, description, version, formats, params, overwrites); a param is
# (name, label, description, type, unit, min, max, default, ui_min, ui_max, step, digits,
#  enum nicks, enum labels, advanced, odd)
DESCRIPTOR_TYPE = "(ssssssasa(sssssddddddiasasbb)b)"

EXIT_NO_NUMPY = 3


class DescriptorError(Exception):
    pass


def load_module(origin):
    """Executes the module's source from MODULE_FD as a fresh module named after the file."""
    with os.fdopen(os.dup(MODULE_FD), "rb") as f:
        f.seek(0)
        source = f.read()
    text = source.decode("utf-8")
    # tracebacks show the lines of the text that runs, even if the file changed since
    linecache.cache[origin] = (len(text), None, text.splitlines(True), origin)
    name = os.path.splitext(os.path.basename(origin))[0].replace("-", "_")
    module = types.ModuleType(name)
    module.__file__ = origin
    code = compile(text, origin, "exec", dont_inherit=True)
    exec(code, module.__dict__)
    return module


def _number(p, key, default=None):
    value = p.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise DescriptorError("parameter %r: %s must be a number, not %r"
                              % (p.get("name"), key, value))
    value = float(value)
    if value != value or value in (float("inf"), float("-inf")):
        raise DescriptorError("parameter %r: %s must be finite" % (p.get("name"), key))
    return value


def _text(d, key, what, required=False):
    value = d.get(key)
    if value is None:
        if required:
            raise DescriptorError("%s has no %r" % (what, key))
        return ""
    if not isinstance(value, str):
        raise DescriptorError("%s: %r must be a string, not %r" % (what, key, value))
    return value


def normalise_param(p):
    if not isinstance(p, dict):
        raise DescriptorError("every parameter must be a dict, not %r" % (p,))
    name = _text(p, "name", "a parameter", required=True)
    what = "parameter %r" % name
    ptype = _text(p, "type", what, required=True)
    if ptype not in PARAM_TYPES:
        raise DescriptorError("%s: type must be one of %s, not %r"
                              % (what, ", ".join(PARAM_TYPES), ptype))
    unit = p.get("unit", "none") or "none"
    if unit not in UNITS:
        raise DescriptorError("%s: unit must be one of %s" % (what, ", ".join(UNITS)))
    nicks, labels = [], []
    if ptype == "enum":
        values = p.get("values")
        if not isinstance(values, (list, tuple)) or not values:
            raise DescriptorError("%s: an enum needs a non-empty list of values" % what)
        for v in values:
            nick, label = (v, v) if isinstance(v, str) else tuple(v)
            if not isinstance(nick, str) or not isinstance(label, str):
                raise DescriptorError("%s: a value is a nick or a (nick, label) pair" % what)
            nicks.append(nick)
            labels.append(label)
        lo, hi = 0.0, float(len(nicks) - 1)
        default = p.get("default", nicks[0])
        if default not in nicks:
            raise DescriptorError("%s: the default %r is none of the values" % (what, default))
        default = float(nicks.index(default))
    elif ptype == "bool":
        lo, hi = 0.0, 1.0
        default = p.get("default", False)
        if not isinstance(default, bool):
            raise DescriptorError("%s: the default of a bool is True or False" % what)
        default = float(default)
    else:
        lo, hi = _number(p, "min"), _number(p, "max")
        default = _number(p, "default")
    ui_min = _number(p, "ui_min", lo) if ptype in ("int", "double") else lo
    ui_max = _number(p, "ui_max", hi) if ptype in ("int", "double") else hi
    step = _number(p, "step", 1.0 if ptype != "double" else (hi - lo) / 100 or 1.0)
    digits = p.get("digits", 2 if ptype == "double" else 0)
    if isinstance(digits, bool) or not isinstance(digits, int) or not 0 <= digits <= 10:
        raise DescriptorError("%s: digits must be an integer 0..10" % what)
    return (name, _text(p, "label", what) or name, _text(p, "description", what), ptype, unit,
            lo, hi, default, ui_min, ui_max, step, digits, nicks, labels,
            bool(p.get("advanced", False)), bool(p.get("odd", False)))


def describe(module):
    """The module's descriptor, checked for types (Lightbox checks ids and ranges)."""
    d = getattr(module, "LIGHTBOX_FILTER", None)
    if not isinstance(d, dict):
        raise DescriptorError("the module defines no LIGHTBOX_FILTER dict")
    if not callable(getattr(module, "process", None)):
        raise DescriptorError("the module defines no process(src, dst, params, meta) function")
    what = "LIGHTBOX_FILTER"
    formats = d.get("formats")
    names = [f[0] for f in FORMATS]
    if (not isinstance(formats, (list, tuple)) or not formats
            or any(f not in names for f in formats)):
        raise DescriptorError("LIGHTBOX_FILTER['formats'] must list some of %s"
                              % ", ".join(names))
    params = d.get("params", [])
    if not isinstance(params, (list, tuple)):
        raise DescriptorError("LIGHTBOX_FILTER['params'] must be a list")
    return (_text(d, "id", what, True), _text(d, "alias", what), _text(d, "name", what, True),
            _text(d, "category", what, True), _text(d, "description", what),
            _text(d, "version", what), list(formats), [normalise_param(p) for p in params],
            bool(d.get("overwrites", False)))


def gvariant_text(value):
    """GVariant text format of str, bool, int, float and lists/tuples of them; the types
    come from DESCRIPTOR_TYPE, which Lightbox parses with."""
    if isinstance(value, str):
        out = []
        for ch in value:
            c = ord(ch)
            if ch in "\\'":
                out.append("\\" + ch)
            elif 0x20 <= c < 0x7F:
                out.append(ch)
            elif c <= 0xFFFF:
                out.append("\\u%04x" % c)
            else:
                out.append("\\U%08x" % c)
        return "'" + "".join(out) + "'"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(gvariant_text(v) for v in value) + "]"
    if isinstance(value, tuple):
        return "(" + ", ".join(gvariant_text(v) for v in value) + ")"
    raise TypeError(value)


# ---- serving passes ---------------------------------------------------------------------

def reply(sock, rtype, code=0, domain=b"", message=b"", threads=0, bands=0, fraction=0.0):
    header = REPLY.pack(MAGIC, rtype, fraction, threads, bands, code, len(domain),
                        len(message), 0, 0, 0, 0, 0.0, 0.0)
    sock.sendmsg([header, domain, message])


def send_error(sock, code, message):
    data = message.encode("utf-8", "replace")[: MAX_MESSAGE // 2]
    reply(sock, T_ERROR, code, ERROR_DOMAIN, data)


def progress_reporter(sock):
    """meta["progress"]: tells Lightbox how far the pass is (0..1), which also resets the
    watchdog, so a long process() that reports now and then is not stopped."""
    def progress(fraction):
        fraction = float(fraction)
        if not 0.0 <= fraction <= 1.0:
            raise ValueError("progress must be between 0 and 1, not %r" % fraction)
        reply(sock, T_PROGRESS, fraction=fraction)
    return progress


def run_pass(np, module, fields, payload, fds, sock):
    """One RUN: maps the memfds as numpy arrays (no copy) and calls process()."""
    (magic, version, rtype, fmt, width, height, src_stride, src_size, dst_stride, seed,
     has_sel, sx, sy, sw, sh, n_threads, band_height, id_len, params_len, meta_len,
     aux_format, aux_width, aux_height, aux_stride, aux_size) = fields
    name, channels, size = FORMATS[fmt]
    dtype = np.dtype(np.uint8 if size == 1 else np.uint16)
    params = json.loads(payload[id_len:id_len + params_len].decode("utf-8"))
    meta = json.loads(payload[id_len + params_len:id_len + params_len + meta_len]
                      .decode("utf-8"))
    shape = (height, width) if channels == 1 else (height, width, channels)
    strides = ((src_stride, size) if channels == 1 else (src_stride, channels * size, size))
    dst_strides = ((dst_stride, size) if channels == 1
                   else (dst_stride, channels * size, size))
    src_map = mmap.mmap(fds[0], src_size, prot=mmap.PROT_READ)
    dst_map = mmap.mmap(fds[1], dst_stride * height, prot=mmap.PROT_READ | mmap.PROT_WRITE)
    try:
        # read-only buffer → read-only array: a write raises instead of changing Lightbox's
        # image (the memfd is sealed against writes anyway)
        src = np.ndarray(shape, dtype, buffer=src_map, strides=strides)
        dst = np.ndarray(shape, dtype, buffer=dst_map, strides=dst_strides)
        x, y, w, h = (sx, sy, sw, sh) if has_sel else (0, 0, width, height)
        x0, y0 = max(x, 0), max(y, 0)
        x1, y1 = min(x + w, width), min(y + h, height)
        if not module_overwrites(module):
            # what a C plugin's destination holds: a copy of the source (alpha included)
            np.copyto(dst, src)
        meta["region"] = [x0, y0, x1 - x0, y1 - y0]
        meta["format"] = name
        meta["seed"] = seed
        meta["progress"] = progress_reporter(sock)
        # like a C plugin, neighbourhoods are clipped to the selection: process() sees it
        # only
        src_view, dst_view = src[y0:y1, x0:x1], dst[y0:y1, x0:x1]
        result = module.process(src_view, dst_view, params, meta)
        if result is not None and result is not dst_view:
            raise TypeError("process() must write into dst and return None, not return %s"
                            % type(result).__name__)
    finally:
        src = dst = src_view = dst_view = result = None  # noqa: F841 (drop the views)
        for m in (src_map, dst_map):
            try:
                m.close()
            except BufferError:
                # the filter kept a view (a global): Lightbox then copies the output
                pass


def module_overwrites(module):
    return bool(getattr(module, "LIGHTBOX_FILTER", {}).get("overwrites", False))


def format_exception(origin, exc):
    # the traceback starts where the module's code does: this script's frames say nothing
    tb = exc.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename == __file__:
        tb = tb.tb_next
    tb = "".join(traceback.format_exception(type(exc), exc, tb))
    return ("Python filter %s raised %s: %s\n%s"
            % (origin, type(exc).__name__, exc, tb.rstrip()))


def serve(np, module, load_error, origin):
    sock = socket.socket(fileno=SOCKET_FD)
    while True:
        try:
            data, ancdata, flags, _ = sock.recvmsg(MAX_MESSAGE, socket.CMSG_SPACE(16 * 4))
        except ConnectionResetError:
            return
        if not data:
            return  # Lightbox closed the socket (or died)
        fds = []
        for level, ctype, cdata in ancdata:
            if level == socket.SOL_SOCKET and ctype == socket.SCM_RIGHTS:
                n = len(cdata) // 4
                fds.extend(struct.unpack("%di" % n, cdata[: n * 4]))
        try:
            if len(data) < RUN.size:
                raise ValueError("short request")
            fields = RUN.unpack_from(data)
            if (fields[0] != MAGIC or fields[1] != VERSION_JSON or fields[2] != T_RUN
                    or len(fds) < 2 or fields[4] == 0 or fields[5] == 0
                    or fields[3] >= len(FORMATS)):
                send_error(sock, LB_ERROR_INVALID_ARGUMENT, "malformed request")
                continue
            if load_error is not None:
                send_error(sock, LB_ERROR_PLUGIN, load_error)
                continue
            try:
                run_pass(np, module, fields, data[RUN.size:], fds, sock)
            except Exception as exc:  # the filter's own failure: one failed pass
                send_error(sock, LB_ERROR_PLUGIN, format_exception(origin, exc))
                continue
            reply(sock, T_DONE, threads=1, bands=1)
        finally:
            for fd in fds:
                os.close(fd)


def main():
    args = sys.argv[1:]
    mode = "--describe" if "--describe" in args else "--serve" if "--serve" in args else None
    origin = args[args.index("--module") + 1] if "--module" in args[:-1] else None
    if mode is None or origin is None:
        sys.stderr.write("usage: lightbox-python-host.py --describe|--serve --module ORIGIN\n"
                         "Started by Lightbox; not meant to be run by hand.\n")
        return 2
    sys.dont_write_bytecode = True
    # a filter's print() must not reach Lightbox's stdout (lightbox-cli writes data there)
    real_stdout = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    # a crash (in a C extension, say) leaves the Python traceback: in the crash report
    # while serving, on stderr (which Lightbox shows) while describing
    try:
        crash = os.fdopen(CRASH_FD, "w") if mode == "--serve" else sys.stderr
        faulthandler.enable(file=crash, all_threads=True)
    except OSError:
        faulthandler.enable()
    try:
        import numpy as np
    except ImportError as exc:
        sys.stderr.write("Python filters need numpy (Debian: python3-numpy), which %s cannot "
                         "import: %s\n" % (sys.executable, exc))
        return EXIT_NO_NUMPY
    module, load_error = None, None
    try:
        module = load_module(origin)
        descriptor = describe(module)
    except DescriptorError as exc:
        load_error = "Python filter %s: %s" % (origin, exc)
    except BaseException as exc:  # SyntaxError, ImportError, SystemExit at import …
        load_error = format_exception(origin, exc)
    if mode == "--describe":
        if load_error is not None:
            sys.stderr.write(load_error + "\n")
            return 1
        real_stdout.write(gvariant_text(descriptor) + "\n")
        real_stdout.flush()
        return 0
    real_stdout.close()
    serve(np, module, load_error, origin)
    return 0


if __name__ == "__main__":
    sys.exit(main())
