"""OkBot: desktop chat with assistants and squads, built around Summary + Buffer context management."""

__version__ = "0.1.0"
