#!/usr/bin/env python3
"""Writes an HTML contact sheet from the reports of scripts/demo.sh's prefetch runs.

Usage: contact_sheet.py OUT_DIR > OUT_DIR/index.html

OUT_DIR holds cold.tsv and warm.tsv, written by `pictor prefetch --report` (the README lists
their columns), and the thumbnails of each run in thumbs-cold/ and thumbs-warm/. A run whose
report is missing is left out; at least one is needed.

The page has a summary (images, ok and failed; per run the hits by cache layer, bytes
downloaded, time and images per second), then one cell per URL in input order: the thumbnail
(tiny ones enlarged without smoothing, so that a 1x1 image is a visible square), or a red box
with the reason when the image failed. Every text from a report is HTML-escaped; the page loads
nothing from the network (styles inline, images are the relative thumbnail files).
"""
import csv
import html
import math
import os
import sys
import urllib.parse

RUNS = [("cold", "cold.tsv", "thumbs-cold"), ("warm", "warm.tsv", "thumbs-warm")]
LAYERS = ["memory", "disk", "shared", "network"]
BOX = 256  # the thumbnail area of a cell, in CSS pixels (the demo's --resize)
MIN_SIDE = 64  # tiny images are enlarged by a whole factor until their shorter side is this


def esc(value):
    return html.escape(str(value), quote=True)


def number(row, key, kind=float):
    try:
        return kind(row.get(key) or 0)
    except ValueError:
        return kind(0)


def flag(row, key):
    return (row.get(key) or "0").strip() in ("1", "true", "yes")


def read_report(path):
    with open(path, newline="", encoding="utf-8", errors="replace") as f:
        return list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))


def cell_key(row, position):
    # `index` is the URL's position in the input: it pairs the runs' rows even when a URL is
    # listed twice, and gives the input order. Reports without it fall back to the URL.
    index = row.get("index")
    return ("index", int(index)) if index and index.isdigit() else ("url", row.get("url", str(position)))


def file_name(url):
    if url.startswith("data:"):
        return "data: URL"
    parts = urllib.parse.urlsplit(url)
    name = parts.path.rstrip("/").rsplit("/", 1)[-1]
    return urllib.parse.unquote(name) or parts.netloc or url


def human_bytes(n):
    value, unit = float(n), 0
    units = ["B", "KiB", "MiB", "GiB", "TiB"]
    while value >= 1024 and unit < len(units) - 1:
        value /= 1024
        unit += 1
    return f"{int(n)} B" if unit == 0 else f"{value:.1f} {units[unit]}"


def percent(part, whole):
    return f"{100 * part / whole:.0f}%" if whole else "–"


def run_stats(rows):
    ok = [r for r in rows if r.get("status") == "ok"]
    layers = {layer: sum(1 for r in ok if r.get("layer") == layer) for layer in LAYERS}
    finished = [number(r, "finished_ms") for r in rows if r.get("finished_ms")]
    seconds = max(finished) / 1000 if finished else None
    return {
        "images": len(rows),
        "ok": len(ok),
        "failed": len(rows) - len(ok),
        "layers": layers,
        "revalidated": sum(1 for r in ok if flag(r, "revalidated")),
        "coalesced": sum(1 for r in ok if flag(r, "coalesced")),
        # Work joined inside the run downloaded nothing of its own.
        "downloaded": sum(number(r, "bytes", int) for r in ok if r.get("layer") == "network" and not flag(r, "coalesced")),
        "seconds": seconds,
        "rate": len(rows) / seconds if seconds else None,
    }


def display_size(width, height):
    """CSS width and height of a width x height thumbnail in a BOX square, and how it is shown:
    "×8" for a tiny image enlarged by a whole factor, "25%" for one shrunk to fit, else ""."""
    if width <= 0 or height <= 0:
        return None
    scale = max(1, min(math.ceil(MIN_SIDE / min(width, height)), BOX // max(width, height)))
    if scale > 1:
        return width * scale, height * scale, f"×{scale}"
    fit = min(1.0, BOX / max(width, height))  # larger than the box (no --resize): shrink to fit
    shown = f"{100 * fit:.0f}%" if fit < 1 else ""
    return max(1, round(width * fit)), max(1, round(height * fit)), shown


def summary_html(runs, cells):
    total = len(cells)
    failed_any = sum(1 for c in cells if any(r.get("status") != "ok" for _, r, _ in c["rows"]))
    failed_all = sum(1 for c in cells if all(r.get("status") != "ok" for _, r, _ in c["rows"]))
    ok = total - failed_any
    partly = failed_any - failed_all
    totals = (f'<p class="totals"><b>{total} images</b>: <span class="good">{ok} ok</span>, '
              f'<span class="{"bad" if failed_any else "good"}">{failed_any} failed</span>')
    if partly:
        totals += f" ({partly} of them in one run only)"
    totals += "</p>"
    head = ("<tr><th>run</th><th>images</th><th>ok</th><th>failed</th>"
            + "".join(f"<th>{layer}</th>" for layer in LAYERS)
            + "<th>cache hits</th><th>revalidated</th><th>coalesced</th><th>downloaded</th>"
              "<th>time</th><th>images/s</th></tr>")
    body = []
    for name, rows, _ in runs:
        s = run_stats(rows)
        hits = s["ok"] - s["layers"]["network"]
        cols = [f'<th scope="row">{esc(name)}</th>', f"<td>{s['images']}</td>", f"<td>{s['ok']}</td>",
                f'<td class="{"bad" if s["failed"] else ""}">{s["failed"]}</td>']
        cols += [f"<td>{s['layers'][layer]} <small>({percent(s['layers'][layer], s['ok'])})</small></td>" for layer in LAYERS]
        cols += [f"<td><b>{percent(hits, s['ok'])}</b></td>", f"<td>{s['revalidated']}</td>", f"<td>{s['coalesced']}</td>",
                 f"<td>{human_bytes(s['downloaded'])}</td>",
                 f"<td>{s['seconds']:.2f} s</td>" if s["seconds"] is not None else "<td>–</td>",
                 f"<td>{s['rate']:.1f}</td>" if s["rate"] is not None else "<td>–</td>"]
        body.append("<tr>" + "".join(cols) + "</tr>")
    note = ('<p class="note">Layers count the images each run got from memory, the disk cache, the shared '
            "tier or the network (percentages of its ok images); cache hits are all but the network. "
            "Downloaded: bytes of originals from the network. Time: from the start of the run to its "
            "last image.</p>")
    return totals + f'<table class="runs"><thead>{head}</thead><tbody>{"".join(body)}</tbody></table>' + note


def cell_html(out, cell):
    rows = cell["rows"]
    url = rows[0][1].get("url", "")
    boxed = None
    name = file_name(url)
    # The thumbnail: the last run's that succeeded and wrote one.
    shown = None
    for run, row, folder in reversed(rows):
        # The report gives the written file's path (the --out folder joined with its name).
        output = os.path.basename(row.get("output") or "")
        if row.get("status") == "ok" and output and os.path.isfile(os.path.join(out, folder, output)):
            shown = (run, row, folder, output)
            break
    width = height = 0
    caption = [f'<b class="name">{esc(name)}</b>']
    if shown:
        run, row, folder, output = shown
        width, height = number(row, "width", int), number(row, "height", int)
        src = urllib.parse.quote(f"{folder}/{output}")
        size = display_size(width, height)
        style = ""
        if size:
            w, h, shown_as = size
            tiny = ' class="tiny"' if shown_as.startswith("×") else ""
            style = f'{tiny} style="width:{w}px;height:{h}px"'
        body = f'<img src="{esc(src)}" alt="{esc(name)}"{style}>'
        if size:
            caption.append(f"{width}×{height} px" + (f" <small>(shown {'at ' if shown_as.endswith('%') else ''}{shown_as})</small>" if shown_as else ""))
    else:
        failure = next((r for _, r, _ in reversed(rows) if r.get("status") != "ok"), None)
        boxed = failure.get("error") if failure is not None else None
        if failure is not None:
            body = (f'<div class="box failed" role="img" aria-label="failed: {esc(name)}"><b>✗ failed</b>'
                    f'<code>{esc(failure.get("error") or "no reason given")}</code></div>')
        else:
            body = '<div class="box missing">no thumbnail written</div>'
    cls = "cell"
    for run, row, _ in rows:
        if row.get("status") == "ok":
            detail = f'{esc(row.get("layer", "-"))} {esc(row.get("milliseconds", "-"))} ms'
            extra = [word for key, word in (("revalidated", "revalidated"), ("coalesced", "coalesced")) if flag(row, key)]
            if extra:
                detail += " · " + ", ".join(extra)
            caption.append(f"{esc(run)}: {detail}")
        else:
            cls = "cell bad-cell"
            # The reason is in the red box, unless this run failed for another one.
            why = row.get("error") or ""
            caption.append(f'<span class="bad">{esc(run)}: failed</span>'
                           + (f' <span class="why">{esc(why)}</span>' if shown or why != boxed else ""))
    return (f'<figure class="{cls}" title="{esc(url)}"><div class="frame">{body}</div>'
            f'<figcaption>{"<br>".join(caption)}</figcaption></figure>')


STYLE = """
body{font:13px/1.35 system-ui,sans-serif;margin:16px;color:#222;background:#fff}
h1{font-size:20px;margin:0 0 6px}
.totals{font-size:15px;margin:4px 0 8px}
.good{color:#176b2c}.bad{color:#b00000;font-weight:bold}
table.runs{border-collapse:collapse;margin:4px 0}
table.runs th,table.runs td{border:1px solid #ccc;padding:3px 8px;text-align:right;white-space:nowrap}
table.runs thead th{background:#f2f2f2;text-align:center}
table.runs th[scope=row]{text-align:left}
.note{color:#555;max-width:1100px;margin:4px 0 14px}
.sheet{display:grid;grid-template-columns:repeat(auto-fill,272px);gap:10px}
.cell{margin:0;padding:7px;border:1px solid #ddd;border-radius:4px;background:#fafafa;overflow:hidden}
.cell.bad-cell{border-color:#cc0000}
.frame{width:256px;height:256px;display:flex;align-items:center;justify-content:center;overflow:hidden;
 background:#eee linear-gradient(45deg,#e4e4e4 25%,transparent 25%,transparent 75%,#e4e4e4 75%) 0 0/16px 16px}
.frame img{display:block;max-width:256px;max-height:256px;object-fit:contain;outline:1px solid rgba(0,0,0,.25)}
.frame img.tiny{image-rendering:pixelated;image-rendering:crisp-edges}
.box{box-sizing:border-box;width:256px;height:256px;padding:10px;overflow:auto;text-align:left}
.box.failed{border:4px solid #cc0000;background:#ffe4e4;color:#8a0000}
.box.failed b{display:block;font-size:16px;margin-bottom:6px}
.box.failed code{white-space:pre-wrap;overflow-wrap:anywhere;font:12px/1.3 monospace}
.box.missing{border:2px dashed #999;color:#555}
figcaption{margin-top:6px;overflow-wrap:anywhere;text-align:center}
figcaption .name{font-weight:600}
figcaption .why{display:block;color:#8a0000;font-size:12px}
"""


def main():
    if len(sys.argv) != 2:
        print("usage: contact_sheet.py OUT_DIR > OUT_DIR/index.html", file=sys.stderr)
        return 64
    out = sys.argv[1]
    runs = [(name, read_report(os.path.join(out, report)), folder)
            for name, report, folder in RUNS if os.path.isfile(os.path.join(out, report))]
    if not runs:
        print(f"contact_sheet.py: no report in {out} (expected {' or '.join(r for _, r, _ in RUNS)})", file=sys.stderr)
        return 1
    cells = {}
    for name, rows, folder in runs:
        for position, row in enumerate(rows):
            cell = cells.setdefault(cell_key(row, position), {"rows": []})
            cell["rows"].append((name, row, folder))
    ordered = [cells[k] for k in sorted(cells, key=lambda k: (k[0] != "index", k[1] if k[0] == "index" else 0))]
    sections = "".join(cell_html(out, cell) for cell in ordered)
    print(f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src 'self' file: data:; style-src 'unsafe-inline'">
<title>Pictor demo: contact sheet</title>
<style>{STYLE}</style></head>
<body>
<header><h1>Pictor demo: contact sheet</h1>
{summary_html(runs, list(cells.values()))}</header>
<main class="sheet">
{sections}
</main>
</body></html>""")
    return 0


if __name__ == "__main__":
    sys.exit(main())
