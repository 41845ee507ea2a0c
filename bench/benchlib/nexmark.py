"""Deterministic Nexmark event generator writing JSON-lines files.

The stream is Nexmark's: out of every 50 events, 1 person, 3 auctions and 46 bids (2 / 6 / 92 %),
in that order inside each block of 50. Event i has event time START + i / rate; a configurable
fraction of events is written *out of order*: its time is moved back by a random delay of up to
`max_delay_ms`, while its place in the files stays the same.

Field names are snake_case (`date_time`, not Nexmark's `dateTime`) so that every engine's SQL can
name them unquoted: the PostgreSQL grammar of sluice's SQL folds unquoted identifiers to lower
case. Timestamps are ISO-8601 without zone (`2024-01-01T00:00:00.123`), read as UTC everywhere.

Every file is generated from its own seed (seed, file kind, file index), so a data set is the same
byte for byte whatever the order or number of processes that make it.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import shutil
from pathlib import Path

import numpy as np

PERSON, AUCTION, BID = 0, 1, 2
BLOCK = 50                      # events per proportion block
AUCTIONS_PER_BLOCK = 3
BIDS_PER_BLOCK = 46
FIRST_ID = 1000                 # Nexmark's first person / auction id
START_MS = 1_704_067_200_000    # 2024-01-01T00:00:00Z
HOT_RATIO = 2                   # half of the bids go to a "hot" auction / bidder, as Nexmark
CHANNELS = ("Google", "Facebook", "Baidu", "Apple")
BID_COLUMNS = ("auction", "bidder", "price", "channel", "url", "date_time", "extra")
BID_SQL_SCHEMA = ("auction BIGINT, bidder BIGINT, price BIGINT, channel TEXT, url TEXT, "
                  "date_time TIMESTAMP, extra TEXT")
_ALPHABET = np.frombuffer(b"abcdefghijklmnopqrstuvwxyz", dtype="S1")
LAYOUT_VERSION = 1              # bump when the bytes written for the same parameters change


@dataclasses.dataclass(frozen=True)
class StreamSpec:
    """Parameters of one Nexmark stream; equal specs give identical files."""
    events: int                       # total events (persons + auctions + bids)
    events_per_file: int = 50_000
    seed: int = 42
    out_of_order: float = 0.05        # fraction of events whose time is moved back
    max_delay_ms: int = 5_000         # up to this much (below the 10 s watermark of P2)
    events_per_second: int = 1_000    # event-time rate (Nexmark: configurable, default 10,000;
                                      # 1,000 gives P2 enough windows at small sizes)


def _iso(ms: np.ndarray) -> list[str]:
    """Epoch milliseconds -> 'YYYY-MM-DDTHH:MM:SS.mmm' (UTC, no zone)."""
    text = np.datetime_as_string(ms.astype("datetime64[ms]"), unit="ms")
    return text.tolist()


def _words(rng: np.random.Generator, n: int, length: int) -> list[str]:
    """n random lower-case words of `length` letters."""
    letters = rng.integers(0, len(_ALPHABET), size=(n, length))
    return _ALPHABET[letters].view(f"S{length}").ravel().astype(str).tolist()


def _extra(rng: np.random.Generator, n: int) -> list[str]:
    """Padding text of 10..60 letters (Nexmark's `extra`), built from one random pool."""
    pool = "".join(_words(rng, 1, 4096))
    starts = rng.integers(0, 4096 - 64, size=n)
    lens = rng.integers(10, 61, size=n)
    return [pool[s:s + k] for s, k in zip(starts.tolist(), lens.tolist())]


def _event_times(rng: np.random.Generator, spec: StreamSpec, idx: np.ndarray) -> np.ndarray:
    t = START_MS + (idx * 1000) // spec.events_per_second
    late = rng.random(idx.size) < spec.out_of_order
    delay = rng.integers(0, spec.max_delay_ms + 1, size=idx.size)
    return np.where(late, t - delay, t)


def _auctions_before(idx: np.ndarray) -> np.ndarray:
    """Number of auction events before event idx (closed form of the 1/3/46 block layout)."""
    return (idx // BLOCK) * AUCTIONS_PER_BLOCK + np.clip(idx % BLOCK - 1, 0, AUCTIONS_PER_BLOCK)


def _persons_before(idx: np.ndarray) -> np.ndarray:
    return idx // BLOCK + (idx % BLOCK > 0)


def bid_columns(rng: np.random.Generator, spec: StreamSpec, idx: np.ndarray,
                bidders: np.ndarray | None = None) -> dict[str, list]:
    """Bid fields for the bid events at stream positions idx (bidders: override the bidder ids)."""
    n = idx.size
    auctions = np.maximum(_auctions_before(idx), 1)
    persons = np.maximum(_persons_before(idx), 1)
    hot = rng.random(n) < 1 / HOT_RATIO
    # hot: the newest auction / person rounded down to a multiple of 100 (a few ids get many bids);
    # otherwise one of the 100 most recent auctions, any known person.
    hot_auction = (auctions - 1) // 100 * 100
    recent = np.maximum(auctions - 1 - rng.integers(0, 100, size=n), 0)
    auction = FIRST_ID + np.where(hot, hot_auction, recent)
    if bidders is None:
        hot_b = rng.random(n) < 1 / HOT_RATIO
        bidder = FIRST_ID + np.where(hot_b, (persons - 1) // 100 * 100,
                                     rng.integers(0, 1 << 62, size=n) % persons)
    else:
        bidder = bidders
    price = np.round(np.power(10.0, rng.random(n) * 6.0) * 100.0).astype(np.int64)
    channel_ix = rng.integers(0, len(CHANNELS), size=n)
    channel = [CHANNELS[c] for c in channel_ix.tolist()]
    tokens = _words(rng, n, 5)
    url = [f"https://www.nexmark.com/{t[:2]}/{t[2:]}/item.htm?query=1&channel_id={c}"
           for t, c in zip(tokens, channel_ix.tolist())]
    return {"auction": auction.tolist(), "bidder": bidder.tolist(), "price": price.tolist(),
            "channel": channel, "url": url,
            "date_time": _iso(_event_times(rng, spec, idx)), "extra": _extra(rng, n)}


def _bid_lines(cols: dict[str, list]) -> list[str]:
    # Hand-formatted (no quoting needed: generated strings hold only [A-Za-z0-9:/._?=&-]).
    return [f'{{"auction":{a},"bidder":{b},"price":{p},"channel":"{c}","url":"{u}",'
            f'"date_time":"{t}","extra":"{e}"}}'
            for a, b, p, c, u, t, e in zip(*(cols[k] for k in BID_COLUMNS))]


def _person_lines(rng, spec, idx) -> list[str]:
    n = idx.size
    ids = FIRST_ID + _persons_before(idx)
    names, cities = _words(rng, n, 8), _words(rng, n, 6)
    states = _words(rng, n, 2)
    cards = rng.integers(10**15, 10**16, size=n).tolist()
    times, extra = _iso(_event_times(rng, spec, idx)), _extra(rng, n)
    return [f'{{"id":{i},"name":"{nm}","email_address":"{nm}@nexmark.com","credit_card":"{cc}",'
            f'"city":"{ci}","state":"{st}","date_time":"{t}","extra":"{e}"}}'
            for i, nm, cc, ci, st, t, e in zip(ids.tolist(), names, cards, cities, states, times,
                                                extra)]


def _auction_lines(rng, spec, idx) -> list[str]:
    n = idx.size
    ids = FIRST_ID + _auctions_before(idx)
    sellers = FIRST_ID + rng.integers(0, 1 << 62, size=n) % np.maximum(_persons_before(idx), 1)
    initial = np.round(np.power(10.0, rng.random(n) * 6.0) * 100.0).astype(np.int64)
    reserve = initial + rng.integers(0, 10_000, size=n)
    ms = _event_times(rng, spec, idx)
    expires = _iso(ms + rng.integers(1, 60_000, size=n))
    items, descr = _words(rng, n, 10), _words(rng, n, 20)
    category = (10 + rng.integers(0, 5, size=n)).tolist()
    times, extra = _iso(ms), _extra(rng, n)
    return [f'{{"id":{i},"item_name":"{it}","description":"{d}","initial_bid":{ib},'
            f'"reserve":{r},"date_time":"{t}","expires":"{x}","seller":{s},"category":{c},'
            f'"extra":"{e}"}}'
            for i, it, d, ib, r, t, x, s, c, e in zip(
                ids.tolist(), items, descr, initial.tolist(), reserve.tolist(), times, expires,
                sellers.tolist(), category, extra)]


def _write_lines(path: Path, lines: list[str]) -> int:
    """Writes lines under a hidden name, then renames (what a file-source producer must do)."""
    data = ("\n".join(lines) + "\n").encode() if lines else b""
    tmp = path.with_name("." + path.name + ".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)
    return len(data)


class DataSet:
    """A generated directory with a manifest.json that records its parameters and sizes.

    `ensure()` reuses an existing directory whose manifest has the same key, else regenerates it.
    """

    def __init__(self, root: Path, kind: str, params: dict):
        self.params = dict(params, kind=kind, layout=LAYOUT_VERSION)
        key = hashlib.sha256(json.dumps(self.params, sort_keys=True).encode()).hexdigest()[:10]
        self.dir = root.resolve() / f"{kind}-{key}"
        self.manifest_path = self.dir / "manifest.json"

    def ensure(self, build) -> dict:
        if self.manifest_path.exists():
            manifest = json.loads(self.manifest_path.read_text())
            if manifest.get("params") == self.params:
                return manifest
        shutil.rmtree(self.dir, ignore_errors=True)
        self.dir.mkdir(parents=True)
        manifest = {"params": self.params, "dir": str(self.dir), **build(self.dir)}
        self.manifest_path.write_text(json.dumps(manifest, indent=1))
        return manifest


def _stats(paths_bytes: list[tuple[Path, int, int]]) -> dict:
    return {"files": len(paths_bytes), "rows": sum(r for _, r, _ in paths_bytes),
            "bytes": sum(b for _, _, b in paths_bytes)}


def generate_stream(root: Path, spec: StreamSpec) -> dict:
    """The Nexmark stream: person/, auction/, bid/ directories of JSON-lines part files."""
    ds = DataSet(root, "nexmark", dataclasses.asdict(spec))

    def build(dir_: Path) -> dict:
        out = {kind: [] for kind in ("person", "auction", "bid")}
        for kind in out:
            (dir_ / kind).mkdir()
        for k, first in enumerate(range(0, spec.events, spec.events_per_file)):
            idx = np.arange(first, min(first + spec.events_per_file, spec.events), dtype=np.int64)
            pos = idx % BLOCK
            name = f"part-{k:05d}.json"
            for kind, sel, make in (
                    ("person", pos == 0, _person_lines),
                    ("auction", (pos >= 1) & (pos <= AUCTIONS_PER_BLOCK), _auction_lines),
                    ("bid", pos > AUCTIONS_PER_BLOCK,
                     lambda rng, s, i: _bid_lines(bid_columns(rng, s, i)))):
                rng = np.random.default_rng([spec.seed, ("person", "auction", "bid").index(kind),
                                             k])
                lines = make(rng, spec, idx[sel])
                path = dir_ / kind / name
                out[kind].append((path, len(lines), _write_lines(path, lines)))
        return {kind: _stats(v) for kind, v in out.items()}

    return ds.ensure(build)


def generate_small_batches(root: Path, files: int, rows_per_file: int, seed: int) -> dict:
    """P3: `files` bid files of `rows_per_file` rows each (one file = one micro-batch)."""
    spec = StreamSpec(events=files * rows_per_file, seed=seed)
    ds = DataSet(root, "small-batches", {"files": files, "rows_per_file": rows_per_file,
                                         "seed": seed})

    def build(dir_: Path) -> dict:
        (dir_ / "bid").mkdir()
        written = []
        for k in range(files):
            rng = np.random.default_rng([seed, 10, k])
            idx = np.arange(k * rows_per_file, (k + 1) * rows_per_file, dtype=np.int64)
            lines = _bid_lines(bid_columns(rng, spec, idx))
            path = dir_ / "bid" / f"part-{k:05d}.json"
            written.append((path, len(lines), _write_lines(path, lines)))
            # distinct, increasing mtimes: the file source orders a batch's files by mtime
            os.utime(path, ns=(k * 10**9 + 10**18, k * 10**9 + 10**18))
        return {"bid": _stats(written)}

    return ds.ensure(build)


def generate_keyed_state(root: Path, keys: int, tail_files: int, rows_per_tail_file: int,
                         seed: int) -> dict:
    """P4: a first bid file holding every bidder 0..keys-1 once (shuffled), so its batch leaves
    `keys` groups of state, then `tail_files` small files of bids on random bidders of that set."""
    ds = DataSet(root, "keyed-state", {"keys": keys, "tail_files": tail_files,
                                       "rows_per_tail_file": rows_per_tail_file, "seed": seed})

    def build(dir_: Path) -> dict:
        (dir_ / "bid").mkdir()
        spec = StreamSpec(events=keys + tail_files * rows_per_tail_file, seed=seed)
        written = []
        sizes = [keys] + [rows_per_tail_file] * tail_files
        first = 0
        for k, n in enumerate(sizes):
            rng = np.random.default_rng([seed, 20, k])
            idx = np.arange(first, first + n, dtype=np.int64)
            bidders = rng.permutation(keys) if k == 0 else rng.integers(0, keys, size=n)
            lines = _bid_lines(bid_columns(rng, spec, idx, bidders=bidders))
            path = dir_ / "bid" / f"part-{k:05d}.json"
            written.append((path, len(lines), _write_lines(path, lines)))
            os.utime(path, ns=(k * 10**9 + 10**18, k * 10**9 + 10**18))
            first += n
        return {"bid": _stats(written)}

    return ds.ensure(build)
