"""What the model sees for one request, counted: :class:`ContextProjection`.

:func:`okbot.core.context.build_context` makes one; the turn runner sends it, the compressor weighs it
against the window, and the as-sent record, the View-context window and ``okbot context`` show it.
It holds no reference to where it came from, so everything that only reads one imports this module
alone.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from okbot.core.attachments import AttachmentView
from okbot.core.instructions import InstructionBlock, join_blocks
from okbot.core.items import delegation_tool_name
from okbot.core.messages import PIN_KEY, items_to_messages, member_view
from okbot.core.summary import SessionSummary
from okbot.core.wire_names import NO_NAMES, WireNames
from okbot.core.workspace import Target


@dataclass
class ContextProjection:
    """Everything the model sees for one request, with token counts and the window it must fit."""

    target: Target
    model: str
    blocks: list[InstructionBlock]
    items: list[dict[str, Any]]
    item_tokens: list[int]
    overhead_tokens: int
    window: int
    ratio: float
    covered_through_id: int
    summary: SessionSummary
    encoding: str
    approximate: bool
    calibration_factor: float = 1.0
    at: int | None = None
    at_covered: bool = False
    notices: list[str] = field(default_factory=list)
    member: str | None = None  # a squad member's request (their view of the squad), not the captain's
    prepare_ratio: float = 0.0  # contextCompression.prepareRatio; 0 = no earlier mark than ``ratio``
    files: AttachmentView | None = None  # reads attached files back from the chat's folder
    names: WireNames = NO_NAMES  # a squad's members as the model knows them (okbot.core.wire_names)

    @property
    def pinned_ids(self) -> list[int]:
        """The current request's message(s) pinned at the head of the tail (coverage passed them)."""
        return [item["id"] for item in self.items if item.get(PIN_KEY)]

    @property
    def instruction_tokens(self) -> int:
        return sum(b.tokens for b in self.blocks)

    @property
    def items_tokens(self) -> int:
        return sum(self.item_tokens)

    @property
    def total_tokens(self) -> int:
        """The raw estimate: instructions + items + chat-format overhead."""
        return self.instruction_tokens + self.items_tokens + self.overhead_tokens

    @property
    def calibrated_tokens(self) -> int:
        """The estimate corrected by what the provider reported for this model before."""
        return round(self.total_tokens * self.calibration_factor)

    @property
    def threshold(self) -> int:
        """Compression triggers at or above this many (calibrated) tokens."""
        return int(self.window * self.ratio)

    @property
    def prepare_threshold(self) -> int:
        """Compression runs ahead, after a reply, when the next request is predicted to reach this mark.

        Never above :attr:`threshold` (a prepare ratio above the ratio counts as the ratio).
        """
        return int(self.window * min(self.prepare_ratio or self.ratio, self.ratio))

    def system_text(self) -> str:
        return join_blocks(self.blocks)

    def to_messages(self) -> list[dict[str, Any]]:
        """The Chat Completions ``messages`` for this projection (system + items)."""
        messages: list[dict[str, Any]] = []
        if self.blocks:
            messages.append({"role": "system", "content": self.system_text()})
        if self.member is not None:
            own_call = delegation_tool_name(self.member)
            messages.extend(member_view(self.items, self.member, own_call, self.files, self.names))
        else:
            messages.extend(items_to_messages(self.items, self.files, self.names))
        return messages

    def to_json(self) -> dict[str, Any]:
        return {
            "target": {"kind": self.target.kind, "id": self.target.id, "name": self.target.name},
            "member": self.member,
            "model": self.model,
            "at": self.at,
            "atCovered": self.at_covered,
            "coveredThroughId": self.covered_through_id,
            "currentRequestIds": self.pinned_ids,
            "window": self.window,
            "ratio": self.ratio,
            "threshold": self.threshold,
            "prepareThreshold": self.prepare_threshold,
            "encoding": self.encoding,
            "approximate": self.approximate,
            "tokens": {
                "instructions": self.instruction_tokens,
                "items": self.items_tokens,
                "overhead": self.overhead_tokens,
                "total": self.total_tokens,
                "calibrated": self.calibrated_tokens,
                "calibrationFactor": self.calibration_factor,
            },
            "blocks": [
                {"name": b.name, "title": b.title, "stable": b.stable, "tokens": b.tokens, "text": b.text}
                for b in self.blocks
            ],
            "items": [{**item, "tokens": n} for item, n in zip(self.items, self.item_tokens, strict=True)],
            "notices": list(self.notices),
        }
