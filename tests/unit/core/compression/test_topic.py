from okbot.core.compression.topic import cheap_signal, is_new_topic

RECENT = [
    {"type": "user", "content": "Please migrate the billing tables to the new schema."},
    {"type": "assistant", "content": "Migrated invoices and payments; customers next."},
]


def test_explicit_markers_are_new_without_asking():
    asked = []
    assert is_new_topic("New topic: how do I bake sourdough?", RECENT, asked.append) is True
    assert is_new_topic("换个话题：周末去哪里玩？", RECENT, asked.append) is True
    assert asked == []


def test_shared_vocabulary_or_short_messages_are_the_same_topic_without_asking():
    asked = []
    assert cheap_signal("continue with customers", RECENT) == "same"
    assert is_new_topic("Now migrate the customers billing table too", RECENT, asked.append) is False
    assert is_new_topic("ok", RECENT, asked.append) is False
    assert asked == []


def test_unsure_asks_once_and_any_failure_means_same_topic():
    text = "Recommend good hiking trails around Lisbon during springtime weekends"
    assert cheap_signal(text, RECENT) == "unsure"
    prompts = []
    assert is_new_topic(text, RECENT, lambda p: prompts.append(p) or "Yes.") is True
    assert len(prompts) == 1 and "hiking" in prompts[0]
    assert is_new_topic(text, RECENT, lambda p: "no") is False

    def broken(_prompt):
        raise TimeoutError("budget exceeded")

    assert is_new_topic(text, RECENT, broken) is False
    assert is_new_topic(text, RECENT, None) is False
