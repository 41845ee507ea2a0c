"""The human-readable report (<name>.md) and the chart (<name>.png) from the results document."""
from __future__ import annotations

import json
from pathlib import Path

from .report import engine_value

ENGINE_ORDER = ("sluice", "sluice_rocksdb", "spark", "flink", "duckdb", "arrow_json")
UNITS = {"rows_per_s": "rows/s", "batch_ms_p50": "ms (p50 per batch)", "restart_s": "s",
         "batch_ms_drift": "last / first batches - 1"}


def _num(v, digits=3) -> str:
    if v is None:
        return "—"
    if isinstance(v, float):
        if abs(v) >= 1000:
            return f"{v:,.0f}"
        return f"{v:.{digits}g}"
    return f"{v:,}" if isinstance(v, int) else str(v)


def _mb(v) -> str:
    return "—" if not v else f"{v / 2**20:,.0f} MiB"


def _stat_cells(res: dict, key: str) -> list[str]:
    s = res.get(key) or {}
    return [_num(s.get("median")), _num(s.get("min")), _num(s.get("max"))]


def _bytes(v) -> str:
    if v is None:
        return "—"
    return f"{v / 2**10:,.0f} KiB" if v < 2**20 else _mb(v)


def _state(engine: str, res: dict) -> str:
    if "checkpoints_completed" not in res:
        return f"{engine} {_num(res['state_rows_max'])} rows / {_bytes(res.get('state_bytes_max'))}"
    # Flink: no row count; bytes of its largest completed checkpoint (none in a short job)
    counts = "/".join(str(c) for c in res["checkpoints_completed"])
    if res.get("state_bytes_max") is None:
        why = res.get("checkpoint_stats_error") or "no completed checkpoint with a state size"
        return f"{engine} not known ({why}; checkpoints completed per repetition: {counts})"
    return (f"{engine} {_bytes(res['state_bytes_max'])} in its largest completed checkpoint (no row "
            f"count; checkpoints completed per repetition: {counts})")


def _drift_workload(wid: str, w: dict) -> list[str]:
    """P6: mean ms per batch of the first and the last window of batches, per phase."""
    lines = [f"### {wid}: {w['title']}", ""]
    for engine, res in w["engines"].items():
        if res.get("status") != "ok":
            lines.append(f"- **{engine}** {res.get('status')}: {(res.get('error') or '').strip()[-800:]}")
            continue
        lines += [f"{engine}: {res['files']} files = batches, {res['wall_s']} s, windows of "
                  f"{res['window']} batches, {_num(res.get('syncs_per_batch'))} syncs per batch", "",
                  "| phase | first (ms/batch) | last (ms/batch) | drift |", "|---|---|---|---|"]
        for k, first in res["first_ms"].items():
            d = res["drift"].get(k)
            label = "CPU (process, ms/batch)" if k == "cpu" else k
            lines.append(f"| {label} | {_num(first)} | {_num(res['last_ms'][k])} | "
                         f"{'' if d is None else f'{d:+.0%}'} |")
    lines.append("")
    return lines


def _workload(doc: dict, wid: str, w: dict) -> list[str]:
    metric = w["metric"]
    if metric == "batch_ms_drift":
        return _drift_workload(wid, w)
    key = {"rows_per_s": "rows_per_s", "batch_ms_p50": "batch_ms_p50",
           "restart_s": "restart_s"}[metric]
    lines = [f"### {wid}: {w['title']}", "",
             f"| engine | {UNITS[metric]} median | min | max | CPU-s per M rows | peak RSS | rows in | "
             f"rows out | sluice ratio | sluice RSS / peer |", "|---|---|---|---|---|---|---|---|---|---|"]
    errors = []
    for engine in ENGINE_ORDER:
        if engine not in w["engines"]:
            continue
        res = w["engines"][engine]
        if res.get("see") == "arrow_json_parse":
            res = doc.get("arrow_json_parse", {})
        ratio = w.get("ratios", {}).get(engine)
        rss_ratio = w.get("rss_ratios", {}).get(engine)
        if res.get("status") == "ok":
            cells = _stat_cells(res, key)
            cpu = (res.get("cpu_s_per_mrows") or {}).get("median")
            lines.append(f"| {engine} | {' | '.join(cells)} | {_num(cpu)} | {_mb(res.get('peak_rss_bytes'))} | "
                         f"{_num(res.get('rows_in'))} | {_num(res.get('rows_out'))} | "
                         f"{'' if engine.startswith('sluice') else _num(ratio) + 'x'} | "
                         f"{'' if engine.startswith('sluice') else _num(rss_ratio)} |")
        else:
            status = res.get("status", "?")
            lines.append(f"| {engine} | {status.upper()} | | | | | | | | |")
            errors.append(f"- **{engine}** {status}: "
                          f"{(res.get('error') or res.get('reason') or '').strip()[-1500:]}")
    paired = (w["engines"].get("sluice") or {}).get("arrow_bound_paired")
    if paired and paired["ratios"]["n"]:
        lines += ["", "Arrow JSON parse bound measured right before each sluice repetition: "
                  + ", ".join(_num(v) for v in paired["rows_per_s"]["values"])
                  + " rows/s; sluice / bound in each pair: "
                  + ", ".join(_num(v) for v in paired["ratios"]["values"])
                  + f" (median {_num(paired['ratios']['median'])}: the goal's value)"]
    if any("state_rows_max" in r for r in w["engines"].values()):
        lines += ["", "Largest state of any batch (rows, bytes as each engine reports it): " + ", ".join(
            _state(e, r) for e, r in w["engines"].items() if r.get("status") == "ok")]
    varying = {e: r["rows_out_per_rep"] for e, r in w["engines"].items()
               if r.get("status") == "ok" and len(set(r.get("rows_out_per_rep") or [])) > 1}
    if varying:
        lines += ["", "Rows out differ between repetitions (same input; see bench/README.md): "
                  + ", ".join(f"{e} {' / '.join(_num(n) for n in v)}" for e, v in varying.items())]
    if metric == "batch_ms_p50":
        lines += ["", "p99 per batch (ms): " + ", ".join(
            f"{e} {_num(_stat_cells(r, 'batch_ms_p99')[0])}" for e, r in w["engines"].items()
            if r.get("status") == "ok")]
        syncs = {e: _stat_cells(r, "syncs_per_batch")[0] for e, r in w["engines"].items()
                 if r.get("status") == "ok" and r.get("syncs_per_batch")}
        if syncs:
            lines += ["", "Syncs per batch (data and directory, median of runs): "
                      + ", ".join(f"{e} {v}" for e, v in syncs.items())]
    if metric == "restart_s":
        for e, r in w["engines"].items():
            if r.get("status") == "ok":
                extra = (f"; in-engine (query start() to commit) "
                         f"{_num(r['in_engine_s']['median'])} s" if r.get("in_engine_s") else "")
                cpu = (r.get("restart_cpu_s") or {}).get("median")
                lines.append(f"\n{e}: initial run to commits/2 {_num(r.get('initial_run_s'))} s"
                             f"{extra}; CPU per restart {_num(cpu)} s (median); peak RSS of the "
                             f"initial run {_mb(r.get('peak_rss_initial_bytes'))}, of a restart "
                             f"{_mb(r.get('peak_rss_restart_bytes'))}")
    if errors:
        lines += ["", "Failed or not run:", ""] + [e.replace("\n", " ") for e in errors]
    lines.append("")
    return lines


def _settings(doc: dict) -> list[str]:
    seen, lines = set(), ["## What each engine was given", ""]
    for w in doc["workloads"].values():
        for engine, res in w["engines"].items():
            s = res.get("settings")
            if not s or (engine, json.dumps(s, sort_keys=True)) in seen:
                continue
            seen.add((engine, json.dumps(s, sort_keys=True)))
            lines.append(f"- **{engine}**: " + "; ".join(f"`{k}` = {v}" for k, v in s.items()))
    a = doc.get("arrow_json_parse", {})
    if a.get("settings"):
        lines.append("- **arrow_json**: " + "; ".join(f"{k}: {v}"
                                                      for k, v in a["settings"].items()))
    return lines + [""]


def _queries(doc: dict) -> list[str]:
    lines = ["## Queries", ""]
    for wid, w in doc["workloads"].items():
        lines.append(f"**{wid}**")
        lines.append("")
        for engine, res in w["engines"].items():
            text = res.get("pipeline") or res.get("query")
            if text:
                lines += [f"{engine}:", "", "```sql", text.strip(), "```", ""]
    return lines


def write_markdown(doc: dict, path: Path) -> None:
    m, v, p = doc["machine"], doc["versions"], doc["parameters"]
    lines = [f"# sluice benchmark: {doc['name']}", "",
             f"Run {doc['started']} – {doc['finished']} with `{doc['command']}`.", "",
             *[f"Updated {r.get('finished')} by `{r['command']}` (engines {', '.join(r['engines'])};"
               f" workloads {', '.join(r['workloads'])}; sluice {r['versions'].get('sluice_commit')}"
               + (f"; load average at start {', '.join(f'{x:.2f}' for x in r['load_average_at_start'])}"
                  if r.get("load_average_at_start") else "") + ")."
               for r in doc.get("merged_runs", [])], "",
             "## Machine and versions", "",
             f"- CPU: {m['cpu_model']}, {m['cores']} cores; RAM {_mb(m['ram_bytes'])}; {m['os']}; "
             f"load average at start {', '.join(f'{x:.2f}' for x in m['load_average_at_start'])}"
             " (the machine is shared: other work may have run at the same time)",
             "- " + "; ".join(f"{k} {val}" for k, val in v.items()), "",
             "## Data", ""]
    for name, d in doc["data"].items():
        parts = [f"{k}: {x['files']} files, {x['rows']:,} rows, {x['bytes'] / 1e6:,.1f} MB"
                 for k, x in d.items() if isinstance(x, dict) and "rows" in x]
        params = {k: val for k, val in d["params"].items() if k not in ("kind", "layout")}
        lines.append(f"- **{name}** ({json.dumps(params)}): " + "; ".join(parts))
    lines += ["", f"Parameters: {json.dumps(p)}", "", "## Goals (targets for sluice, not tests)",
              "", "| goal | value | met |", "|---|---|---|"]
    for g in doc["goals"]:
        lines.append(f"| {g['goal']} | {_num(g['value'])} | "
                     f"{ {True: 'yes', False: '**no**', None: 'not measured'}[g['met']]} |")
    lines += ["", "## Results", "",
              "Median, min and max over the repetitions. Ratios are sluice's advantage (> 1: "
              "sluice better): rows/s sluice / peer, times peer / sluice; RSS sluice / peer. "
              "How each number is measured: bench/README.md.", ""]
    a = doc.get("arrow_json_parse")
    if a and a.get("status") == "ok":
        lines += [f"Arrow JSON parse bound: {_num(a['rows_per_s']['median'])} rows/s "
                  f"({_num(a['mb_per_s']['median'])} MB/s) on {_num(a['rows_in'])} bid rows, "
                  f"peak RSS {_mb(a['peak_rss_bytes'])}.", ""]
    for wid, w in doc["workloads"].items():
        lines += _workload(doc, wid, w)
    if doc.get("notes"):
        lines += ["## Notes", ""] + [f"- {n}" for n in doc["notes"]] + [""]
    lines += _settings(doc) + _queries(doc)
    path.write_text("\n".join(lines) + "\n")


def write_chart(doc: dict, path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = [(wid, w) for wid, w in doc["workloads"].items()]
    if not panels:
        return
    cols = 4
    rows = -(-(len(panels) + 1) // cols)
    fig, grid = plt.subplots(rows, cols, figsize=(3.4 * cols, 3.8 * rows), squeeze=False)
    axes = list(grid.ravel())
    for extra in axes[len(panels) + 1:]:
        extra.axis("off")
    axes = axes[:len(panels) + 1]
    colors = {"sluice": "#1f77b4", "sluice_rocksdb": "#17becf", "spark": "#ff7f0e", "flink": "#9467bd", "duckdb": "#2ca02c",
              "arrow_json": "#7f7f7f"}
    for ax, (wid, w) in zip(axes, panels):
        names, vals = [], []
        for e in ENGINE_ORDER:
            if e in w["engines"]:
                val = engine_value(doc, wid, e)
                names.append(e if val is not None else f"{e}\n(failed)")
                vals.append(val or 0)
        ax.bar(names, vals, color=[colors[n.split(chr(10))[0]] for n in names])
        ax.set_title(wid, fontsize=9)
        ax.set_ylabel(UNITS[w["metric"]], fontsize=8)
        if w["metric"] == "rows_per_s" and any(vals):
            ax.set_yscale("log")
        ax.tick_params(axis="x", labelrotation=60, labelsize=7)
        ax.tick_params(axis="y", labelsize=7)
    ax = axes[-1]
    labels, vals, cols = [], [], []
    for wid, w in doc["workloads"].items():
        for e in ("sluice", "spark"):
            rss = w["engines"].get(e, {}).get("peak_rss_bytes")
            if rss:
                labels.append(f"{wid}\n{e}")
                vals.append(rss / 2**20)
                cols.append(colors[e])
    ax.bar(labels, vals, color=cols)
    ax.set_title("peak RSS (MiB)", fontsize=9)
    ax.tick_params(axis="x", labelrotation=90, labelsize=6)
    ax.tick_params(axis="y", labelsize=7)
    fig.suptitle(f"sluice benchmark '{doc['name']}' ({doc['machine']['cores']} cores)",
                 fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
