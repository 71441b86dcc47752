#!/usr/bin/env python3
"""Writes an HTML contact sheet from the reports of scripts/demo.sh's two prefetch runs.

Usage: contact_sheet.py OUT_DIR > OUT_DIR/index.html
Each report is a TSV written by `pictor prefetch --report`: url, status, layer, width, height,
bytes, milliseconds, output (the written file's path: the --out folder joined with its name),
output bytes, error.
"""
import csv
import html
import os
import sys


def read(path):
    with open(path, newline="") as f:
        return {row["url"]: row for row in csv.DictReader(f, delimiter="\t")}


out = sys.argv[1]
cold, warm = read(os.path.join(out, "cold.tsv")), read(os.path.join(out, "warm.tsv"))
cells = []
for url, c in cold.items():
    w = warm.get(url, {})
    name = url.rsplit("/", 1)[-1]
    if c["status"] != "ok":
        body = f'<div class="err">{html.escape(c["error"])}</div>'
    else:
        img = html.escape("thumbs-warm/" + os.path.basename(w.get("output") or c["output"]))
        body = f'<img src="{img}" alt="{html.escape(name)}">'
    cells.append(
        f'<figure>{body}<figcaption><b>{html.escape(name)}</b><br>'
        f'{c["width"]}×{c["height"]} px<br>'
        f'cold: {c["layer"]} {c["milliseconds"]} ms<br>'
        f'warm: {w.get("layer", "-")} {w.get("milliseconds", "-")} ms</figcaption></figure>'
    )
print(f"""<!doctype html><meta charset="utf-8"><title>Pictor demo</title>
<style>body{{font:13px sans-serif;margin:1em}}figure{{display:inline-block;width:270px;margin:6px;
vertical-align:top;text-align:center}}img{{max-width:256px;max-height:256px;background:#eee}}
.err{{color:#a00;height:60px}}</style>
<h1>Pictor demo: {len(cold)} images, 256 px thumbnails</h1>
{''.join(cells)}""")
