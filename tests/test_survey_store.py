"""The survey store: directories data tools read as they are, format-1 directories read and
upgraded, damaged chunks and manifests named in one line, and set aside and solved again."""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest
from conftest import fails, ok, run
from test_survey import RULES, expected_rows, rows_of

from dsolve import survey
from dsolve.errors import InputError
from dsolve.klondike.rows import SCHEMA, SOLVE
from dsolve.survey import Limits, load, retry_unknown, run_survey, store

PUBLISHED = Path(__file__).parent.parent / "data" / "surveys" / "standard-1e6"
TEXTS = [str(r) for r in RULES]


def plain(table: pa.Table) -> list[tuple]:
    """The rows of a table as read by any tool, sorted, with dictionary columns as strings."""
    columns = [table[name].cast(pa.string()) if pa.types.is_dictionary(table[name].type) else table[name]
               for name in SCHEMA.names]
    return sorted(zip(*(c.to_pylist() for c in columns)), key=lambda r: r[:2])


def test_data_tools_open_a_survey_directory_the_plain_way(fake, tmp_path):
    out = tmp_path / "s"
    run_survey(out, range(1, 30), RULES, jobs=2, chunk_size=7)
    expected = sorted(expected_rows(range(1, 30)), key=lambda r: r[:2])
    assert rows_of(out) == expected
    assert any(row[2] == "unknown" and row[6] in ("nodes", "time") for row in expected)
    assert plain(pq.read_table(out)) == expected
    assert plain(ds.dataset(out).to_table()) == expected
    pandas = pytest.importorskip("pandas")
    frame = pandas.read_parquet(out)
    assert len(frame) == len(expected) and list(frame.columns) == SOLVE.schema.names
    assert frame["implied_by"].isna().all()  # RULES share no verdicts
    assert frame["verdict"].astype(str).value_counts().to_dict() == {
        v: sum(row[2] == v for row in expected) for v in ("winnable", "unwinnable", "unknown")}
    unknown = frame[frame["verdict"] == "unknown"]
    assert sorted(unknown["limit"]) == sorted(row[6] for row in expected if row[2] == "unknown")
    assert frame[frame["verdict"] != "unknown"]["limit"].isna().all()


def test_duckdb_reads_the_chunks(fake, tmp_path):
    duckdb = pytest.importorskip("duckdb")
    out = tmp_path / "s"
    run_survey(out, range(1, 30), RULES, jobs=1, chunk_size=7)
    rows = duckdb.sql(f"select seed, rules, verdict, length, nodes, seconds, \"limit\" "
                      f"from read_parquet('{out}/*.parquet') order by seed, rules").fetchall()
    assert rows == sorted(expected_rows(range(1, 30)), key=lambda r: r[:2])


def test_the_published_survey_opens_the_plain_way():
    table = pq.read_table(PUBLISHED, columns=["seed", "verdict"])
    assert table.num_rows == 1_000_000 and sorted(table["seed"].to_pylist()) == list(range(1, 1_000_001))
    assert table["verdict"].cast(pa.string()).to_pylist().count("winnable") == 819_349
    pandas = pytest.importorskip("pandas")
    assert len(pandas.read_parquet(PUBLISHED, columns=["seed"])) == 1_000_000
    assert json.loads((PUBLISHED / "_manifest.json").read_text())["format"] == store.FORMAT


def to_format1(out: Path) -> None:
    """Turn a survey directory into what dsolve of format 1 wrote: ``manifest.json``, footers of
    Python literals under a key each, no ``limit`` or ``implied_by`` column."""
    manifest = json.loads((out / "_manifest.json").read_text())
    (out / "manifest.json").write_text(json.dumps({**manifest, "format": 1}, indent=2) + "\n")
    (out / "_manifest.json").unlink()
    for path in store.chunk_files(out):
        chunk = survey.Chunk.from_footer(pq.read_schema(path).metadata)[0]
        meta = {b"dsolve.first": chunk.seeds.start, b"dsolve.stop": chunk.seeds.stop,
                b"dsolve.run_started": chunk.run_started, b"dsolve.written": chunk.written,
                b"dsolve.workers": chunk.workers, b"dsolve.earlier_writes": chunk.earlier}
        table = pq.read_table(path).drop_columns(["limit", "implied_by"])
        pq.write_table(table.replace_schema_metadata({k: repr(v).encode() for k, v in meta.items()}), path)


def test_a_format1_directory_is_read_as_it_is_and_upgraded_by_the_next_run(fake, tmp_path):
    out = tmp_path / "s"
    run_survey(out, range(0, 30), RULES, jobs=1, chunk_size=10)
    chunks = survey.open_survey(out).chunks
    to_format1(out)
    legacy = out / "chunk-000000010.parquet"
    table = pq.read_table(legacy)  # a chunk a retry rewrote: earlier writes in its footer
    pq.write_table(table.replace_schema_metadata({**table.schema.metadata,
                                                  b"dsolve.earlier_writes": b"((100.5, 160.25),)"}), legacy)
    chunks = (chunks[0], survey.Chunk(chunks[1].seeds, chunks[1].run_started, chunks[1].written,
                                      chunks[1].workers, ((100.5, 160.25),)), chunks[2])
    untouched = {p.name: p.read_bytes() for p in out.iterdir()}

    opened = survey.open_survey(out)  # readers read it as it is, and change nothing
    assert opened.chunks == chunks and opened.manifest.format == 1
    assert rows_of(out) == [(*row[:6], None) for row in sorted(expected_rows(range(0, 30)), key=lambda r: r[:2])]
    assert "0 unknown" not in ok("stats", str(out)) and "reason not recorded" in ok("stats", str(out))
    assert {p.name: p.read_bytes() for p in out.iterdir()} == untouched

    run = run_survey(out, range(0, 40), RULES, jobs=1)  # resumes: upgrades, then solves 30..39
    assert (run.seeds_done_before, run.chunks_written) == (30, 1)
    assert not (out / "manifest.json").exists()
    assert json.loads((out / "_manifest.json").read_text())["format"] == store.FORMAT
    for path in store.chunk_files(out):
        assert set(pq.read_schema(path).metadata) == {b"dsolve"}
    assert survey.open_survey(out).chunks[:3] == chunks  # the times of each write are kept
    old = [(*row[:6], None) for row in expected_rows(range(0, 30))]
    assert rows_of(out) == sorted(old + expected_rows(range(30, 40)), key=lambda r: r[:2])
    assert plain(pq.read_table(out)) == rows_of(out)


def test_chunks_written_before_implied_by_are_read_with_it_null(fake, tmp_path):
    """The solve survey's chunks from before rule sets shared verdicts (no ``implied_by`` column)
    read as every row solved, and a run extends such a survey."""
    out = tmp_path / "s"
    run_survey(out, range(0, 20), RULES, jobs=1, chunk_size=10)
    for path in store.chunk_files(out):
        table = pq.read_table(path)
        pq.write_table(table.drop_columns(["implied_by"]).replace_schema_metadata(table.schema.metadata), path)
    assert pq.read_schema(out / "chunk-000000000.parquet").remove_metadata().equals(SCHEMA)
    rows = load(out)[1]
    assert rows.schema.equals(SOLVE.schema) and rows["implied_by"].null_count == rows.num_rows
    assert rows_of(out) == sorted(expected_rows(range(20)), key=lambda r: r[:2])
    assert "implied" not in ok("stats", str(out))
    run = run_survey(out, range(0, 30), RULES, jobs=1)
    assert (run.seeds_done_before, run.chunks_written) == (20, 1)
    assert rows_of(out) == sorted(expected_rows(range(30)), key=lambda r: r[:2])


def test_a_retry_upgrades_a_format1_directory(fake, tmp_path):
    out = tmp_path / "s"
    run_survey(out, range(0, 20), RULES, jobs=1, chunk_size=10, limits=Limits(max_nodes=1000))
    to_format1(out)
    done = retry_unknown(out, Limits(max_nodes=1000), jobs=1)  # the fake solver decides no more
    assert done.rows == done.still_unknown == sum(row[2] == "unknown" for row in expected_rows(range(20)))
    assert not (out / "manifest.json").exists() and (out / "_manifest.json").exists()
    again = [(*row[:4], 2 * row[4], 2 * row[5], row[6]) if row[2] == "unknown" else row  # two tries
             for row in expected_rows(range(20))]
    assert rows_of(out) == sorted(again, key=lambda r: r[:2])  # with the limit of each unknown row now


# -- damage --------------------------------------------------------------------------------------

def truncate(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def empty(path: Path) -> None:
    path.write_bytes(b"")


def garble(path: Path) -> None:
    """Overwrite the last 8 bytes of the ``seconds`` column's pages."""
    column = pq.ParquetFile(path).metadata.row_group(0).column(SCHEMA.names.index("seconds"))
    data = bytearray(path.read_bytes())
    end = (column.dictionary_page_offset or column.data_page_offset) + column.total_compressed_size
    data[end - 8:end] = bytes(255 - b for b in data[end - 8:end])
    path.write_bytes(bytes(data))


def wrong_schema(path: Path) -> None:
    table = pq.read_table(path)
    pq.write_table(table.set_column(4, "nodes", table["nodes"].cast(pa.float64())), path)


def wrong_rows(path: Path) -> None:
    table = pq.read_table(path)
    pq.write_table(table.slice(0, table.num_rows - 1), path)


def not_a_chunk(path: Path) -> None:
    pq.write_table(pa.table({"seed": [1, 2]}), path)


DAMAGE = [truncate, empty, garble, wrong_schema, wrong_rows, not_a_chunk]
REASONS = {truncate: "Parquet magic bytes not found", empty: "Parquet file size is 0 bytes",
           garble: "CRC checksum verification failed", wrong_schema: "nodes: double",
           wrong_rows: "its 19 rows are not one per seed 10-19 under each of the survey's 2 rule sets",
           not_a_chunk: "no dsolve footer"}


@pytest.mark.parametrize("damage", DAMAGE, ids=lambda f: f.__name__)
def test_a_damaged_chunk_is_named_in_one_line_then_set_aside_and_solved_again(fake, tmp_path, damage):
    out = tmp_path / "s"
    ok("survey", "--seeds", "0-29", "--preset", "standard", "--rules", "draw=1,passes=3", "--out", str(out),
       "--jobs", "1", "--chunk-size", "10")
    chunk = out / "chunk-000000010.parquet"
    damage(chunk)
    damaged = chunk.read_bytes()
    for command in (["stats", str(out)], ["stats", str(out), "--json"], ["compare", str(out)]):
        line = fails(*command)
        assert line.startswith(f"dsolve: error: damaged survey chunk {chunk}: ") and REASONS[damage] in line
    reason = line.split(": ", 3)[3]
    with pytest.raises(InputError, match="damaged survey chunk"):
        load(out)
    assert fails("survey", "--out", str(out), "--retry-unknown") == (
        f"dsolve: error: damaged survey chunk {chunk}: {reason}; run the survey again ('dsolve survey "
        f"--seeds ... --out {out}', which moves it aside and solves its seeds again) before retrying")
    assert chunk.read_bytes() == damaged

    result = run("survey", "--seeds", "0-29", "--preset", "standard", "--rules", "draw=1,passes=3", "--out", str(out),
                 "--jobs", "1")
    assert result.exit_code == 0, result.stderr
    aside = out / "_damaged" / chunk.name
    assert [line for line in result.stderr.splitlines() if not line.startswith("dsolve survey ")] == [
        f"dsolve: damaged chunk moved to {aside} ({reason}); its seeds were solved again"]
    assert "(20 were done before, 1 chunk solved now)" in result.stdout
    assert aside.read_bytes() == damaged
    assert rows_of(out) == sorted(expected_rows(range(30)), key=lambda r: r[:2])
    assert plain(pq.read_table(out)) == rows_of(out)  # the data tools do not look in _damaged/
    assert "30: " in ok("stats", str(out))

    damage(chunk)  # damaged again: set aside under another name
    run_survey(out, range(0, 30), RULES, jobs=1)
    assert sorted(p.name for p in (out / "_damaged").iterdir()) == sorted([chunk.name, "chunk-000000010-2.parquet"])
    assert rows_of(out) == sorted(expected_rows(range(30)), key=lambda r: r[:2])


def test_a_garbled_chunk_of_valid_parquet_is_caught_by_its_checksums(fake, tmp_path):
    out = tmp_path / "s"
    run_survey(out, range(0, 10), RULES, jobs=1)
    chunk = out / "chunk-000000000.parquet"
    garble(chunk)
    assert pq.read_table(chunk, columns=["seed"]).num_rows == 20  # still Parquet, other columns intact
    with pytest.raises(survey.DamagedChunk, match="CRC|checksum"):
        store.read_chunk(chunk, SOLVE, TEXTS)


@pytest.mark.parametrize("content, reason", [
    (b"", "Expecting value"),
    (b"\x00\xff\x10garbage", "codec can't decode"),
    (None, "Unterminated string|Expecting"),  # truncated
    (b'{"rules": "draw=3", "convention": 5}', "wrong type|limits"),
    (b"[1, 2]", "not a JSON object"),
])
def test_a_damaged_manifest_is_named_in_one_line(fake, tmp_path, content, reason):
    out = tmp_path / "s"
    run_survey(out, range(0, 10), RULES, jobs=1)
    manifest = out / "_manifest.json"
    manifest.write_bytes(manifest.read_bytes()[:40] if content is None else content)
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    for command in (["stats", str(out)], ["compare", str(out)],
                    ["survey", "--seeds", "0-19", "--out", str(out), "--preset", "standard", "--rules", "draw=1,passes=3"],
                    ["survey", "--out", str(out), "--retry-unknown"]):
        line = fails(*command)
        assert line.startswith(f"dsolve: error: damaged survey manifest {manifest}: ")
        assert re.search(reason, line), line
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


def test_limits_in_the_manifest_must_be_positive_and_finite(fake, tmp_path):
    out = tmp_path / "s"
    run_survey(out, range(0, 10), RULES, jobs=1)
    manifest = out / "_manifest.json"
    manifest.write_text(manifest.read_text().replace('"timeout": 60.0', '"timeout": NaN'))
    assert "timeout must be a positive finite number, got nan" in fails("stats", str(out))
    for bad in ({"timeout": float("nan")}, {"timeout": float("inf")}, {"max_nodes": 0}, {"memory_mb": -1},
                {"timeout": True}):
        with pytest.raises(InputError, match="must be a positive (finite|whole) number"):
            Limits(**bad)


def test_a_copy_of_a_survey_without_its_manifest_is_not_a_survey(fake, tmp_path):
    out = tmp_path / "s"
    run_survey(out, range(0, 10), RULES, jobs=1)
    shutil.copytree(out, tmp_path / "copy", ignore=shutil.ignore_patterns("_manifest.json"))
    assert "is not a survey directory (no _manifest.json)" in fails("stats", str(tmp_path / "copy"))
