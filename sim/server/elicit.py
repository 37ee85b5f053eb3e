"""Asking the client's user to approve an edit, over MCP elicitation, and what to do when
that fails.

In the handshake era the server sends ``elicitation/create`` and waits for the answer;
in the 2026-07-28 era it returns the question as input required and the client retries
with the answer. Every way the asking can fail (a client that cannot show a form, a
prompt handler that fails, an answer that is no elicitation result, no answer in time,
a ``requestState`` this server never issued) ends in an ``isError`` refusal saying why
and that nothing was written, never a JSON-RPC error.

An answer is recorded whenever it arrives: the wait for it is shielded from the call's
cancellation (a client whose own request timed out cancels the call, then its user
answers), so a retry of the same arguments finds the approval decided. A retry while the
first prompt is still open waits for that prompt instead of asking again; a prompt whose
answer was lost for good is followed by one that says it is a second request.
"""

from __future__ import annotations

import asyncio
import logging
import re
from dataclasses import dataclass, field
from typing import Any

import mcp_types as types
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from sim.kb import approvals
from sim.server.approval_prompt import Earlier, approval_prompt
from sim.server.describe import describe_value
from sim.server.edit import EDIT_TOOL
from sim.server.results import Reply, error
from sim.server.screen import MALFORMED_ANSWER
from sim.server.stdio import CLOSED_BEFORE_ANSWER
from sim.server.tools import Session

_log = logging.getLogger(__name__)

APPROVAL_KEY = "approval"
"""The input request's key when the answer comes back on a retry (2026-07-28 era)."""
_STATE = re.compile(rf"{APPROVAL_KEY}:([0-9]{{1,18}})")
"""The only requestState this server issues: the approval's number, ASCII digits."""
MODE_FIELD_SINCE = "2025-11-25"
"""The first protocol version whose elicitation request has a ``mode`` field."""
ANSWER_WAIT_S = 900.0
"""How long an open prompt is waited for: an approval's default lifetime."""


@dataclass
class Asking:
    """A session's prompts that are open now, by the digest of the call they approve."""

    open: dict[str, asyncio.Task[str]] = field(default_factory=dict)


def _form_capable(ctx: Any) -> str:
    """'' if the client can be shown a form; otherwise why not."""
    capabilities = ctx.session.client_capabilities
    elicitation = None if capabilities is None else capabilities.elicitation
    if elicitation is None:
        return "Your client did not declare the elicitation capability, so it cannot be asked."
    if elicitation.form is None and elicitation.url is not None:
        return (
            "Your client declared elicitation in URL mode only, and this server asks for an "
            "approval with a form (the edit is shown in it), so it was not asked."
        )
    return ""  # {} or form: form mode (an empty object means form, for older clients)


def _approver(ctx: Any) -> str:
    params = ctx.session.client_params
    return f"user of {params.client_info.name}" if params is not None else "user of the client"


def _prompt(session: Session, arguments: dict[str, Any]) -> tuple[int, str] | None:
    """Record a pending approval of this call and its prompt; None if the article moved
    in the meantime (the call is then refused for its version, with no one asked)."""
    store = session.server.store
    kb, article_id = arguments["knowledge_base_id"], arguments["article_id"]
    current = store.published_article(kb, article_id)
    if current is None:
        return None
    asked = store.approvals_of_call(kb, session.client_id, approvals.digest(EDIT_TOOL, arguments))
    unanswered = [a for a in asked if a.decision == "pending"]
    earlier = Earlier(unanswered[-1], "got no answer") if unanswered else None
    approval_id = session.request_approval(arguments)
    message = approval_prompt(
        approval_id,
        current,
        arguments["content"],
        arguments.get("title"),
        earlier,
        len(asked) + 1,
    )
    return approval_id, message


def _form(ctx: Any, message: str) -> types.ElicitRequestFormParams:
    form = types.ElicitRequestFormParams(
        message=message, requested_schema={"type": "object", "properties": {}}
    )
    if ctx.session.protocol_version < MODE_FIELD_SINCE:  # ISO dates order as strings
        # versions before 2025-11-25 have no mode field; exclude_none leaves it off the wire
        form = types.ElicitRequestFormParams.model_construct(
            **{**dict(form), "mode": None}, _fields_set=form.model_fields_set
        )
    return form


async def _ask(ctx: Any, session: Session, approval_id: int, message: str) -> str:
    """Send the prompt and record the answer; '' when recorded, else why there is none."""
    try:
        answer = await ctx.session.send_request(
            types.ElicitRequest(params=_form(ctx, message)),
            types.ElicitResult,
            request_read_timeout_seconds=ANSWER_WAIT_S,
        )
    except Exception as e:  # the client's failure, told to it as a refusal
        _log.warning("approval %d: no usable answer (%s)", approval_id, type(e).__name__)
        return _failure(approval_id, e)
    session.server.decide_approval(approval_id, answer.action == "accept", _approver(ctx))
    return ""


def _failure(approval_id: int, e: Exception) -> str:
    from mcp.shared.exceptions import MCPError
    from pydantic import ValidationError

    if isinstance(e, MCPError) and e.error.code == types.REQUEST_TIMEOUT:
        what = f"no answer came within {ANSWER_WAIT_S:g} s"
    elif (
        isinstance(e, MCPError) and e.error.message == f"{MALFORMED_ANSWER}: {CLOSED_BEFORE_ANSWER}"
    ):
        what = "your client closed its input before answering (no answer was read)"
    elif isinstance(e, MCPError) and e.error.message.startswith(MALFORMED_ANSWER):
        what = f"your client's answer was not a JSON-RPC response ({e.error.message})"
    elif isinstance(e, MCPError):
        what = (
            f"your client failed to show it (it answered error {e.error.code}: "
            f"{describe_value(e.error.message)})"
        )
    elif isinstance(e, ValidationError):
        what = "your client's answer was not an elicitation result (action accept or decline)"
    else:
        what = f"it could not be sent ({type(e).__name__})"
    return f"The prompt for approval {approval_id} got no usable answer: {what}."


def _state_refusal(state: Any) -> Reply:
    return error(
        "approval_required",
        f"requestState {describe_value(state)} is not one this server issued for this edit "
        "call, so it answers no approval of it. Nothing was written.",
        "Send the call again without requestState to be asked for approval; to answer an "
        "input request, send back its requestState unchanged with the same arguments.",
        argument="requestState",
        received=describe_value(state),
    )


def _issued(session: Session, state: Any, arguments: Any) -> int:
    """The approval a requestState names, if this server issued it to this session for
    exactly these arguments; 0 otherwise. The state is the client's to forge: checked."""
    match = _STATE.fullmatch(state) if isinstance(state, str) else None
    if match is None or not isinstance(arguments, dict):
        return 0
    approval = session.server.store.approval(int(match.group(1)))
    if (
        approval is None
        or approval.client_id != session.client_id
        or approval.args_digest != approvals.digest(EDIT_TOOL, arguments)
    ):
        return 0
    return approval.approval_id


def _record_input(ctx: Any, session: Session, approval_id: int, responses: Any) -> str:
    """The answer a 2026-07-28 era retry carries; '' when recorded (or already decided)."""
    approval = session.server.store.approval(approval_id)
    if approval is None or approval.decision != "pending":
        return ""
    response = (responses or {}).get(APPROVAL_KEY) if isinstance(responses, dict) else None
    if not isinstance(response, types.ElicitResult):
        return (
            f"The retry for approval {approval_id} carried no valid elicitation result "
            f"(action accept, decline or cancel) under inputResponses.{APPROVAL_KEY}; the "
            "approval is still open: send the same call with its requestState and the answer."
        )
    session.server.decide_approval(approval_id, response.action == "accept", _approver(ctx))
    return ""


async def approve_edit(
    ctx: Any, session: Session, asking: Asking, params: types.CallToolRequestParams, arguments: Any
) -> types.InputRequiredResult | Reply | str:
    """Get this edit call's approval from the client's user, if it needs one. Returns the
    question to return (2026-07-28 era), a refusal to return, or why no approval could be
    had ('' when the call should just go on to the gate)."""
    if params.request_state is not None:
        approval_id = _issued(session, params.request_state, arguments)
        if not approval_id:
            return _state_refusal(params.request_state)
        return _record_input(ctx, session, approval_id, params.input_responses)
    if not session.approval_needed(arguments):
        return ""  # no write to ask about: invalid, stale, a replay, or already approved
    if why := _form_capable(ctx):
        return why
    digest = approvals.digest(EDIT_TOOL, arguments)
    task = asking.open.get(digest)
    if task is None:
        prompt = _prompt(session, arguments)
        if prompt is None:
            return ""
        approval_id, message = prompt
        # by era, not by the request's own channel: a 2025-era POST answered in JSON
        # (serve --http-json) has none, and its prompt goes on the session's GET stream
        if ctx.session.protocol_version in MODERN_PROTOCOL_VERSIONS:
            return types.InputRequiredResult(
                input_requests={APPROVAL_KEY: types.ElicitRequest(params=_form(ctx, message))},
                request_state=f"{APPROVAL_KEY}:{approval_id}",
            )
        task = asyncio.ensure_future(_ask(ctx, session, approval_id, message))
        asking.open[digest] = task
        task.add_done_callback(lambda _: asking.open.pop(digest, None))
    # a cancelled call (its client timed out) leaves the prompt open: the answer is
    # recorded when it comes, for the retry of these arguments
    return await asyncio.shield(task)
