"""The host app's approval dialog and the person who answers it (the write gate).

Approvals are not tools: the host app asks its user and the KB records the request
and the decision (``Session.request_approval``, ``KBServer.decide_approval``). Each
decision comes after a lognormal latency (median ``approval_median_s``, shape
``approval_sigma``), or after waiting for one reviewer's earlier decisions, or at the
next of a reviewer's bulk rounds (``approval_reviewer``), and declines a share of
requests; latencies and decisions each come from their own stream.
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
        self.desk = simpy.Resource(env, capacity=1)
        """The one reviewer of 'queue': requests wait their turn."""

    def latency_s(self) -> float:
        p = self.params
        return float(
            math.exp(math.log(p.approval_median_s) + p.approval_sigma * self.delays.normal())
        )

    def approve(self, arguments: dict[str, Any]) -> Proc:
        """Ask for the approval of exactly this edit call; returns (granted, seconds waited)."""
        approval_id = self.session.request_approval(arguments)
        asked = self.env.now
        mode = self.params.approval_reviewer
        if mode == "independent":
            yield self.env.timeout(self.latency_s())
        elif mode == "queue":
            with self.desk.request() as turn:
                yield turn
                yield self.env.timeout(self.latency_s())
        else:
            period = 2 * self.params.approval_median_s
            yield self.env.timeout((math.floor(asked / period) + 1) * period - asked)
        wait = self.env.now - asked
        granted = bool(self.decisions.random() >= self.params.approval_decline_share)
        self.server.decide_approval(approval_id, granted, REVIEWER)
        return granted, wait
