"""Secrets by kind: what must be found (and said without repeating it), and ordinary facts that must pass."""

from __future__ import annotations

import pytest

from okbot.core.memory.secrets import find_secrets, has_secret, redact, secret_kinds

SECRETS = [
    # labelled, in the words of issue 16
    ("The user's wifi pass is Tr0ub4dor&3.", "password", "Tr0ub4dor&3"),
    ("The user's bank PIN is 4921.", "PIN", "4921"),
    ("The user's AWS sign-in value is wJalrXUtnFEMI/K7MDENG/…", "password", "wJalrXUtnFEMI"),
    ("remember: wifi password: hunter2", "password", "hunter2"),
    ("The password for the router is swordfish.", "password", "swordfish"),
    ("Their passcode = 'letmein99'", "password", "letmein99"),
    ("The user's PIN code is 0000", "PIN", "0000"),
    ("bank PIN 4921", "PIN", "4921"),
    ("The staging API key is 9f86d081884c7d659a2feaa0c55ad015.", "key", "9f86d081884c7d659a2feaa0c55ad015"),
    ("access_token=ya29.a0AfH6SMBx", "token", "ya29.a0AfH6SMBx"),
    ("The user's credentials are dana:Winter2024!", "credentials", "dana:Winter2024!"),
    ("Their seed phrase is abandon ability able about above absent", "seed phrase", "abandon"),
    ("The GitHub recovery code is 7a3f-91cc.", "one-time code", "7a3f-91cc"),
    ("The OTP code is 482913", "one-time code", "482913"),
    ("The card's CVV is 737.", "card security code", "737"),
    ("The user's IBAN: DE89 3704 0044 0532 0130 00", "bank account number", "DE89"),
    ("The token is tok_8fA2kd91", "token", "tok_8fA2kd91"),
    ("The guest wifi pass is 83920174.", "password", "83920174"),
    ("The user's database password is postgres.", "password", "postgres"),
    ("我的银行卡密码是123456", "password", "123456"),
    ("The user's wifi 密码是 Tr0ub4dor", "password", "Tr0ub4dor"),
    ("服务器口令：abc12345", "password", "abc12345"),
    ("验证码是 482913", "one-time code", "482913"),
    # shaped: known formats, wherever they stand
    ("The user's OpenAI key sk-proj-Q3n8XkT1aBcD9eFgH2iJkL4mN", "API key", "sk-proj-"),
    ("use ghp_0123456789abcdefABCDEF0123456789abcd for CI", "token", "ghp_"),
    ("AWS id AKIAIOSFODNN7EXAMPLE in the profile", "API key", "AKIAIOSFODNN7EXAMPLE"),
    ("Slack bot xoxb-1234567890-abcdefghij works", "token", "xoxb-"),
    ("Maps: AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY", "API key", "AIza"),
    (
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEA\n-----END OPENSSH PRIVATE KEY-----",
        "private key",
        "-----BEGIN",
    ),
    (
        "Auth with eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
        "token",
        "eyJhbGci",
    ),
    ("Stripe sk_live_4eC39HqLyjWDarjtT1zdp7dc", "API key", "sk_live_"),
    ("The proxy is https://bob:hunter2@proxy.example.com:8080/", "password", "hunter2"),
    ("The header is Authorization: Bearer abcdefghij0123456789XYZ", "token", "abcdefghij0123456789XYZ"),
    # shaped: unlabelled key material, by entropy and mixed classes
    (
        "AWS secret access key wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "key",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    ),
    ("AWS s3cr3t: 9dQ/zL2+mR7xTkW4pN3sB1vYc8Hj0fGa for the deploy", "key material", "9dQ/zL2+mR7xTkW4pN3sB1vYc8Hj0fGa"),
    ("The deploy uses Zq8vL2mR9xT4wK7pN3sB1", "key material", "Zq8vL2mR9xT4wK7pN3sB1"),
    ("hex 4f3c2a1b9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a", "key material", "4f3c2a1b9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a"),
    ("the session cookie x7k2p9q4m1n8v3b6z5w0", "key material", "x7k2p9q4m1n8v3b6z5w0"),
    # checksummed
    ("The user's card is 4111 1111 1111 1111.", "card number", "4111 1111 1111 1111"),
    ("card 5555-5555-5555-4444 expires soon", "card number", "5555-5555-5555-4444"),
    ("Their IBAN GB82WEST12345698765432 is for rent", "bank account number", "GB82WEST12345698765432"),
]

ORDINARY = [
    "The user's wife's name is Ana.",
    "The user prefers pass-by-value in C++.",
    "The build id is 42.",
    "PIN the dependency versions in requirements.txt.",
    "The user wants to pin dependency versions.",
    "The fix is in commit 3f9a2c1d8e7b6a5f4c3d2e1f0a9b8c7d6e5f4a3b.",
    "The user's repo is https://github.com/dana/okbot/blob/3f9a2c1d8e7b6a5f4c3d2e1f0a9b8c7d6e5f4a3b/README.md.",
    "The wheel is /home/dana/dist/okbot-1.4.0rc2-py3-none-any.whl.",
    "The release checksum sha256 is e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855.",
    "The user runs Python 3.11.4 and PySide6 6.7.2 on Ubuntu 24.04.",
    "The user's project version is 2.0.0-beta.3+build.20241103.",
    "The user's password manager is Bitwarden.",
    "The user keeps the API key in the OS keyring.",
    "The password is required to open the vault.",
    "The user changes the wifi password every month.",
    "The secret is to keep commits small.",
    "The key is to test first.",
    "The token is expired and needs a refresh.",
    "The user's PIN is 4 digits long.",
    "The user prefers token-based authentication with OAuth.",
    "The user's request id is 123e4567-e89b-12d3-a456-426614174000.",
    "The user uses TestUserProfileV2Serializer and useEffectCallbackHandler.",
    "The user's phone number is +44 20 7946 0958.",
    "The meeting is on 2026-12-01T16:14:00Z.",
    "The user's order number is 1733069640000.",
    "The user's employee number is 10042.",
    "The user works at ACME GmbH in Berlin.",
    "The user's branch is feature/memory-secrets-issue-16.",
    "The assistant's docs are at https://docs.example.com/v2/api/reference?page=3#auth.",
    "The user's ssh public key file is ~/.ssh/id_ed25519.pub.",
    "The user prefers 密码学 books.",
    "The user's error code is 404.",
    "The user's Docker image is ghcr.io/dana/okbot:1.4.0.",
    "The user's wifi network is CoffeeShop_5G_Guest.",
    "The user likes passwords to be generated by 1Password.",
    "The user's Python package is okbot_memory_extract_helpers_v2.",
    "PySide6-Essentials 6.12.0 is excluded: it leaks a reference.",
    "The user's settings keys: KeyStore and SettingsStore.",
    "API keys are never read from settings.json.",
    "The user's favourite class is QAbstractItemView; they call setAutoFillBackground(True).",
    "The user's captain runs with maxCaptainRounds=20.",
    "The user pins 3 dependencies and uses API key v2.3.1 of the SDK.",
    "The user's password manager 1Password is shared with the team.",
    "The user's proxy is https://proxy.example.com:8080/ with user bob@example.com.",
    "The user prefers Bearer authentication over cookies.",
    "The user's command palette key is Ctrl+Shift+P.",
    "The user sets max tokens: 800 and context tokens: 128000.",
    "The answer key is 42.",
    "The user's GitHub token is stored in 1Password.",
    "The user's API key is for the staging environment.",
    "The user's PIN code is six digits.",
    "The login code is sent by SMS.",
    "The primary key is user_id.",
    "The user's credentials are in ~/.aws/credentials.",
    "The user's wifi password is on the fridge.",
]


@pytest.mark.parametrize(("text", "kind", "value"), SECRETS)
def test_a_secret_is_found_by_kind_and_the_redacted_text_does_not_hold_it(text: str, kind: str, value: str) -> None:
    assert has_secret(text), text
    assert kind in secret_kinds(text), (text, secret_kinds(text))
    shown = redact(text)
    assert value not in shown and f"[{kind} withheld]" in shown, shown


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_facts_pass(text: str) -> None:
    assert find_secrets(text) == [], (text, [(s.kind, text[s.start : s.end]) for s in find_secrets(text)])


def test_a_card_number_must_pass_luhn() -> None:
    assert has_secret("card 4111 1111 1111 1111") and not has_secret("card 4111 1111 1111 1112")
    assert not has_secret("IBAN-like GB82WEST12345698765431 with a wrong check digit")


def test_redact_names_each_secret_once_and_keeps_the_rest() -> None:
    text = "wifi pass is Tr0ub4dor&3, bank PIN is 4921, AWS sign-in value is wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
    assert redact(text) == (
        "wifi pass is [password withheld], bank PIN is [PIN withheld], AWS sign-in value is [password withheld]"
    )
    assert secret_kinds(text) == ["password", "PIN"]
