"""The HTTP load run (``http_load.measure``) as the bench shows it: the table of levels
beside the floor in SSE and JSON, the issue's targets at 50 clients, and the README's one
line. Reads the run's dict only, so a test renders it from made-up rows."""

from __future__ import annotations

from typing import Any

MODES: tuple[tuple[str, str, str, list[str]], ...] = (
    ("kb", "floor", "SSE", []),
    ("kb_json", "floor_json", "JSON", ["--http-json"]),
)
"""(this server's key, the floor's key, how each POST is answered, serve's flag): the SDK's
default SSE stream, and one JSON body (`serve --http-json`, the floor's --json)."""

TARGET_CLIENTS = 50
TARGET_FLOOR_RATIO = 0.9
TARGET_P99_MS = 100.0


def _load_average(load: dict[str, Any]) -> str:
    before, after = load.get("load_average_before"), load.get("load_average_after")
    if before is None or after is None:
        return ""
    return f"; the machine's 1-minute load average {before:.1f} before, {after:.1f} after"


def _modes(load: dict[str, Any]) -> list[tuple[str, str, str]]:
    """The (this server, floor, answers) pairs the run measured (an older run: SSE alone)."""
    return [(kb, floor, how) for kb, floor, how, _ in MODES if kb in load and floor in load]


def table(load: dict[str, Any]) -> str:
    """The levels beside the floor, under a sentence that says what was run and the target."""
    lines = [
        f"`serve --http` under load over loopback: each client its own 2025-era session doing "
        f"the study's call mix for {load['level_s']:g} s, back to back (no think time, so "
        "latency is about clients ÷ calls/s), on this server and on the SDK's own echo server "
        "(the floor), each answering POSTs in SSE (the default) and in JSON (`--http-json`), "
        f"a level's rows seconds apart in the same run{_load_average(load)}. Target at "
        f"{TARGET_CLIENTS} clients: ≥ {TARGET_FLOOR_RATIO:g}× the floor's calls/s, p99 < "
        f"{TARGET_P99_MS:g} ms; errors 0 at every level. Server CPU a call includes opening "
        "and closing the sessions; on its one core a server answers at most 1,000 ÷ that "
        "many calls a second, which with latency ≈ clients ÷ calls/s is what bounds p99.",
        "",
        "| clients | server | answers | calls/s | p50 ms | p99 ms | errors | RSS MiB "
        "| server CPU | CPU ms a call | load CPU | ×floor |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    modes = _modes(load)
    for i, first in enumerate(load["kb"]):
        for kb_key, floor_key, how in modes:
            kb, floor = load[kb_key][i], load[floor_key][i]
            for name, row in (("this KB", kb), ("SDK echo floor", floor)):
                ratio = (
                    f"{kb['calls_per_s'] / floor['calls_per_s']:.2f}" if name == "this KB" else ""
                )
                cpu = row.get("server_cpu_ms_per_call")
                lines.append(
                    f"| {first['clients']} | {name} | {how} | {row['calls_per_s']:,.0f} "
                    f"| {row['p50_ms']:.1f} | {row['p99_ms']:.1f} | {row['errors']} "
                    f"| {row['server_rss_mib']:.0f} | {row['server_cpu_share']:.0%} "
                    f"| {'' if cpu is None else f'{cpu:.2f}'} | {row['client_cpu_share']:.0%} "
                    f"| {ratio} |"
                )
    return "\n".join(lines)


def targets(load: dict[str, Any]) -> list[dict[str, Any]]:
    """The issue's targets at 50 clients in each way of answering, and no error at any
    level of either."""
    rows = []
    for kb_key, floor_key, how in _modes(load):
        kb = {row["clients"]: row for row in load[kb_key]}
        floor = {row["clients"]: row for row in load[floor_key]}
        if TARGET_CLIENTS not in kb:
            continue
        at, base = kb[TARGET_CLIENTS], floor[TARGET_CLIENTS]
        ratio = at["calls_per_s"] / base["calls_per_s"]
        what = f"`serve --http`, {how}, {TARGET_CLIENTS} clients"
        bound = (
            f"; the server used {at['server_cpu_share']:.0%} of a core and the load "
            f"generator {at['client_cpu_share']:.0%}; back to back, p99 < "
            f"{TARGET_P99_MS:g} ms needs about {TARGET_CLIENTS / TARGET_P99_MS * 1000:,.0f} "
            "calls/s or more"
        )
        rows += [
            {
                "target": f"{what}: calls/s ≥ {TARGET_FLOOR_RATIO:g} × the SDK's echo floor",
                "measured": f"{ratio:.2f}× ({at['calls_per_s']:,.0f} against "
                f"{base['calls_per_s']:,.0f})" + bound,
                "met": ratio >= TARGET_FLOOR_RATIO,
            },
            {
                "target": f"{what}: p99 < {TARGET_P99_MS:g} ms",
                "measured": f"{at['p99_ms']:.0f} ms (p50 {at['p50_ms']:.0f} ms; the floor's "
                f"p99 {base['p99_ms']:.0f} ms)" + bound,
                "met": at["p99_ms"] < TARGET_P99_MS,
            },
        ]
    failed = [r for kb_key, _, _ in _modes(load) for r in load[kb_key] if r["errors"]]
    errors = sum(r["errors"] for r in failed)
    rows.append(
        {
            "target": "`serve --http`: no error at 1 to 200 clients",
            "measured": f"{errors} errors"
            + "".join(f"; {r['clients']} clients: {r['first_error']}" for r in failed),
            "met": errors == 0,
        }
    )
    return rows


def readme_line(load: dict[str, Any]) -> str:
    """One sentence for the README: the target level beside its floor in each way of
    answering, and the errors."""
    parts = []
    for kb_key, floor_key, how in _modes(load):
        kb = {row["clients"]: row for row in load[kb_key]}
        floor = {row["clients"]: row for row in load[floor_key]}
        at, base = kb[TARGET_CLIENTS], floor[TARGET_CLIENTS]
        ratio = at["calls_per_s"] / base["calls_per_s"]
        met = ratio >= TARGET_FLOOR_RATIO and at["p99_ms"] < TARGET_P99_MS
        parts.append(
            f"{how} {at['calls_per_s']:,.0f} calls/s, {ratio:.2f}× the SDK's echo server, p99 "
            f"{at['p99_ms']:.0f} ms ({'met' if met else 'missed'})"
        )
    errors = sum(r["errors"] for kb_key, _, _ in _modes(load) for r in load[kb_key])
    levels = ", ".join(str(row["clients"]) for row in load["kb"])
    return (
        f"Under load (`make bench`, loopback, one process, {TARGET_CLIENTS} clients; target "
        f"≥ {TARGET_FLOOR_RATIO:g}× the floor, p99 < {TARGET_P99_MS:g} ms): "
        + "; ".join(parts)
        + f"; {errors} errors at {levels} clients (results/SPEED.md)."
    )
