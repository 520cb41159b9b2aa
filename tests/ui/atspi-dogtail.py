# SPDX-License-Identifier: GPL-3.0-or-later
"""Drives the real lightbox binary over AT-SPI as a user would: open an image from a real
lightbox-store (search the tree, Enter), apply the store's "Soft sharpen" filter from the
Filters menu, upload the result with the Upload button and its dialog, then checks the new
file on the server's disk.

Run by meson under xvfb-run + dbus-run-session:
  /usr/bin/python3 atspi-dogtail.py BUILD_ROOT SOURCE_ROOT
Prints TAP."""
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

os.environ.pop("NO_AT_BRIDGE", None)
os.environ.pop("GTK_A11Y", None)
# only the store's filters under "From store", none from the source tree
os.environ.pop("LIGHTBOX_FILTER_PATH", None)

try:
    from dogtail.config import config
    config.checkForA11y = False
    config.searchCutoffCount = 30
    config.actionDelay = 0.2
    # stdout is TAP: dogtail's own chatter goes nowhere
    config.logDebugToStdOut = False
    config.logDebugToFile = False
    from dogtail.tree import root
    from dogtail import rawinput
except Exception as e:  # pragma: no cover - dogtail missing
    print("1..0 # SKIP dogtail unavailable: %s" % e)
    sys.exit(0)

build, source = sys.argv[1], sys.argv[2]
steps = []
# The AT-SPI role of a GtkButton is "push button" with GTK 4.8 and at-spi2-core 2.46 (Debian 12),
# "button" with GTK 4.18 and at-spi2-core 2.56 (Debian 13), where a GtkMenuButton is a
# "toggle button".
BUTTON_ROLES = ("push button", "button", "toggle button")


def find_button(parent, name):
    return parent.findChild(lambda n: n.name == name and n.roleName in BUTTON_ROLES)


def menu_item_named(node, name):
    """GTK 4.18 gives a menu item no AT-SPI name: its text is that of the label it is labelled
    by (GTK 4.8 names the item itself)."""
    if node.name == name:
        return True
    if node.name or node.roleName != "menu item":
        return False
    label = node.labeller
    return label is not None and not isinstance(label, list) and label.text == name


def ok(cond, what):
    steps.append((bool(cond), what))
    print("%s %d - %s" % ("ok" if cond else "not ok", len(steps), what), flush=True)
    if not cond:
        raise SystemExit(1)


def wait_for(fn, timeout=20.0, what=""):
    end = time.time() + timeout
    while time.time() < end:
        try:
            v = fn()
            if v:
                return v
        except Exception:
            pass
        time.sleep(0.2)
    return None


tmp = tempfile.mkdtemp(prefix="lightbox-dogtail-")
store_root = os.path.join(tmp, "store")
shutil.copytree(os.path.join(source, "data", "samples"), store_root)
os.makedirs(os.path.join(store_root, ".lightbox", "filters"))
shutil.copy(os.path.join(source, "plugins", "filters", "soft-sharpen.lbfilter"),
            os.path.join(store_root, ".lightbox", "filters"))

print("1..6", flush=True)
server = subprocess.Popen([os.path.join(build, "src", "server", "lightbox-store"), "--port", "0",
                           store_root], stdout=subprocess.PIPE, text=True)
app_proc = None
try:
    line = server.stdout.readline()
    url = line.strip().split(" at ", 1)[1]
    assert url.startswith("http://127.0.0.1:")
    app_proc = subprocess.Popen([os.path.join(build, "src", "app", "lightbox"),
                                 "--gapplication-app-id=io.github.lightbox.DogtailTest", url])
    app = wait_for(lambda: root.application("lightbox"), 30)
    ok(app is not None, "lightbox is on the accessibility bus")

    # open: expand the first folder (CT), then type-to-search the 16-bit CT and press Enter
    tree = wait_for(lambda: app.child(name="Store Tree", roleName="tree table"), 20)
    ok(tree is not None, "the store tree is shown")
    expanders = wait_for(lambda: [n for n in tree.findChildren(
        lambda n: "listitem.expand" in n.actions)], 20)
    expanders[0].doActionNamed("listitem.expand")
    # the folder lists CT's two images (8-bit, then 16-bit) under it: double-click the
    # 16-bit one, as a user would
    def rows():
        lv = tree.child(roleName="list")
        return [n for n in lv.children if n.roleName == "table row"]
    wait_for(lambda: len(rows()) >= 5, 20)
    time.sleep(1.0)
    rows()[2].doubleClick()
    # GTK 4.8 labels expose no text over AT-SPI; the window title names the open image
    frame = wait_for(lambda: [f for f in app.children if f.roleName == "frame"
                              and f.name.startswith("ct-head-128-16bit.png")], 30)
    ok(frame, "the 16-bit CT image is open (window title)")

    # filter: Filters menu → "Soft sharpen" (published by the store)
    filters = find_button(app, "Filters")
    button = [n for n in filters.findChildren(lambda n: "click" in n.actions)] or [filters]
    button[0].doActionNamed("click")
    item = wait_for(lambda: root.application("lightbox").findChild(
        lambda n: menu_item_named(n, "Soft sharpen"), retry=False), 15)
    ok(item is not None, "the Filters menu lists the store's Soft sharpen")
    acts = list(item.actions.keys())
    item.doActionNamed(acts[0] if acts else "click")
    undo = find_button(app, "Undo")
    ok(wait_for(lambda: undo.sensitive, 30), "the filter ran (Undo became available)")

    # upload: Upload button → dialog → Upload
    find_button(app, "Upload").doActionNamed("click")
    dialog = wait_for(lambda: app.child(name="Upload to Store"), 15)
    buttons = [n for n in dialog.findChildren(lambda n: n.roleName in BUTTON_ROLES
                                              and "Upload" in (n.name or ""))]
    buttons[-1].doActionNamed("click")
    target = os.path.join(store_root, "CT", "ct-head-128-16bit.soft-sharpen.png")
    ok(wait_for(lambda: os.path.exists(target) and os.path.getsize(target) > 0, 30),
       "the upload is on the server: CT/ct-head-128-16bit.soft-sharpen.png")
finally:
    if app_proc:
        app_proc.terminate()
        app_proc.wait()
    server.send_signal(signal.SIGTERM)
    server.wait()
    shutil.rmtree(tmp, ignore_errors=True)
