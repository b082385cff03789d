"""Input and output for the CLI: compressed or plain files and ``-``, read as whole-line chunks
in a background thread (so reading and decompressing overlap the parse)."""

from __future__ import annotations

import gzip
import os
import queue
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any, cast

__all__ = ["CHUNK_BYTES", "InputError", "LineChunks", "open_input", "open_output"]

#: Bytes read per chunk: large enough to keep every core busy, small enough that a few chunks in
#: flight keep memory flat.
CHUNK_BYTES = 8 << 20

#: Chunks read ahead of the parse.
READ_AHEAD = 2


class InputError(Exception):
    """An input (or output) the CLI cannot use; the message says why. Exit status 2."""


def _zstd_reader(raw: IO[bytes]) -> IO[bytes]:
    try:
        import zstandard
    except ImportError:
        raise InputError(
            "reading .zst files needs the zstandard package: pip install 'toolwire[zstd]'"
        ) from None
    reader: IO[bytes] = zstandard.ZstdDecompressor().stream_reader(raw, read_across_frames=True)
    return reader


def open_input(name: str) -> tuple[IO[bytes], IO[bytes], int | None]:
    """``(reader, raw file, size)``: the decompressed stream, the file it reads (whose position
    tracks progress) and the file's size (None for stdin and pipes)."""
    if name == "-":
        return sys.stdin.buffer, sys.stdin.buffer, None
    path = Path(name)
    if path.is_dir():
        raise InputError(f"{name} is a directory, not a JSONL file")
    try:
        raw: IO[bytes] = path.open("rb")
    except OSError as error:
        raise InputError(f"cannot read {name}: {error.strerror or error}") from None
    size = os.fstat(raw.fileno()).st_size if path.is_file() else None
    suffix = path.suffix.lower()
    if suffix == ".gz":
        return cast(IO[bytes], gzip.GzipFile(fileobj=raw, mode="rb")), raw, size
    if suffix in (".zst", ".zstd"):
        return _zstd_reader(raw), raw, size
    return raw, raw, size


def open_output(name: str | None) -> IO[bytes]:
    if name in (None, "-"):
        return sys.stdout.buffer
    try:
        return Path(name).open("wb")
    except OSError as error:
        raise InputError(f"cannot write {name}: {error.strerror or error}") from None


def _looks_binary(chunk: bytes) -> bool:
    # JSONL is text: a NUL byte in it means a binary file (an image, a compressed file with
    # the wrong extension, ...). A bad UTF-8 line alone is only a bad line.
    return b"\0" in chunk[:65536]


class LineChunks:
    """Iterates over ``(chunk, raw position)``: chunks of whole lines (the last one may lack
    its newline), read ahead in a background thread.

    A read failure (a truncated gzip file, a disk error) or binary content is raised from the
    iterator as an :class:`InputError`.
    """

    def __init__(self, reader: IO[bytes], raw: IO[bytes], name: str) -> None:
        self._reader = reader
        self._raw = raw
        self._name = name
        self._queue: queue.Queue[Any] = queue.Queue(maxsize=READ_AHEAD)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._read, name="toolwire-reader", daemon=True)
        self._thread.start()

    def _position(self) -> int:
        try:
            return self._raw.tell()
        except (OSError, ValueError):
            return 0

    def _put(self, item: Any) -> bool:
        while not self._stop.is_set():
            try:
                self._queue.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def _read(self) -> None:
        rest: list[bytes] = []  # the start of a line not yet ended
        first = True
        try:
            while not self._stop.is_set():
                block = self._reader.read(CHUNK_BYTES)
                if first and _looks_binary(block):
                    raise InputError(f"{self._name} looks like a binary file, not JSONL text")
                first = False
                if not block:
                    if rest and not self._put((b"".join(rest), self._position())):
                        return
                    break
                cut = block.rfind(b"\n")
                if cut < 0:
                    rest.append(block)  # a line longer than a chunk: keep reading
                    continue
                chunk = b"".join([*rest, block[: cut + 1]])
                rest = [block[cut + 1 :]] if cut + 1 < len(block) else []
                if not self._put((chunk, self._position())):
                    return
        except InputError as error:
            self._put(error)
            return
        except Exception as error:  # a truncated gzip/zstd stream, a disk error, ...
            self._put(InputError(f"cannot read {self._name}: {error or type(error).__name__}"))
            return
        self._put(None)

    def __iter__(self) -> Iterator[tuple[bytes, int]]:
        while True:
            item = self._queue.get()
            if item is None:
                return
            if isinstance(item, InputError):
                raise item
            yield item

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
