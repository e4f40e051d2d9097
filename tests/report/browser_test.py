#!/usr/bin/env python3
"""`simfa report` in a real browser: writes the sample results database (report_sample_db), makes
the page with the simfa binary, renders it in headless Chromium, and checks

- the screenshot (1280 x 4000) is no blank page: enough non-white pixels, many distinct colours,
  and the line colours of the charts (matplotlib's tab10 blue, orange, purple) are there;
- the rendered DOM (--dump-dom) holds every chart as an <svg> with polylines, circles and the
  legend's labels, and the failed point's message as text.

Exit 77 (skipped) without chromium or Python's PIL: scripts/install-deps installs them. Runs as
root too (--no-sandbox; HOME and the profile in a temporary folder).

Usage: browser_test.py --simfa BIN --sample-db BIN --out-dir DIR  (DIR/report.png is kept)
"""
import argparse
import html.parser
import os
import shutil
import subprocess
import sys
import tempfile

SKIP = 77


def skip(why):
    print(f"skipped: {why}; run scripts/install-deps", flush=True)
    sys.exit(SKIP)


def fail(why):
    print(f"FAIL: {why}", flush=True)
    sys.exit(1)


def find_chromium():
    for name in (os.environ.get("SIMFA_CHROMIUM"), "chromium", "chromium-browser", "google-chrome"):
        if name and shutil.which(name):
            return shutil.which(name)
    return None


class Dom(html.parser.HTMLParser):
    """Counts the elements of the rendered page and collects the text inside <svg> and <pre>."""

    def __init__(self):
        super().__init__()
        self.counts = {}
        self.svg_depth = 0
        self.svgs = []  # per <svg>: {"polyline": n, "circle": n, "text": [...]}
        self.pre = []
        self.in_pre = False
        self.in_text = False

    def handle_starttag(self, tag, attrs):
        self.counts[tag] = self.counts.get(tag, 0) + 1
        if tag == "svg":
            self.svg_depth += 1
            self.svgs.append({"polyline": 0, "circle": 0, "text": []})
        elif self.svg_depth and tag in ("polyline", "circle"):
            self.svgs[-1][tag] += 1
        elif self.svg_depth and tag == "text":
            self.in_text = True
            self.svgs[-1]["text"].append("")
        elif tag == "pre":
            self.in_pre = True
            self.pre.append("")

    def handle_endtag(self, tag):
        if tag == "svg":
            self.svg_depth -= 1
        elif tag == "text":
            self.in_text = False
        elif tag == "pre":
            self.in_pre = False

    def handle_data(self, data):
        if self.in_text and self.svgs:
            self.svgs[-1]["text"][-1] += data
        if self.in_pre:
            self.pre[-1] += data


def chromium(binary, profile, args):
    env = dict(os.environ, HOME=profile, XDG_CONFIG_HOME=os.path.join(profile, "config"),
               XDG_CACHE_HOME=os.path.join(profile, "cache"))
    cmd = [binary, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
           "--disable-extensions", "--hide-scrollbars", f"--user-data-dir={os.path.join(profile, 'user-data')}"] + args
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        fail(f"{' '.join(cmd)} exited with {p.returncode}:\n{p.stderr[-3000:]}")
    return p.stdout


def near(pixel, rgb, tol=12):
    return all(abs(a - b) <= tol for a, b in zip(pixel, rgb))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--simfa", required=True)
    ap.add_argument("--sample-db", required=True)
    ap.add_argument("--out-dir", required=True)
    a = ap.parse_args()

    browser = find_chromium()
    if not browser:
        skip("chromium not found (the browser test of simfa report needs it)")
    try:
        from PIL import Image
    except ImportError:
        skip(f"Python's PIL is missing for {sys.executable} (python3-pil)")

    os.makedirs(a.out_dir, exist_ok=True)
    db = os.path.join(a.out_dir, "sample.sqlite")
    page = os.path.join(a.out_dir, "report.html")
    png = os.path.join(a.out_dir, "report.png")
    for f in (page, png):
        if os.path.exists(f):
            os.remove(f)
    subprocess.run([a.sample_db, db], check=True)
    p = subprocess.run([a.simfa, "report", db, "-o", page], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        fail(f"simfa report exited with {p.returncode}: {p.stdout}")
    url = "file://" + os.path.abspath(page)

    with tempfile.TemporaryDirectory(prefix="simfa-browser-") as profile:
        dom_text = chromium(browser, profile, ["--dump-dom", url])
        chromium(browser, profile, [f"--screenshot={png}", "--window-size=1280,4000", url])

    # The DOM: 15 charts (sample_results_db.h: 6 of study "analytic", 9 of "gpus"), each with lines.
    dom = Dom()
    dom.feed(dom_text)
    if len(dom.svgs) != 15:
        fail(f"expected 15 <svg> charts in the rendered DOM, found {len(dom.svgs)}")
    for i, s in enumerate(dom.svgs):
        if s["polyline"] == 0:
            fail(f"chart {i + 1} has no polyline: {s['text'][:3]}")
    if sum(s["circle"] for s in dom.svgs) < 40:
        fail("too few markers (<circle>) in the charts")
    labels = {t for s in dom.svgs for t in s["text"]}
    for want in ("h100", "h800", "fa3.stages=2", "fa3.stages=3", "simulated", "analytic model", "Latency",
                 "Throughput", "realistic regime", "32K"):
        if want not in labels:
            fail(f"legend or axis label {want!r} not in the rendered charts")
    if not any('stage <0> & "ring" of CTA 7' in t for t in dom.pre):
        fail("the failed point's message is not in the rendered page")
    if dom.counts.get("table", 0) < 4:
        fail(f"expected the header and point tables, found {dom.counts.get('table', 0)} tables")

    # The screenshot: not blank, and the charts' colours are there.
    if not os.path.exists(png):
        fail(f"chromium wrote no screenshot {png}")
    img = Image.open(png).convert("RGB")
    w, h = img.size
    if w < 1000 or h < 3000:
        fail(f"screenshot is {w} x {h}, expected about 1280 x 4000")
    small = img.resize((w // 2, h // 2))  # colour counts on a quarter of the pixels are plenty
    pixels = list(img.getdata())
    nonwhite = sum(1 for px in pixels if min(px) < 235) / len(pixels)
    colours = len(set(small.getdata()))
    print(f"screenshot {png}: {w} x {h}, {nonwhite:.1%} non-white, {colours} distinct colours", flush=True)
    if nonwhite < 0.03:
        fail(f"the page looks blank: {nonwhite:.1%} non-white pixels")
    if colours < 100:
        fail(f"only {colours} distinct colours")
    for name, rgb in (("blue #1f77b4", (0x1F, 0x77, 0xB4)), ("orange #ff7f0e", (0xFF, 0x7F, 0x0E)),
                      ("purple #9467bd", (0x94, 0x67, 0xBD))):
        n = sum(1 for px in pixels if near(px, rgb))
        if n < 50:
            fail(f"line colour {name} appears on {n} pixels only")
        print(f"  {name}: {n} pixels", flush=True)
    print("ok", flush=True)


if __name__ == "__main__":
    main()
