"""Input and output for the CLI: plain or compressed files and ``-``, read as whole-line chunks
in a background thread (so reading and decompressing overlap the parse), in bounded memory
whatever the input; output written so that a failed run never damages an existing file."""

from __future__ import annotations

import codecs
import contextlib
import importlib.util
import os
import queue
import stat
import sys
import threading
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

__all__ = [
    "CHUNK_BYTES",
    "MAX_LINE_BYTES",
    "Input",
    "InputError",
    "LineChunks",
    "Output",
    "UnreadLine",
    "failed",
    "open_input",
    "read_small_file",
    "run_streams",
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


class _Decompressed:
    """A compressed stream of one or more gzip members or zstd frames, decompressed.

    Compressed input is fed in small blocks, so the output of one block stays bounded (a small
    file that inflates to gigabytes is read like any other), and every byte decompressed before
    a file that ends early is returned; the truncation, or corrupt data, is raised by the read
    after it (:class:`gzip.GzipFile` raises at once and drops what its read had decompressed).
    """

    def __init__(self, raw: Any, name: str, kind: str) -> None:
        self._raw = raw
        self._name = name
        self._kind = kind
        self._decompressor = self._new()
        self._leftover = b""  # compressed bytes of the next member or frame
        self._started = False  # whether the current member or frame has had input
        self._output = bytearray()
        self._failure: InputError | None = None

    def _new(self) -> Any:
        if self._kind == "gzip":
            return zlib.decompressobj(wbits=31)
        import zstandard

        return zstandard.ZstdDecompressor().decompressobj()

    def _fill(self, size: int) -> None:
        """Decompresses until ``size`` bytes are ready, the input ends, or it fails."""
        # A deflate block inflates at most about 1000-fold, a zstd one 32768-fold: blocks of
        # these sizes give at most a few dozen MiB at once.
        block = 16384 if self._kind == "gzip" else 1024
        while len(self._output) < size and self._failure is None:
            if self._decompressor.eof:  # the next member or frame
                self._leftover = self._decompressor.unused_data + self._leftover
                self._decompressor = self._new()
                self._started = False
            data, self._leftover = self._leftover or self._raw.read(block), b""
            if not self._started and data and not data.strip(b"\0"):
                continue  # zero padding after the last member
            if not data:
                if self._started and not self._decompressor.eof:
                    self._failure = InputError(
                        f"cannot read {self._name}: the {self._kind} data ends early (truncated)"
                    )
                return
            self._started = True
            try:
                self._output += self._decompressor.decompress(data)
            except Exception as error:  # zlib.error, zstandard.ZstdError
                self._failure = InputError(
                    f"cannot read {self._name}: corrupt {self._kind} data ({error})"
                )

    def read(self, size: int) -> bytes:
        self._fill(size)
        if not self._output and self._failure is not None:
            raise self._failure
        if len(self._output) <= size:
            out = bytes(self._output)
            self._output.clear()
        else:
            out = bytes(memoryview(self._output)[:size])
            del self._output[:size]
        return out

    def close(self) -> None:
        self._raw.close()


def _stdin() -> IO[bytes]:
    """Standard input without Python's buffer and its lock: the reader thread may be left
    blocked in ``read`` when Ctrl-C ends the run, which must not hold up the exit."""
    return open(os.dup(sys.stdin.fileno()), "rb", buffering=0)


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
    that is not UTF-8 (an image, an archive), or NUL bytes by the dozen, more than one byte in
    a hundred (UTF-16). A stray NUL in UTF-8 text only makes its line a bad line."""
    nuls = block.count(b"\0")
    if not nuls:
        return False
    if nuls > max(8, len(block) // 100):
        return True
    try:
        codecs.getincrementaldecoder("utf-8")().decode(block, final=False)
    except UnicodeDecodeError:
        return True
    return False


class _Whole:
    """Reads of ``size`` bytes, fewer only at the end (a pipe's or a decompressor's reads
    return what they hold); a failure after some data is raised by the next read, so that
    data is not lost with it."""

    def __init__(self, reader: Any) -> None:
        self._reader = reader
        self._failure: BaseException | None = None

    def read(self, size: int) -> bytes:
        if self._failure is not None:
            failure, self._failure = self._failure, None
            raise failure
        parts: list[bytes] = []
        while size > 0:
            try:
                part: bytes = self._reader.read(size)
            except Exception as error:
                if not parts:
                    raise
                self._failure = error
                break
            if not part:
                break
            parts.append(part)
            size -= len(part)
        return b"".join(parts)

    def close(self) -> None:
        self._reader.close()


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
    reader: Any = _Prefixed(magic, raw)
    if kind == "zstd" and importlib.util.find_spec("zstandard") is None:
        raw.close()
        raise InputError(
            "reading zstd files needs the zstandard package: pip install 'toolwire[zstd]'"
        )
    if kind in ("gzip", "zstd"):
        reader = _Decompressed(reader, name, kind)
    elif kind is not None:
        raw.close()
        raise InputError(f"{name} is {kind} data; toolwire reads plain, gzip or zstd JSONL")
    reader = _Whole(reader)
    try:
        head = reader.read(65536)
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
                    message or f"cannot read {self._source.name}: {error or type(error).__name__}"
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
        self.file = open(descriptor, "wb")

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


def failed(error: Exception | str) -> int:
    """Says why on one line of stderr; exit status 2."""
    print(f"toolwire: {error}", file=sys.stderr)
    return 2


def run_streams(
    input_name: str, output_name: str | None, work: Callable[[Input, Output], int]
) -> int:
    """Opens the input, then the output (once the input is known to be readable), and runs
    ``work`` on them; its exit status, 1 when the reader of standard output went away, or 2
    when the input or output cannot be used. What was written is kept, also before an input
    that fails part way (a truncated file); a failed write leaves an existing file as it was.
    """
    try:
        source = open_input(input_name)
    except InputError as error:
        return failed(error)
    try:
        sink = Output(output_name)
    except InputError as error:
        source.close()
        return failed(error)
    status = 2
    try:
        status = work(source, sink)
    except InputError as error:
        status = failed(error)
    except BrokenPipeError:
        status = 1  # `toolwire extract big.jsonl | head`: stop quietly
    finally:
        source.close()
        try:
            sink.finish(keep=not sink.failed)
        except InputError as error:
            status = failed(error)
    return status
