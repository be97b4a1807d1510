from okbot.core.instructions import (
    BLOCK_ORDER,
    InstructionInputs,
    RosterEntry,
    assemble_instructions,
    join_blocks,
)


def full_inputs(**over):
    base = dict(
        name="Ada",
        role_line="a careful reviewer",
        roster=[RosterEntry("Ada", "reviewer")],
        soul="Be kind.",
        tool_notes=[("search_history", "search this session")],
        skills=[("pdf", "read PDFs")],
        summary="## Goals\n- [active] ship",
        covered_through_id=40,
        kept_user_words=[(3, "Never push to main.")],
        memories=["User prefers metric units."],
    )
    base.update(over)
    return InstructionInputs(**base)


def test_blocks_come_in_the_design_order_stable_first():
    blocks = assemble_instructions(full_inputs())
    assert [b.name for b in blocks] == [name for name, *_ in BLOCK_ORDER]
    stable = [b.stable for b in blocks]
    assert stable == sorted(stable, reverse=True), "stable blocks must all precede volatile ones"


def test_empty_parts_are_omitted():
    blocks = assemble_instructions(InstructionInputs(name="Ada"))
    assert [b.name for b in blocks] == ["role"]
    assert "Ada" in blocks[0].text


def test_same_inputs_give_byte_identical_text():
    a = join_blocks(assemble_instructions(full_inputs()))
    b = join_blocks(assemble_instructions(full_inputs()))
    assert a == b


def test_summary_block_carries_kept_user_words_verbatim_with_ids():
    blocks = {b.name: b for b in assemble_instructions(full_inputs())}
    text = blocks["summary"].text
    assert "[#3] Never push to main." in text
    assert "#40" in text


def test_the_users_words_come_before_the_summary_and_are_marked_never_to_be_cut():
    block = {b.name: b for b in assemble_instructions(full_inputs(kept_user_listed=[9, 5]))}["summary"]
    head, body = block.text[: block.uncut], block.text[block.uncut :]
    assert head.endswith(
        "[#3] Never push to main.\n\nAlso kept, not shown for room (search_history finds them): #5, #9"
    )
    assert body.strip().startswith("## Goals")


def test_squad_roster_lists_members_with_roles():
    inp = full_inputs(
        squad_name="Crew",
        squad_description="ships things",
        roster=[RosterEntry("Ada", "reviewer", "reviews"), RosterEntry("Bob", "coder")],
    )
    roster = {b.name: b for b in assemble_instructions(inp)}["roster"].text
    assert "Squad: Crew" in roster and "- Ada (reviewer): reviews" in roster and "- Bob (coder)" in roster
