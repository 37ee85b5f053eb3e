"""The team's agent as an input to `advise --db`: its habits from flags (or a call log),
the write-up's agent by default.

The habits the day's model already has are taken as they are: the citations an answer
(the top hits read and cited), the delays between the read of the edited citation and its
edit (assigned in turn by answer), and whether an answer edits an article an earlier answer
of the day already edits. A re-read at once before the edit sends the edit with the version
just read: the delay between read and edit is then nil, whatever the agent waited, so the CAS
day runs at delay 0 (and the re-read is one more read call an edit).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from sim.params import Params

CURVE = "the write-up's 13 delays, 1 s – 8 h"


@dataclass(frozen=True)
class Agent:
    """An agent's habits, as the day simulates them."""

    citations: int = 2
    """Top hits read and cited an answer."""
    edit_delays_s: tuple[float, ...] = ()
    """Seconds between the read of the edited citation and its edit, in turn by answer;
    empty: the write-up's curve of 13 delays."""
    reread_before_edit: bool = False
    edit_targets: str = "any"
    """'any': every answer edits its first citation; 'distinct_articles': not an article an
    earlier answer of the day already edits."""
    source: str = "the write-up's agent"
    """Where the habits come from, said in the output."""

    def cas_delays(self) -> tuple[float, ...]:
        from sim.study.experiments import CURVE_DELAYS_S

        if self.reread_before_edit:
            return (0.0,)
        return self.edit_delays_s or CURVE_DELAYS_S

    def cas_experiment(self) -> str:
        """The CAS day: the write-up's curve, or 'cas' at this agent's delays."""
        return "cas" if self.reread_before_edit or self.edit_delays_s else "cas_curve"

    def apply(self, params: Params) -> Params:
        return replace(
            params,
            citations_per_answer=self.citations,
            edit_delays_s=self.cas_delays(),
            agent_edit_targets="distinct_articles"
            if self.edit_targets == "distinct_articles"
            else "any",
        )

    def described(self, max_attempts: int) -> str:
        """The assumption line: each habit and the flag that changes it."""
        delays = (
            ", ".join(f"{d:g}" for d in self.edit_delays_s) + " s" if self.edit_delays_s else CURVE
        )
        reread = (
            "re-reads the article at once before the edit (--reread-before-edit yes: the edit "
            "goes out with the version just read, so its delay from the read is 0 s, and "
            "the re-read is one more read call an edit)"
            if self.reread_before_edit
            else "no re-read before the edit (--reread-before-edit)"
        )
        which = (
            "an article no earlier answer of the day edits"
            if self.edit_targets == "distinct_articles"
            else "every answer, two answers citing one article both editing it"
        )
        return (
            f"  agent: {self.source}: it searches each question, reads and cites the top "
            f"{self.citations} hits (--citations-per-answer) and holds every citation to the "
            "day's end; for the CAS figures, on the same day again, it edits the first "
            f"citation of {which} (--edit-targets), after a delay from the read of {delays} "
            f"in turn by answer (--edit-delays), with the version it read; {reread}; a "
            f"rejected edit is re-read and retried up to {max_attempts - 1} times"
        )
