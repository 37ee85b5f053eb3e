"""The host app's approval dialog and the person who answers it (the write gate).

Approvals are not tools: the host app asks its user and the KB records the request
and the decision (``Session.request_approval``, ``KBServer.decide_approval``). Each
decision comes after a lognormal latency (median ``approval_median_s``, shape
``approval_sigma``) and declines a share of requests, each drawn from its own stream.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import simpy

from sim.model.agent import Proc
from sim.params import Params
from sim.server.tools import KBServer, Session

REVIEWER = "reviewer"


class Reviewer:
    def __init__(
        self,
        env: simpy.Environment,
        server: KBServer,
        session: Session,
        params: Params,
        streams: dict[str, np.random.Generator],
    ) -> None:
        self.env = env
        self.server = server
        self.session = session
        self.params = params
        self.delays = streams["approval_delays"]
        self.decisions = streams["approval_decisions"]

    def latency_s(self) -> float:
        p = self.params
        return float(
            math.exp(math.log(p.approval_median_s) + p.approval_sigma * self.delays.normal())
        )

    def approve(self, arguments: dict[str, Any]) -> Proc:
        """Ask for the approval of exactly this edit call; returns (granted, seconds waited)."""
        approval_id = self.session.request_approval(arguments)
        wait = self.latency_s()
        yield self.env.timeout(wait)
        granted = bool(self.decisions.random() >= self.params.approval_decline_share)
        self.server.decide_approval(approval_id, granted, REVIEWER)
        return granted, wait
