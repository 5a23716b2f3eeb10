"""A local, fsynced spool of batches ClickHouse could not take yet.

One file per batch, named by a growing sequence number so replay keeps the
order of acceptance. A file is written to a temporary name, fsynced, renamed
and the directory fsynced: after a crash a batch is either whole or absent.
"""

from __future__ import annotations

import os
import re
import threading
from dataclasses import dataclass

_NAME = re.compile(r"^(\d{16})-([0-9a-f]{32})\.batch$")


@dataclass(frozen=True)
class SpooledBatch:
    path: str
    seq: int
    batch_id: str

    def size(self) -> int:
        return os.path.getsize(self.path)

    def read(self) -> bytes:
        with open(self.path, "rb") as fh:
            return fh.read()


class Spool:
    def __init__(self, directory: str) -> None:
        self.directory = directory
        os.makedirs(directory, exist_ok=True)
        self._lock = threading.Lock()
        existing = self.pending()
        self._next_seq = existing[-1].seq + 1 if existing else 1

    def append(self, batch_id: str, payload: bytes) -> SpooledBatch:
        with self._lock:
            seq = self._next_seq
            self._next_seq += 1
        name = f"{seq:016d}-{batch_id}.batch"
        final = os.path.join(self.directory, name)
        tmp = final + ".tmp"
        with open(tmp, "wb") as fh:
            fh.write(payload)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, final)
        self._fsync_dir()
        return SpooledBatch(final, seq, batch_id)

    def pending(self) -> list[SpooledBatch]:
        batches = []
        for name in os.listdir(self.directory):
            match = _NAME.match(name)
            if match:
                batches.append(
                    SpooledBatch(os.path.join(self.directory, name), int(match[1]), match[2])
                )
            elif name.endswith(".tmp"):
                # a write that never reached its rename: it was never acknowledged
                os.unlink(os.path.join(self.directory, name))
        batches.sort(key=lambda b: b.seq)
        return batches

    def remove(self, batch: SpooledBatch) -> None:
        os.unlink(batch.path)
        self._fsync_dir()

    def _fsync_dir(self) -> None:
        fd = os.open(self.directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
