"""The team's agent as an input to `advise --db`: its habits from flags (or a call log),
the write-up's agent by default.

The habits the day's model already has are taken as they are: the citations an answer
(the top hits read and cited), the share of answers that edit (each answer drawn at random
from its own stream), the delays between the read of the edited citation and its edit
(assigned in turn by answer), whether an answer edits an article an earlier answer of the
day already edits, and how long a citation is held after its read. A citation let go before
the day's end is no longer checked by any method nor watched by push; it counts as stale
only if it was stale when let go, and a change to it goes unnoticed at most until then: the
stale share is then that of the citations stale while held, the unnoticed time the time a
change went unnoticed while its citation was held. A re-read at once before the edit sends
the edit with the version just read: the delay between read and edit is then nil, whatever
the agent waited, so the CAS day runs at delay 0 (and the re-read is one more read call an
edit).
"""

from __future__ import annotations

import math
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
    edit_share: float = 1.0
    """Share of answers that edit (each drawn at random); 1: every answer."""
    hold_s: float = math.inf
    """Seconds a citation is held after its read; inf: to the day's end."""

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
            agent_edit_share=self.edit_share,
            citation_hold_s=self.hold_s,
        )

    def as_json(self) -> dict[str, object]:
        """The habits simulated, as `advise --json` gives them (hold_s None: to the day's
        end)."""
        return {
            "source": self.source,
            "citations_per_answer": self.citations,
            "edit_share": self.edit_share,
            "edit_delays_s": list(self.cas_delays()),
            "reread_before_edit": self.reread_before_edit,
            "edit_targets": self.edit_targets,
            "hold_s": None if math.isinf(self.hold_s) else self.hold_s,
        }

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
            "unless an earlier answer of the day edits that article"
            if self.edit_targets == "distinct_articles"
            else "two answers citing one article both editing it"
        )
        editing = (
            "every answer (--edit-share 1)"
            if self.edit_share == 1
            else f"{100 * self.edit_share:g} % of the answers, each drawn at random (--edit-share)"
        )
        held = (
            "holds every citation to the day's end (--hold-hours)"
            if math.isinf(self.hold_s)
            else f"holds each citation {self.hold_s / 3600:g} h after its read (--hold-hours), "
            "then lets it go: no method checks it after that, it counts as stale only if it "
            "was stale when let go, and a change to it goes unnoticed at most until then"
        )
        return (
            f"  agent: {self.source}: it searches each question, reads and cites the top "
            f"{'hit' if self.citations == 1 else f'{self.citations} hits'} "
            f"(--citations-per-answer) and {held}; for the CAS "
            f"figures, on the same day again, in {editing} it edits the first citation, "
            f"{which} (--edit-targets), after a delay from the read of {delays} in turn by "
            f"answer (--edit-delays), with the version it read; {reread}; a rejected edit is "
            f"re-read and retried up to {max_attempts - 1} times"
        )
