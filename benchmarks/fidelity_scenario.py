"""The long scripted conversation the fidelity benchmark drives (deterministic).

A queue of tickets worked oldest-first, with a goal, constraints, a permission and a preference
stated early by the user; acknowledgements in between; tool calls with long outputs; a finished
subtask; a topic change and a return to the queue.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

GOAL = "Goal: work through ticket queue Q-7 oldest first, tickets T-101 to T-190, one at a time."
CONSTRAINTS = [
    "Never close a ticket without a passing test, and never touch the production database.",
    "You may rename files under src/legacy/ without asking me first.",
    "Prefer short replies, and report progress after every 10 tickets.",
]
SUBTASK_DONE = "The weekly report subtask is done now; no more weekly reports are needed."
TOPIC = "New topic: plan the team offsite in Lisbon for 12 people in March, budget 9000 euros."
BACK = "Back to the ticket queue Q-7 please: continue with the next ticket."
ACKS = ["ok", "next", "continue", "thanks!", "go on", "ok, next ticket"]


@dataclass
class Turn:
    user: str
    reply: str
    tool_output: str | None = None  # the turn first calls read_file, which returns this
    ticket: str | None = None  # the ticket this turn finished (queue position)
    tags: set[str] = field(default_factory=set)


def _code(rng: random.Random, lines: int) -> str:
    names = ["parse", "load", "save", "route", "check", "merge", "retry", "close"]
    return "\n".join(f"def {rng.choice(names)}_{i}(x):\n    return x * {i % 7} + {i % 5}" for i in range(lines))


def build(turns: int, seed: int = 11) -> list[Turn]:
    rng = random.Random(seed)
    script = [Turn(GOAL, "Understood: queue Q-7, oldest first, starting with T-101.", tags={"goal"})]
    script += [Turn(c, "Noted.", tags={"constraint"}) for c in CONSTRAINTS]
    ticket = 101
    topic_at, back_at, subtask_at = int(turns * 0.55), int(turns * 0.62), int(turns * 0.35)
    while len(script) < turns:
        n = len(script)
        if n == subtask_at:
            script.append(Turn(SUBTASK_DONE, "Understood, weekly reports stopped."))
        elif n == topic_at:
            script.append(Turn(TOPIC, "Offsite plan: venue shortlist in Alfama and Belém.", tags={"topic"}))
        elif topic_at < n < back_at:
            script.append(
                Turn(
                    rng.choice(["Which venue fits 12 people?", "What about catering?", "ok"]),
                    "For 12 people a small venue in Alfama works; catering from a local tasca.",
                )
            )
        elif n == back_at:
            script.append(Turn(BACK, f"Resuming queue Q-7 at T-{ticket}."))
        else:
            tid = f"T-{ticket}"
            pr = 2000 + ticket * 3
            use_tool = rng.random() < 0.3
            reply = f"Done {tid}: fixed and tested, PR #{pr} merged. Next is T-{ticket + 1}."
            script.append(
                Turn(
                    rng.choice(ACKS) if n % 4 else f"Please do {tid} now.",
                    reply,
                    tool_output=_code(rng, rng.randint(60, 200)) if use_tool else None,
                    ticket=tid,
                )
            )
            ticket += 1
    return script
