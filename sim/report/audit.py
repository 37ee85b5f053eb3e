"""REPORT.md's audit against the write-up (Appendix A) and its seed counts (Appendix D): the
tables, and the values of the audit's notes (templates/writeup_report.md.j2 words them)."""

from __future__ import annotations

import re

import pandas as pd

from sim.pages import md
from sim.report.render import pct
from sim.stats import seeds_for_half_width


def _value(row: pd.Series, column: str) -> str:
    v = row[column]
    if row["key"] in ("poll_calls_per_check_max", "title_caught_body", "cas_replay_new_events"):
        return f"{v:g}"
    if row["key"] in ("ids_equal_truth", "cas_retries_all_succeeded"):
        return "yes" if v == 1 else f"{pct(v)} of seeds"
    return pct(v)


_COUNT = re.compile(
    r"(reproduced|not reproduced|undecided) under (\d+) of (\d+) (readings|other ladders)"
)


def _readings_cell(text: str) -> str:
    """'reproduced under 3 of 6 readings, not reproduced under …; reproduced under 8 of 8
    other ladders' as '3 of 6 readings reproduced; 8 of 8 ladders reproduced'."""
    counts = [
        f"{k} of {n} {kind.replace('other ', '')}: {verdict}"
        for verdict, k, n, kind in _COUNT.findall(text)
    ]
    return "; ".join(counts) or ("—" if not text else "see note")


def audit_table(comparison: pd.DataFrame) -> tuple[str, list[dict[str, str]]]:
    """The audit table (each cell a value or a verdict) and the values of its numbered notes
    (the reasons, the readings that differ, the verdict on other seeds), in table order."""
    rows: list[dict[str, object]] = []
    notes: list[dict[str, str]] = []
    for _, r in comparison.iterrows():
        ci = "" if r["seeds"] == 0 else f" ({_value(r, 'ci_lo')} – {_value(r, 'ci_hi')})"
        z = "" if pd.isna(r["z"]) or r["seeds"] == 0 else f"{r['z']:+.2f}"
        if z and r["borderline"]:
            z += " (borderline)"
        readings = r.get("readings", "") or ""
        note = {
            "figure": r["figure"],
            "at_150": r["verdict_at_150_seeds"] if r["verdict_at_150_seeds"] != r["alone"] else "",
            "band": r["band"],
            "reason": r["reason"],
            "readings": readings if readings and _readings_cell(readings) != readings else "",
        }
        mark = ""
        if note["at_150"] or note["band"] or note["reason"] or note["readings"]:
            notes.append(note)
            mark = f" [{len(notes)}]"
        rows.append(
            {
                "figure": r["figure"],
                "write-up": r["reported"],
                "ours, mean (95 % CI)": f"{_value(r, 'mean')}{ci}",
                "seeds": int(r["seeds"]) or "analytic",
                "closed form": "" if pd.isna(r["closed_form"]) else pct(r["closed_form"]),
                "z": z,
                "verdict": f"{r['verdict']}{mark}",
                "readings": _readings_cell(readings),
            }
        )
    return md(pd.DataFrame(rows)), notes


def seeds_needed_table(comparison: pd.DataFrame, half_width: float = 0.01) -> str:
    """Seeds each share figure needs for a ±half_width 95 % interval, and seeds used."""
    rows = []
    for _, r in comparison[
        comparison["key"].str.contains("share") & (comparison["seeds"] > 0)
    ].iterrows():
        need = seeds_for_half_width(r["sd"], half_width)
        rows.append(
            {
                "figure": r["figure"],
                "per-seed SD": pct(r["sd"]),
                "seeds needed": need,
                "seeds used": int(r["seeds"]),
                "95 % CI half-width": f"±{100 * (r['ci_hi'] - r['ci_lo']) / 2:.2f} points",
            }
        )
    return md(pd.DataFrame(rows))
