"""What the bench reports share (standard library only).

plot_line(svg_path, what) -> str
  the report's Markdown line linking its plot (by file name, beside the report): "Plot: ... (what)."

plot_and_reading(svg_path, what) -> [lines]
  that line, then the "## Reading" heading the report's explanation goes under.

report_args(doc, n, usage) -> [n arguments]
  the script's arguments: -h / --help prints doc and exits 0; another count, or an option,
  exits with one line: "NAME: usage: NAME USAGE (see --help)".

llama_bench_rates(json_text) -> {"pp512": t/s, "tg128": t/s, ...}
  from `llama-bench -o json` output: one entry per test.

grouped_bars(title, series, legend, values, ref=1.0) -> str
  a grouped bar chart as SVG text:
  series: the labels under each group of bars (one group per measurement);
  legend: what each bar of a group is (a colour each);
  values[s][b]: the height of bar b in group s (0 for missing);
  ref: a red reference line (1.0 = "as fast as the baseline"), None for none.
"""

import json
import os
import sys

COLOURS = ["#4c78a8", "#f58518", "#54a24b", "#b279a2", "#e45756", "#72b7b2", "#9d755d"]


def report_args(doc, n, usage):
    name = os.path.basename(sys.argv[0])
    if sys.argv[1:2] in (["-h"], ["--help"]):
        print(doc.strip())
        sys.exit(0)
    if len(sys.argv) != n + 1 or sys.argv[1].startswith("-"):
        sys.exit(f"{name}: usage: {name} {usage} (see --help)")
    return sys.argv[1:]


def plot_line(svg_path, what):
    name = os.path.basename(svg_path)
    return f"Plot: [`{name}`]({name}) ({what})."


def plot_and_reading(svg_path, what):
    return [plot_line(svg_path, what), "", "## Reading", ""]


def llama_bench_rates(json_text):
    res = {}
    for r in json.loads(json_text):
        test = f"pp{r['n_prompt']}" if r["n_gen"] == 0 else f"tg{r['n_gen']}"
        res[test] = r["avg_ts"]
    return res


def grouped_bars(title, series, legend, values, ref=1.0, width=None):
    n_bars = len(legend)
    # The legend: two entries per column, each column as wide as its longer label.
    col_w = [max(150, 7 * max(len(n) for n in legend[i:i + 2]) + 24) for i in range(0, n_bars, 2)]
    W = width or max(640, 60 + len(series) * (n_bars + 1) * 14, 50 + sum(col_w) + 20)
    H, left, top, ph = 320, 50, 40, 200
    vmax = max([v for row in values for v in row] + [ref or 0, 0.1])
    ymax = vmax * 1.15
    step = next(s for s in (0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000) if ymax / s <= 8)
    bw = (W - left - 20) / (len(series) * (n_bars + 1))
    y = lambda v: top + ph - v / ymax * ph
    svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W:.0f}" height="{H}" font-family="sans-serif" font-size="11">',
           '<rect width="100%" height="100%" fill="white"/>',
           f'<text x="{left}" y="20" font-size="13" font-weight="bold">{title}</text>']
    tick = 0.0
    while tick <= ymax:
        svg.append(f'<line x1="{left}" x2="{W - 20:.0f}" y1="{y(tick):.1f}" y2="{y(tick):.1f}" stroke="#ddd"/>')
        svg.append(f'<text x="{left - 6}" y="{y(tick) + 4:.1f}" text-anchor="end">{tick:g}</text>')
        tick = round(tick + step, 6)
    if ref is not None:
        svg.append(f'<line x1="{left}" x2="{W - 20:.0f}" y1="{y(ref):.1f}" y2="{y(ref):.1f}" stroke="#c00"/>')
    for si, label in enumerate(series):
        x0 = left + si * bw * (n_bars + 1) + bw / 2
        for bi, v in enumerate(values[si]):
            svg.append(f'<rect x="{x0 + bi * bw:.1f}" y="{y(v):.1f}" width="{bw - 2:.1f}" height="{top + ph - y(v):.1f}" '
                       f'fill="{COLOURS[bi % len(COLOURS)]}"><title>{label}, {legend[bi]}: {v:.2f}</title></rect>')
        svg.append(f'<text x="{x0 + bw * n_bars / 2:.1f}" y="{top + ph + 16}" text-anchor="middle">{label}</text>')
    lx = left
    for bi, name in enumerate(legend):
        svg.append(f'<rect x="{lx:.0f}" y="{H - 50 + 18 * (bi % 2)}" width="10" height="10" fill="{COLOURS[bi % len(COLOURS)]}"/>'
                   f'<text x="{lx + 14:.0f}" y="{H - 41 + 18 * (bi % 2)}">{name}</text>')
        if bi % 2:
            lx += col_w[bi // 2]
    svg.append("</svg>")
    return "\n".join(svg)
