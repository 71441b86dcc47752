#!/usr/bin/env python3
"""The markdown summary of a scripts/soak.sh run, from its tables.

Each series is fitted, after the warm-up, by least squares against time in minutes; its slope
is the figure reported. Flat means:
- serve's RSS, and each prefetch run's peak RSS: a slope under 1 MiB/min;
- serve's open descriptors, threads and requests in flight: a slope under 1, 0.5 and 0.5 a
  minute, within a band (max - min) of at most 24, 8 and 16;
- each disk cache's entry files (what its size limit counts): never above the limit plus 10 %;
  the whole directory (du: with the SQLite index, its write-ahead log, files being written) is
  reported beside them.
A series over its limit after the warm-up but under it over the run's second half "levels off"
(a cache still filling when the warm-up ends); one over it in the second half is not flat.
Errors other than the injected faults: the target is 0.
"""

import argparse
import collections
import csv


def read_tsv(path):
    with open(path, encoding="utf-8") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def fit(points):
    """(slope, intercept) of the least-squares line through (x, y) points; slope 0 for < 2."""
    n = len(points)
    if n < 2:
        return 0.0, (points[0][1] if points else 0.0)
    mx = sum(x for x, _ in points) / n
    my = sum(y for _, y in points) / n
    sxx = sum((x - mx) ** 2 for x, _ in points)
    if sxx == 0:
        return 0.0, my
    slope = sum((x - mx) * (y - my) for x, y in points) / sxx
    return slope, my - slope * mx


def number(value):
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--samples", required=True)
    parser.add_argument("--runs", required=True)
    parser.add_argument("--errors", required=True)
    parser.add_argument("--readers", required=True)
    parser.add_argument("--minutes", type=int, required=True)
    parser.add_argument("--warmup", type=int, default=60, help="seconds left out of the fits")
    parser.add_argument("--context", default="")
    parser.add_argument("--serve-counters", default="")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()

    samples = read_tsv(args.samples)
    runs = read_tsv(args.runs)
    with open(args.errors, encoding="utf-8") as f:
        errors = [line.rstrip("\n") for line in f if line.strip()]
    readers = collections.Counter()
    reader_failures = collections.Counter()
    try:
        with open(args.readers, encoding="utf-8") as f:
            for line in f:
                name, rc = line.split()
                readers[name] += 1
                if rc != "0":
                    reader_failures[name] += 1
    except FileNotFoundError:
        pass
    counters = dict(item.split("=", 1) for item in args.serve_counters.split() if "=" in item)

    after = [s for s in samples if number(s["t_s"]) is not None and float(s["t_s"]) >= args.warmup]
    # The second half of the run: a series still filling a cache at the end of the warm-up
    # (serve's 64 MiB of results) has its steady state here.
    half = args.minutes * 60 / 2.0
    second = [s for s in samples if number(s["t_s"]) is not None and float(s["t_s"]) >= half]
    mib = 1024.0 * 1024.0
    verdicts = []
    rows = []

    def verdict(slope, late_slope, slope_limit, within_band):
        """flat; levels off (over the limit after the warm-up, under it in the second half); not flat."""
        if abs(slope) < slope_limit and within_band:
            verdicts.append(True)
            return "flat"
        if abs(late_slope) < slope_limit and within_band:
            verdicts.append(True)
            return "levels off: flat in the second half"
        verdicts.append(False)
        return "**not flat**"

    def series(label, column, scale, unit, slope_limit, band_limit=None, digits=1):
        def points_of(rows_):
            return [(float(s["t_s"]) / 60.0, number(s[column]) / scale) for s in rows_ if number(s[column]) is not None]
        points = points_of(after)
        if not points:
            rows.append("| %s | not measured | | | |" % label)
            verdicts.append(False)
            return
        slope, _ = fit(points)
        late_slope, _ = fit(points_of(second))
        values = [y for _, y in points]
        band = max(values) - min(values)
        fmt = "%%.%df" % digits
        word = verdict(slope, late_slope, slope_limit, band_limit is None or band <= band_limit)
        rows.append("| %s | %s → %s (%s–%s) %s | %+.2f %s/min | %+.2f %s/min | %s |" % (
            label, fmt % values[0], fmt % values[-1], fmt % min(values), fmt % max(values), unit, slope, unit,
            late_slope, unit, word + (" (band %s)" % (fmt % band) if band_limit is not None else "")))

    series("`pictor serve` RSS", "serve_rss_kib", 1024.0, "MiB", 1.0)
    series("`pictor serve` open descriptors", "serve_fds", 1.0, "", 1.0, 24, 0)
    series("`pictor serve` threads", "serve_threads", 1.0, "", 0.5, 8, 0)

    run_points = []
    exits = collections.Counter()
    for r in runs:
        exits[r["exit"]] += 1
        if number(r["end_s"]) is not None and float(r["end_s"]) >= args.warmup and r["exit"] in ("0", "1") \
                and number(r["peak_rss_kib"]) is not None:
            run_points.append((float(r["end_s"]) / 60.0, float(r["peak_rss_kib"]) / 1024.0))
    if run_points:
        slope, _ = fit(run_points)
        late_slope, _ = fit([p for p in run_points if p[0] * 60 >= half])
        values = [y for _, y in run_points]
        rows.append("| prefetch peak RSS, per run (%d runs ending after the warm-up) | %.1f → %.1f (%.1f–%.1f) MiB | "
                    "%+.2f MiB/min | %+.2f MiB/min | %s |" % (len(values), values[0], values[-1], min(values),
                                                              max(values), slope, late_slope,
                                                              verdict(slope, late_slope, 1.0, True)))
    else:
        rows.append("| prefetch peak RSS, per run | no complete run after the warm-up | | | |")
        verdicts.append(False)

    series("`pictor serve` requests in flight", "serve_in_flight", 1.0, "", 0.5, 16, 0)

    for label, column, du_column, limit_column in (
            ("prefetch cache, entry files", "cache_entry_bytes", "cache_du_bytes", "cache_limit"),
            ("serve cache, entry files", "serve_cache_entry_bytes", "serve_cache_du_bytes", "serve_cache_limit")):
        points = [(float(s["t_s"]) / 60.0, float(s[column]) / mib) for s in after if number(s[column]) is not None]
        limit = float(after[0][limit_column]) / mib if after else 0
        if not points:
            rows.append("| %s | not measured | | | |" % label)
            verdicts.append(False)
            continue
        slope, _ = fit(points)
        late_slope, _ = fit([p for p in points if p[0] * 60 >= half])
        values = [y for _, y in points]
        over = sum(1 for v in values if v > limit)
        within = max(values) <= limit * 1.1
        verdicts.append(within)
        du = [float(s[du_column]) / mib for s in after if number(s[du_column]) is not None]
        rows.append("| %s, limit %.0f MiB | %.2f → %.2f (%.2f–%.2f) MiB; over the limit in %d of %d samples; "
                    "whole directory (du, with the index and its WAL) %.2f–%.2f MiB | %+.2f MiB/min | %+.2f MiB/min | %s |" % (
                        label, limit, values[0], values[-1], min(values), max(values), over, len(values),
                        min(du), max(du), slope, late_slope, "within" if within else "**over**"))

    total_urls = sum(int(r["urls"]) for r in runs if r["urls"])
    total_failed = sum(int(r["failed"]) for r in runs if r["failed"])
    clean_failed = sum(int(r["clean_failed"]) for r in runs if r["clean_failed"])
    last = samples[-1] if samples else {}

    out = []
    out.append("# Soak: %d minutes" % args.minutes)
    out.append("")
    if args.context:
        out.append("- " + args.context)
    out.append("- Fits leave out the first %d s (warm-up); slopes are least squares per minute over %d samples "
               "every 5 s." % (args.warmup, len(after)))
    out.append("- Prefetch: %d runs (exit codes: %s), %d URLs, %d failed (the injected faults), %d failed clean "
               "URLs." % (len(runs), ", ".join("%s × %d" % (k, v) for k, v in sorted(exits.items())), total_urls,
                           total_failed, clean_failed))
    out.append("- Readers (a second process on the same cache): %s; non-zero exits: %s." % (
        ", ".join("%s × %d" % (k, v) for k, v in sorted(readers.items())) or "none ran",
        ", ".join("%s × %d" % (k, v) for k, v in sorted(reader_failures.items())) or "none"))
    if counters:
        out.append("- Serve: %s requests read whole (%s × 200; clean sources: %s non-200, of them %s 5xx, %s broken "
                   "connections; fault sources: %s answered, %s broken connections), %s hang-ups mid-body, %s "
                   "early." % (counters.get("requests"), counters.get("ok"),
                               int(counters.get("clean_non200", 0)) + int(counters.get("clean_5xx", 0)),
                               counters.get("clean_5xx"), counters.get("clean_conn_errors"),
                               counters.get("fault_answers"), counters.get("fault_conn_errors"),
                               counters.get("hangups_mid_body"), counters.get("hangups_early")))
    if last:
        out.append("- Load average (1 min) at the last sample: %s." % last.get("load1"))
    out.append("")
    out.append("| series | after the warm-up: first → last (min–max) | slope after the warm-up | slope, second half "
               "(from %.1f min) | verdict |" % (half / 60.0))
    out.append("| --- | --- | --- | --- | --- |")
    out.extend(rows)
    out.append("| errors other than the injected ones | %d | | | %s |" % (
        len(errors), "none" if not errors else "**%d**" % len(errors)))
    out.append("")
    flat = all(verdicts) and not errors
    out.append("**%s**" % ("Flat (or levelling off, see the verdicts), and no unexpected error." if flat
                            else "Not flat or not clean: see the rows above."))
    if errors:
        out.append("")
        out.append("Unexpected errors (first 20):")
        out.append("")
        for line in errors[:20]:
            out.append("- `%s`" % line.replace("`", "'")[:400])
    with open(args.out, "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
