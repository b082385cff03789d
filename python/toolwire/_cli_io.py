"""Input and output for the CLI: plain or compressed files and ``-``, read as whole-line chunks
in a background thread (so reading and decompressing overlap the parse), in bounded memory
whatever the input; output written so that a failed run never damages an existing file."""

from __future__ import annotations

import codecs
import contextlib
import os
import queue
import stat
import sys
import threading
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

__all__ = [
    "CHUNK_BYTES",
    "MAX_LINE_BYTES",
    "InputError",
    "LineChunks",
    "Output",
    "UnreadLine",
    "open_input",
    "read_small_file",
]

#: Bytes read per chunk: large enough to keep every core busy, small enough that a few chunks in
#: flight keep memory flat.
CHUNK_BYTES = 8 << 20

#: Chunks read ahead of the parse.
READ_AHEAD = 2

#: The longest line read: a longer one is reported as a bad line without being held in memory
#: (no provider response comes near it).
MAX_LINE_BYTES = 16 << 20

#: Bytes of an unread line shown in its record.
UNREAD_HEAD_BYTES = 1024

#: Compressed input is fed to its decompressor in blocks of this size, so a file that ends
#: early loses nothing that was decompressed before its end.
COMPRESSED_BLOCK = 1 << 16

#: The first bytes of compressed formats; gzip and zstd are read, the others named.
MAGIC = {
    b"\x1f\x8b": "gzip",
    b"\x28\xb5\x2f\xfd": "zstd",
    b"BZh": "bzip2",
    b"\xfd7zXZ\x00": "xz",
    b"PK\x03\x04": "zip",
}


class InputError(Exception):
    """An input (or output) the CLI cannot use; the message says why. Exit status 2."""


class _GzipReader:
    """A gzip stream (one member or several) decompressed ``read(n)`` bytes at a time.

    Unlike :class:`gzip.GzipFile`, whose ``read`` raises and drops what it decompressed in the
    same call when the file ends early, every byte that can be decompressed is returned; the
    truncation is raised by the read after it. Output is bounded per call, so a small file
    that inflates to gigabytes is read like any other.
    """

    def __init__(self, raw: Any, name: str) -> None:
        self._raw = raw
        self._name = name
        self._inflate = zlib.decompressobj(wbits=31)
        self._leftover = b""  # compressed bytes of the next member, read with the last one
        self._started = False  # whether the current member has had input
        self._failure: InputError | None = None  # raised once the data before it is read

    def _next_input(self) -> bytes:
        if self._inflate.unconsumed_tail:
            return self._inflate.unconsumed_tail
        if self._leftover:
            data, self._leftover = self._leftover, b""
            return data
        data: bytes = self._raw.read(COMPRESSED_BLOCK)
        return data

    def read(self, size: int) -> bytes:
        out: list[bytes] = []
        wanted = size
        while wanted > 0 and self._failure is None:
            if self._inflate.eof:  # the next member of a multi-member file
                self._leftover = self._inflate.unused_data + self._leftover
                self._inflate = zlib.decompressobj(wbits=31)
                self._started = False
            data = self._next_input()
            if not self._started and data and not data.strip(b"\0"):
                continue  # zero padding after the last member
            if not data:
                # The file is read: what the decompressor still holds, then the end.
                block = self._inflate.decompress(b"", wanted) if self._started else b""
                if block:
                    out.append(block)
                    wanted -= len(block)
                    continue
                if self._started and not self._inflate.eof and not out:
                    raise InputError(
                        f"cannot read {self._name}: the gzip data ends early (truncated)"
                    )
                break
            self._started = True
            try:
                block = self._inflate.decompress(data, wanted)
            except zlib.error as error:
                self._failure = InputError(f"cannot read {self._name}: corrupt gzip data ({error})")
                break
            out.append(block)
            wanted -= len(block)
        if self._failure is not None and not out:
            raise self._failure
        return b"".join(out)

    def close(self) -> None:
        self._raw.close()


def _zstd_reader(raw: IO[bytes]) -> IO[bytes]:
    try:
        import zstandard
    except ImportError:
        raise InputError(
            "reading zstd files needs the zstandard package: pip install 'toolwire[zstd]'"
        ) from None
    reader: IO[bytes] = zstandard.ZstdDecompressor().stream_reader(raw, read_across_frames=True)
    return reader


def _stdin() -> IO[bytes]:
    """Standard input without Python's buffer and its lock: the reader thread may be left
    blocked in ``read`` when Ctrl-C ends the run, which must not hold up the exit."""
    return open(os.dup(sys.stdin.fileno()), "rb", buffering=0)  # noqa: SIM115


@dataclass
class Input:
    """An open input: ``reader`` gives its text; ``raw`` is the file, whose position tracks
    progress; ``size`` is the file's size (None for pipes)."""

    name: str
    reader: Any
    raw: IO[bytes]
    size: int | None
    #: The first bytes of the text, read to tell its kind and given back first.
    head: bytes

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.reader.close()
        with contextlib.suppress(OSError):
            self.raw.close()


class _Prefixed:
    """A raw file whose first bytes were already read (to tell its kind) and are read again."""

    def __init__(self, head: bytes, raw: IO[bytes]) -> None:
        self._head = head
        self._raw = raw

    def read(self, size: int) -> bytes:
        if self._head:
            head, self._head = self._head[:size], self._head[size:]
            return head
        return self._raw.read(size)

    def close(self) -> None:
        self._raw.close()


def _looks_binary(block: bytes) -> bool:
    """Whether a file whose text starts with ``block`` is not JSONL text: NUL bytes in text
    that is not UTF-8 (an image, an archive), or more than one byte in a hundred NUL. A stray
    NUL in UTF-8 text only makes its line a bad line."""
    nuls = block.count(b"\0")
    if not nuls:
        return False
    if nuls * 100 > len(block):
        return True
    try:
        codecs.getincrementaldecoder("utf-8")().decode(block, final=False)
    except UnicodeDecodeError:
        return True
    return False


def _read_up_to(reader: Any, size: int) -> bytes:
    """``size`` bytes of ``reader``, fewer only at its end."""
    parts: list[bytes] = []
    while size > 0:
        part: bytes = reader.read(size)
        if not part:
            break
        parts.append(part)
        size -= len(part)
    return b"".join(parts)


def open_input(name: str) -> Input:
    """Opens ``name`` (``-`` for standard input); gzip and zstd are recognised by their first
    bytes, whatever the file is called. Raises :class:`InputError` for an input that cannot be
    read or is not JSONL text."""
    if name == "-":
        raw = _stdin()
        size = None
    else:
        path = Path(name)
        if path.is_dir():
            raise InputError(f"{name} is a directory, not a JSONL file")
        try:
            raw = path.open("rb")
        except OSError as error:
            raise InputError(f"cannot read {name}: {error.strerror or error}") from None
        size = os.fstat(raw.fileno()).st_size if path.is_file() else None
    try:
        magic = raw.read(8)
    except OSError as error:
        raw.close()
        raise InputError(f"cannot read {name}: {error.strerror or error}") from None
    kind = next((k for m, k in MAGIC.items() if magic.startswith(m)), None)
    source = _Prefixed(magic, raw)
    reader: Any
    if kind == "gzip":
        reader = _GzipReader(source, name)  # type: ignore[arg-type]
    elif kind == "zstd":
        reader = _zstd_reader(source)  # type: ignore[arg-type]
    elif kind is not None:
        raw.close()
        raise InputError(f"{name} is {kind} data; toolwire reads plain, gzip or zstd JSONL")
    else:
        reader = source
    try:
        head = _read_up_to(reader, 65536)
    except InputError:
        raw.close()
        raise
    except Exception as error:  # a corrupt zstd frame, a disk error, ...
        raw.close()
        raise InputError(f"cannot read {name}: {error or type(error).__name__}") from None
    if _looks_binary(head):
        raw.close()
        raise InputError(f"{name} looks like a binary file, not JSONL text")
    return Input(name, reader, raw, size, head)


@dataclass
class UnreadLine:
    """A line longer than :data:`MAX_LINE_BYTES`: skipped, its first bytes kept."""

    head: bytes
    size: int

    def message(self) -> str:
        return (
            f"line of {self.size:,} bytes is longer than the {MAX_LINE_BYTES >> 20} MiB "
            "toolwire reads; it was skipped (raw holds its first KiB)"
        )


class LineChunks:
    """Iterates over ``(chunk, raw position)``: chunks of whole lines (the last one may lack
    its newline), read ahead in a background thread, and :class:`UnreadLine` for each line
    longer than :data:`MAX_LINE_BYTES`, in input order.

    A read failure (a truncated compressed file, a disk error) is raised from the iterator as
    an :class:`InputError` after every line read before it.
    """

    def __init__(self, source: Input) -> None:
        self._source = source
        self._queue: queue.Queue[Any] = queue.Queue(maxsize=READ_AHEAD)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._read, name="toolwire-reader", daemon=True)
        self._thread.start()

    def _position(self) -> int:
        try:
            return self._source.raw.tell()
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

    def _blocks(self) -> Iterator[bytes]:
        yield self._source.head
        while not self._stop.is_set():
            block = self._source.reader.read(CHUNK_BYTES)
            if not block:
                return
            yield block

    def _read(self) -> None:
        rest: list[bytes] = []  # the start of a line not yet ended
        rest_size = 0
        unread: UnreadLine | None = None  # a line too long, being skipped
        try:
            for block in self._blocks():
                if unread is not None:
                    end = block.find(b"\n")
                    if end < 0:
                        unread.size += len(block)
                        continue
                    unread.size += end
                    if not self._put(unread):
                        return
                    unread, block = None, block[end + 1 :]
                first_end = block.find(b"\n")
                if rest_size + (len(block) if first_end < 0 else first_end) > MAX_LINE_BYTES:
                    head = b"".join(rest)[:UNREAD_HEAD_BYTES] or block[:UNREAD_HEAD_BYTES]
                    unread = UnreadLine(head, rest_size)
                    rest, rest_size = [], 0
                    if first_end < 0:
                        unread.size += len(block)
                        continue
                    unread.size += first_end
                    if not self._put(unread):
                        return
                    unread, block = None, block[first_end + 1 :]
                cut = block.rfind(b"\n")
                if cut < 0:
                    rest.append(block)  # a line longer than a chunk: keep reading
                    rest_size += len(block)
                    continue
                chunk = b"".join([*rest, block[: cut + 1]])
                rest = [block[cut + 1 :]] if cut + 1 < len(block) else []
                rest_size = len(rest[0]) if rest else 0
                if not self._put((chunk, self._position())):
                    return
        except Exception as error:  # a truncated compressed file, a disk error, ...
            if unread is not None:
                self._put(unread)
            elif rest:
                self._put((b"".join(rest), self._position()))
            message = str(error) if isinstance(error, InputError) else None
            self._put(
                InputError(
                    message
                    or f"cannot read {self._source.name}: {error or type(error).__name__}"
                )
            )
            return
        if unread is not None:
            if not self._put(unread):
                return
        elif rest and not self._put((b"".join(rest), self._position())):
            return
        self._put(None)

    def __iter__(self) -> Iterator[tuple[bytes, int] | UnreadLine]:
        while True:
            item = self._queue.get()
            if item is None:
                return
            if isinstance(item, InputError):
                raise item
            yield item

    def close(self) -> None:
        """Stops the reader. It is not waited for while blocked in a read (standard input
        that never ends, after Ctrl-C): it is a daemon thread, gone with the process."""
        self._stop.set()
        self._thread.join(timeout=1.0)


def read_small_file(name: str, limit: int) -> bytes:
    """The bytes of a file of at most ``limit`` bytes (``/dev/zero`` never ends)."""
    try:
        with Path(name).open("rb") as file:
            data = file.read(limit + 1)
    except OSError as error:
        raise InputError(f"cannot read {name}: {error.strerror or error}") from None
    if len(data) > limit:
        raise InputError(f"{name} is larger than {limit >> 20} MiB")
    return data


class Output:
    """Where the records go: standard output, or a file written as a temporary file beside
    it and renamed over it only when the run ends, so that a run that fails (an unreadable
    input, a full disk) leaves an existing file as it was. Devices and pipes (``/dev/null``)
    are written directly.
    """

    def __init__(self, name: str | None) -> None:
        self.name = "standard output" if name in (None, "-") else name
        #: Whether a write failed (the file is then left as it was).
        self.failed = False
        self._target: Path | None = None
        self._temporary: Path | None = None
        if name in (None, "-"):
            self.file: IO[bytes] = sys.stdout.buffer
            return
        path = Path(os.path.realpath(name))
        try:
            mode = path.stat().st_mode
        except FileNotFoundError:
            mode = None
        except OSError as error:
            raise InputError(f"cannot write {name}: {error.strerror or error}") from None
        try:
            if mode is not None and not stat.S_ISREG(mode):
                self.file = path.open("wb")
                return
            self._temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
            descriptor = os.open(
                self._temporary,
                os.O_WRONLY | os.O_CREAT | os.O_TRUNC,
                stat.S_IMODE(mode) if mode is not None else 0o666,
            )
        except OSError as error:
            raise InputError(f"cannot write {name}: {error.strerror or error}") from None
        self._target = path
        self.file = open(descriptor, "wb")  # noqa: SIM115

    def write(self, data: bytes) -> None:
        try:
            self.file.write(data)
        except OSError as error:
            self._failed()
            if isinstance(error, BrokenPipeError):
                raise  # the reader went away (`toolwire extract big.jsonl | head`)
            raise InputError(f"cannot write {self.name}: {error.strerror or error}") from None

    def _failed(self) -> None:
        self.failed = True
        if self.file is sys.stdout.buffer:
            # Nothing more reaches standard output: the interpreter's own flush at exit
            # would fail again and print a traceback.
            with contextlib.suppress(OSError):
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())

    def finish(self, keep: bool) -> None:
        """Flushes and closes; a file's new content replaces the old one when ``keep``."""
        try:
            try:
                self.file.flush()
            except OSError:
                self._failed()
                raise
            if self._temporary is None:
                return
            self.file.close()
            if keep and self._target is not None:
                os.replace(self._temporary, self._target)
                self._temporary = None
        except OSError as error:
            raise InputError(f"cannot write {self.name}: {error.strerror or error}") from None
        finally:
            self.discard()

    def discard(self) -> None:
        """Drops a temporary file not renamed (the run failed)."""
        if self._temporary is not None:
            with contextlib.suppress(OSError):
                self.file.close()
            with contextlib.suppress(OSError):
                self._temporary.unlink()
            self._temporary = None
