"""The schema file and the docs' key reference are generated from the models and kept current."""

from __future__ import annotations

import json
import typing

from pydantic import BaseModel

from weft.game.level.reference import DOCS_PATH, level_schema, write_reference
from weft.game.level.schema import Level
from weft.levels import LEVELS_DIR, SCHEMA_PATH


def test_schema_file_and_docs_reference_are_up_to_date() -> None:
    stale = write_reference(check_only=True)
    assert not stale, f"run `weft schema` to regenerate {[str(p) for p in stale]}"


def test_schema_file_is_the_models_schema() -> None:
    assert json.loads(SCHEMA_PATH.read_text()) == level_schema()


def model_tables(model: type[BaseModel], path: tuple[str, ...] = ()) -> list[tuple[str, type[BaseModel]]]:
    """Every table below ``model`` with its TOML header, found from the models' own annotations."""

    def tables_in(annotation: object, many: bool = False) -> list[tuple[type[BaseModel], bool]]:
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            return [(annotation, many)]
        inside = typing.get_origin(annotation) is list
        return [found for arg in typing.get_args(annotation) for found in tables_in(arg, many or inside)]

    found = []
    for key, field in model.model_fields.items():
        for table, many in tables_in(field.annotation):
            dotted = ".".join((*path, key))
            found.append((f"[[{dotted}]]" if many else f"[{dotted}]", table))
            found += model_tables(table, (*path, key))
    return found


def test_every_table_the_level_model_holds_is_documented_with_every_key() -> None:
    docs = DOCS_PATH.read_text()
    tables = [("Top level", Level), *model_tables(Level)]
    headers = {header for header, _ in tables}
    for expected in ("[world.rigid]", "[[boxes]]", "[[creature]]", "[[skeleton]]", "[skeleton.skin]"):
        assert expected in headers  # the walk itself finds nested and listed tables
    for header, model in tables:
        assert f"\n### {header}\n" in docs, f"{header} is missing from docs/levels.md"
        section = docs.split(f"\n### {header}\n", 1)[1].split("\n### ", 1)[0]
        for key in model.model_fields:
            assert f"| `{key}` |" in section, f"{header} {key} is missing from docs/levels.md"


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

    from weft.game.level.load import load_level

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
