"""The schema file and the docs' key reference are generated from the models and kept current."""

from __future__ import annotations

import json

from game.level.problems import model_at
from game.level.reference import DOCS_PATH, level_schema, write_reference
from game.level.schema import Level
from levels import LEVELS_DIR, SCHEMA_PATH


def test_schema_file_and_docs_reference_are_up_to_date() -> None:
    stale = write_reference(check_only=True)
    assert not stale, f"run `python -m game schema` to regenerate {[str(p) for p in stale]}"


def test_schema_file_is_the_models_schema() -> None:
    assert json.loads(SCHEMA_PATH.read_text()) == level_schema()


def test_every_key_of_every_table_is_documented() -> None:
    docs = DOCS_PATH.read_text()
    tables = [(), ("level",), ("world",), ("world", "wind"), ("cloth", 0), ("cloth", 0, "pins")]
    tables += [("balls", 0), ("system", 0), ("tools",), ("panel",), ("view",)]
    for path in tables:
        model = model_at(path) if path else Level
        assert model is not None, path
        for key in model.model_fields:
            assert f"| `{key}` |" in docs, f"{'.'.join(map(str, path))}.{key} is missing from docs/levels.md"


def test_schema_avoids_forms_toml_editors_ignore() -> None:
    text = SCHEMA_PATH.read_text()
    assert "$defs" not in text and "prefixItems" not in text


def test_every_built_in_level_points_editors_at_the_schema() -> None:
    for level in LEVELS_DIR.glob("*.toml"):
        assert level.read_text().startswith("#:schema ./level.schema.json\n"), level.name


def toml_examples(markdown: str) -> list[str]:
    """The ```toml blocks of a markdown text."""
    return [block.split("```", 1)[0] for block in markdown.split("```toml\n")[1:]]


def test_the_level_examples_in_the_docs_are_valid_levels(tmp_path) -> None:
    import shutil

    from game.level.load import load_level

    shutil.copytree(
        LEVELS_DIR / "textures", tmp_path / "textures"
    )  # examples name textures relative to the file
    examples = toml_examples(DOCS_PATH.read_text()) + toml_examples(
        (LEVELS_DIR.parent / "README.md").read_text()
    )
    assert len(examples) >= 2
    for k, text in enumerate(examples):
        path = tmp_path / f"example{k}.toml"
        path.write_text(text)
        load_level(path)  # raises LevelError, naming the key, if the docs drifted from the schema
