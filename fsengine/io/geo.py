"""GEO series matrix files (``GSExxxx_series_matrix.txt.gz``), plain or gzip-compressed.

The layout, as GEO documents it (https://www.ncbi.nlm.nih.gov/geo/info/matrix.html):
``!Series_...`` lines, ``!Sample_...`` lines (one value per sample, tab-separated, quoted;
``!Sample_characteristics_ch1`` repeated, each cell ``key: value``), then the table of
probes x samples between ``!series_matrix_table_begin`` and ``!series_matrix_table_end``
(a header ``"ID_REF"`` and the samples' GSM accessions, then one line per probe).

The class is one of the sample lines: a characteristic by its key ("disease state"), or
the title, source name or description (:mod:`fsengine.io.annotated`).

GEOparse, the maintained Python parser of GEO, reads SOFT files (``_family.soft.gz``) and
downloads by accession; it has no reader of the series matrix a user holds, so this
module reads that text format itself (pyarrow parses the table).
"""

from __future__ import annotations

import gzip
import io
import zlib

import numpy as np
import pyarrow as pa

from fsengine.errors import FSEngineError
from fsengine.io.base import NULLS, Reader, Table, as_number, compute, is_numeric_type, numbers
from fsengine.io.orientation import raise_duplicates
from fsengine.io.sniff import GZIP_MAGIC

__all__ = ["MAX_SERIES_SAMPLES", "GeoSeriesMatrixReader"]

BEGIN = b"!series_matrix_table_begin"
END = b"!series_matrix_table_end"
#: Sample lines offered as the class besides the characteristics, by their name.
SAMPLE_LINES = ("title", "source_name_ch1", "source_name_ch2", "description")


def _text_head(head: bytes) -> bytes:
    """The first bytes of the file, decompressed when it is gzip."""
    if head[:2] != GZIP_MAGIC:
        return head
    try:
        return zlib.decompressobj(wbits=31).decompress(head, 4096)
    except zlib.error:
        return b""


def _cells(line: str) -> list[str]:
    return [c.strip().strip('"').strip() for c in line.rstrip("\r\n").split("\t")]


#: The most sample columns a series matrix's table may have: GEO's largest series hold
#: tens of thousands; Arrow parses a table of 10^6 columns for over 10 minutes and 7 GB.
MAX_SERIES_SAMPLES = 50_000


class GeoSeriesMatrixReader(Reader):
    """A GEO series matrix: the probes x samples table turned to samples x probes, and the
    sample lines as the annotations the class is chosen from."""

    format = "GEO series matrix"

    def recognises(self, head: bytes) -> bool:
        text = _text_head(head).lstrip(b"\xef\xbb\xbf").lstrip()
        return text.startswith((b"!Series_", b"!Sample_", b"!series_matrix_table_begin"))

    def read(self, data: bytes, name: str, transpose: bool) -> Table:
        notes = [self.format]
        if data[:2] == GZIP_MAGIC:
            try:
                data = gzip.decompress(data)
            except (OSError, EOFError, zlib.error) as exc:
                raise FSEngineError(f"{name}: the gzip stream is damaged ({exc})") from None
            notes.append("gzip-compressed")
        begin = data.find(BEGIN)
        if begin < 0:
            raise FSEngineError(
                f"{name} is a GEO series matrix without its table (no "
                "'!series_matrix_table_begin' line): GEO leaves the table empty for series "
                "without processed values; download the samples' data (the GSM tables or "
                "the supplementary files) and build a matrix of samples x genes"
            )
        end = data.find(END, begin)
        block = data[data.index(b"\n", begin) + 1 : end if end >= 0 else len(data)]
        header_lines = data[:begin].decode("utf-8", errors="replace").splitlines()
        table = self._table(block, name)
        samples = [str(s) for s in table.column_names[1:]]
        probes = [str(p) for p in table.column(0).to_pylist()]
        if not samples or not probes:
            raise FSEngineError(
                f"{name}: the series matrix's table has no "
                + ("samples" if not samples else "probes")
            )
        if len(set(probes)) != len(probes):
            raise_duplicates(probes, f"probe IDs in {name}")
        matrix = np.empty((len(samples), len(probes)), dtype=np.float64, order="F")
        for i, sample in enumerate(samples):
            matrix[i, :] = self._values(table.column(i + 1), sample, probes, name)
        annotations = self._annotations(header_lines, samples)
        return Table(
            pa.table({}),
            notes + [f"{len(probes)} probes x {len(samples)} samples, turned to samples in rows"],
            False,
            matrix,
            tuple(probes),
            tuple(samples),
            annotations,
            "sample line",
        )

    @staticmethod
    def _table(block: bytes, name: str) -> pa.Table:
        from pyarrow import csv

        first = block.split(b"\n", 1)[0].decode("utf-8", errors="replace")
        id_column = _cells(first)[0] if first.strip() else "ID_REF"
        samples = first.count("\t")
        if samples > MAX_SERIES_SAMPLES:
            raise FSEngineError(
                f"{name}: the series matrix's table has {samples:,} sample columns, more than "
                f"the {MAX_SERIES_SAMPLES:,} a series matrix is read with; give the values "
                "as a table of samples x genes (Parquet or .h5ad)"
            )
        try:
            return csv.read_csv(
                io.BytesIO(block),
                # a row as long as 4 headers fits a block (Arrow's default: 1 MB)
                read_options=csv.ReadOptions(block_size=max(1 << 20, 4 * len(first) + 1)),
                parse_options=csv.ParseOptions(delimiter="\t", quote_char='"'),
                convert_options=csv.ConvertOptions(
                    column_types={id_column: pa.string()},
                    null_values=NULLS,
                    strings_can_be_null=True,
                ),
            )
        except pa.ArrowInvalid as exc:
            raise FSEngineError(
                f"{name}: the series matrix's table cannot be read: {exc}"
            ) from None

    @staticmethod
    def _values(column: pa.ChunkedArray, sample: str, probes: list[str], name: str) -> np.ndarray:
        """One sample's values over the probes, or an error naming the first bad cell."""
        if pa.types.is_string(column.type) or pa.types.is_large_string(column.type):
            for row, value in enumerate(column.to_pylist()):
                if value is not None and as_number(value.strip()) is None:
                    raise FSEngineError(
                        f"{name}: sample {sample!r}, probe {probes[row]!r}: {value!r} is not "
                        "a number",
                        column=sample,
                        row=row + 1,
                    )
            column = compute().cast(compute().utf8_trim_whitespace(column), pa.float64())
        if column.null_count or not is_numeric_type(column.type):
            nulls = compute().is_null(column).to_numpy(zero_copy_only=False)
            row = int(np.flatnonzero(nulls)[0]) if nulls.any() else 0
            raise FSEngineError(
                f"{name}: sample {sample!r}, probe {probes[row]!r}: missing value (GEO's "
                "'null'); remove the probe or fill it in (every method needs every value)",
                column=sample,
                row=row + 1,
            )
        return numbers(column).astype(np.float64, copy=False)

    @staticmethod
    def _annotations(lines: list[str], samples: list[str]) -> dict[str, list]:
        """The sample lines that may hold the class: each characteristic by its key, and
        the title, source name and description, in the samples' order of the table."""
        found: dict[str, list] = {}
        order = None
        for line in lines:
            if not line.startswith("!Sample_"):
                continue
            cells = _cells(line)
            field, values = cells[0][len("!Sample_") :], cells[1:]
            if field == "geo_accession":
                order = values
            elif field.startswith("characteristics_"):
                for position, cell in enumerate(values):
                    key, sep, value = cell.partition(":")
                    key = key.strip() if sep else field
                    value = value.strip() if sep else cell
                    column = found.setdefault(key, [None] * len(values))
                    if column[position] is None and value:
                        column[position] = value
            elif field in SAMPLE_LINES:
                found[field] = [v or None for v in values]
        if order is not None and order != samples:
            where = {s: k for k, s in enumerate(order)}
            if set(where) >= set(samples):
                found = {key: [v[where[s]] for s in samples] for key, v in found.items()}
        return {key: (v + [None] * len(samples))[: len(samples)] for key, v in found.items()}
