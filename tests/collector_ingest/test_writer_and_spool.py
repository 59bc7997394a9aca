"""The write path: store_events, group commit, the spool and its replay (exactly once, in order)."""
from __future__ import annotations

import asyncio
import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from datetime import datetime, timezone

import psycopg
import pytest

from pipelines.admin.privacy_requests import subject_hash, subject_key
from pipelines.ingest import replay_spool, row_from_mapping, store_events
from pipelines.ingest.spool import SpoolSegment, pending_segments
from pipelines.ingest.rows import COLUMNS
from pipelines.ingest.writer import BatchWriter, IdempotencyRecord, commit_units, copy_text, writer_for

SITE = "5f0c4a4e-8d7c-4a51-9a4e-0c1f2b3d4e5f"
DEAD_URL = "postgresql://postgres@/nowhere?host=/nonexistent-socket-dir&port=1"


def row(name: str, **extra) -> tuple:
    now = datetime.now(timezone.utc)
    return row_from_mapping({"site_id": SITE, "occurred_at": now, "received_at": now, "source": "server",
                             "event_type": "event", "event_name": name, "visitor_kind": "none", **extra})


def names(db) -> list[str]:
    return [n for (n,) in db.execute("select event_name from raw.events order by received_at, event_name")]


def wait_for(condition, timeout=10.0):
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached in time")
        time.sleep(0.01)


def test_store_events_takes_mappings_or_rows_with_a_url_or_a_connection(db, database_url):
    now = datetime.now(timezone.utc)
    assert store_events(database_url, [{"site_id": SITE, "occurred_at": now, "source": "import",
                                        "event_type": "event", "event_name": "imported", "visitor_kind": "user",
                                        "user_id": "u1", "props": {"a\tb": "line\nbreak \\ back"},
                                        "items": [{"id": "x"}], "revenue": 12.5}]) == 1
    with psycopg.connect(database_url) as conn:
        conn.execute("select 1")  # the caller's transaction is open
        store_events(conn, [row("tuple")])
        conn.rollback()  # the rows joined it: rolled back with it
    assert names(db) == ["imported"]
    props, items, revenue = db.execute("select props, items, revenue from raw.events").fetchone()
    assert props == {"a\tb": "line\nbreak \\ back"} and items == [{"id": "x"}] and float(revenue) == 12.5
    with pytest.raises(ValueError):
        row_from_mapping({"ip": "1.2.3.4"})


def test_a_group_is_formatted_as_psycopg_formats_it_or_left_to_psycopg(db, database_url):
    """copy_text writes a group in one piece, byte for byte as psycopg's row formatter would; a value
    that needs escaping (or is not text) leaves the group to psycopg, and every value is stored as
    it was either way."""
    from psycopg._copy_base import format_row_text
    from psycopg.adapt import Transformer

    plain = [row("plain", url="https://shop.example/é?q=1", title="Ünïcode ✓", props={"plan": "pro"}),
             row("second", user_id="u-2", visitor_kind="user")]

    expected = bytearray()
    for values in plain:
        format_row_text(values, Transformer(), expected)
    assert copy_text(plain) == bytes(expected)
    assert copy_text([]) == b""
    for odd in ("tab\there", "line\nbreak", "carriage\rreturn", "back\\slash", "nul\x00", 12, b"bytes"):
        values = list(plain[0])
        values[COLUMNS.index("title")] = odd
        assert copy_text([plain[1], tuple(values)]) is None, odd
    assert copy_text([plain[0][:-1]]) is None  # not a row of raw.events
    assert copy_text([tuple(value if value is None else value.replace("Ü", "\udc80") for value in plain[0])]) is None
    escaped = row("escaped", title="tab\t, line\n, back\\slash and \\N")
    assert store_events(database_url, plain) == 2 and store_events(database_url, [escaped]) == 1
    stored = dict(db.execute("select event_name, title from raw.events").fetchall())
    assert stored == {"plain": "Ünïcode ✓", "second": None, "escaped": "tab\t, line\n, back\\slash and \\N"}


def run_in_a_loop_of_its_own(main):
    """asyncio.run in a thread of its own: once a browser test has run, the session's Playwright
    (sync API) keeps an event loop running in the main thread, where asyncio.run refuses to start."""
    with ThreadPoolExecutor(1) as thread:
        return thread.submit(asyncio.run, main).result()


@contextmanager
def writer_behind_a_lock(settings, database_url):
    """A warmed-up writer, and a connection holding raw.events: the writer's next group blocks,
    and what arrives meanwhile queues up until the holder lets go."""
    writer = BatchWriter(database_url, settings.spool_dir, lambda: subject_key(settings))
    try:
        writer.submit([row("warm-up")])
        blocker = psycopg.connect(database_url)
        blocker.execute("lock table raw.events in access exclusive mode")
        yield writer, blocker
    finally:
        writer.stop()


def test_concurrent_submissions_share_one_commit(settings, database_url, db):
    with writer_behind_a_lock(settings, database_url) as (writer, blocker):
        results = []
        threads = [threading.Thread(target=lambda i=i: results.append(writer.submit([row(f"e{i}")] * 3)))
                   for i in range(10)]
        threads[0].start()
        wait_for(lambda: writer._queue.qsize() == 0)
        time.sleep(0.2)  # the writer is now waiting on the lock with the first job
        for t in threads[1:]:
            t.start()
        wait_for(lambda: writer._queue.qsize() == 9)
        commits_before = writer.groups_committed
        blocker.rollback()
        blocker.close()
        for t in threads:
            t.join()
        assert results == ["stored"] * 10
        assert writer.groups_committed - commits_before == 2  # 10 requests, 2 commits
        assert len(names(db)) == 31


def test_group_commit_claims_keys_counts_refusals_and_tells_its_transaction_first(database_url, db):
    """The writer's two-round-trip commit does what write_units does in an explicit transaction."""
    minute = "2026-11-26T07:00:00+00:00"
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute("begin")
        commit_units(conn, [([row("earlier")], IdempotencyRecord(SITE, "b" * 64, "h", {"accepted": 1}), None)],
                     lambda xid: None)
        conn.execute("rollback")  # an explicit transaction around it is not what it is for: nothing kept
        assert names(db) == []
        commit_units(conn, [([row("earlier")], IdempotencyRecord(SITE, "b" * 64, "h", {"accepted": 1}), None)],
                     lambda xid: None)
        seen = []
        duplicate = commit_units(conn, [
            ([row("first"), row("second")], IdempotencyRecord(SITE, "a" * 64, "h", {"accepted": 2}),
             [[SITE, "bot", minute, 2]]),
            ([row("twin")], IdempotencyRecord(SITE, "a" * 64, "h", {"accepted": 1}), [[SITE, "bot", minute, 1]]),
            ([row("retry")], IdempotencyRecord(SITE, "b" * 64, "h", {"accepted": 1}), None),
            ([row("plain")], None, [[SITE, "invalid_payload", minute, 4]]),
        ], lambda xid: seen.append((xid, db.execute("select pg_xact_status(%s::xid8)", (xid,)).fetchone()[0])))
        assert duplicate == [False, True, True, False]
        assert conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE
    ((xid, status_then),) = seen
    assert status_then == "in progress"  # told before the commit could happen
    assert db.execute("select pg_xact_status(%s::xid8)", (xid,)).fetchone() == ("committed",)
    assert sorted(names(db)) == ["earlier", "first", "plain", "second"]
    assert db.execute("select reason, count from collect.rejections order by reason").fetchall() == [
        ("bot", 3), ("invalid_payload", 4)]
    assert db.execute("select count(*) from raw.idempotency_keys").fetchone() == (2,)


def test_a_group_the_database_refuses_is_written_request_by_request(settings, database_url, db):
    writer = BatchWriter(database_url, settings.spool_dir, lambda: subject_key(settings))
    minute = "2026-11-26T07:00:00+00:00"
    try:
        writer.submit([row("warm-up")])
        blocker = psycopg.connect(database_url)
        blocker.execute("lock table raw.events in access exclusive mode")
        results = {}

        def submit(name, rows):
            try:
                results[name] = writer.submit(rows, rejections=[[SITE, "bot", minute, 1]])
            except Exception as exc:
                results[name] = type(exc).__name__

        first = threading.Thread(target=submit, args=("held", [row("held")]))
        first.start()
        wait_for(lambda: writer._queue.qsize() == 0)
        time.sleep(0.2)  # the writer waits on the lock with the first job; the next two make one group
        threads = [threading.Thread(target=submit, args=("bad", [("not-a-uuid",) + row("bad")[1:]])),
                   threading.Thread(target=submit, args=("good", [row("good")]))]
        for t in threads:
            t.start()
        wait_for(lambda: writer._queue.qsize() == 2)
        blocker.rollback()
        blocker.close()
        for t in [first, *threads]:
            t.join()
        assert results == {"held": "stored", "bad": "WriterUnavailable", "good": "stored"}
        assert sorted(names(db)) == ["good", "held", "warm-up"]
        # The refused group's counts were undone with it, then written once with each stored job.
        assert db.execute("select count from collect.rejections").fetchone() == (2,)
    finally:
        writer.stop()


def test_database_down_spools_without_ip_then_replays_exactly_once(settings, db):
    writer = BatchWriter(DEAD_URL, settings.spool_dir, lambda: subject_key(settings))
    try:
        assert writer.submit([row("first", country="GB")]) == "spooled"
        assert writer.submit([row("second")], IdempotencyRecord(SITE, "a" * 64, "h", {"accepted": 1})) == "spooled"
        assert writer.database_down
        (segment,) = pending_segments(settings.spool_dir)
        lines = segment.read_text().splitlines()
        assert [json.loads(line)["rows"][0][5] for line in lines] == ["first", "second"]
        assert replay_spool(settings) == 0  # the live writer still holds its segment
    finally:
        writer.stop()
    assert replay_spool(settings) == 2
    assert names(db) == ["first", "second"]
    assert pending_segments(settings.spool_dir) == []
    assert db.execute("select events from raw.spool_segments").fetchone() == (2,)
    assert db.execute("select count(*) from raw.idempotency_keys").fetchone() == (1,)
    assert replay_spool(settings) == 0 and len(names(db)) == 2


def test_segment_replayed_before_its_file_was_deleted_is_not_written_again(settings, db):
    segment = SpoolSegment(settings.spool_dir)
    segment.append([{"rows": [row("once")], "idempotency": None, "xid": None}])
    segment.close()
    (path,) = pending_segments(settings.spool_dir)
    kept = path.read_bytes()
    assert replay_spool(settings) == 1
    path.write_bytes(kept)  # as if the process died between the commit and the unlink
    assert replay_spool(settings) == 0
    assert names(db) == ["once"] and pending_segments(settings.spool_dir) == []


def test_torn_last_line_and_committed_xids_are_skipped(settings, db, database_url):
    with psycopg.connect(database_url) as conn:
        xid = conn.execute("select pg_current_xact_id()::text").fetchone()[0]
        store_events(conn, [row("committed-before-the-connection-broke")])
    segment = SpoolSegment(settings.spool_dir)
    segment.append([{"rows": [row("committed-before-the-connection-broke")], "idempotency": None, "xid": xid},
                    {"rows": [row("kept")], "idempotency": None, "xid": None}])
    segment.close()
    (path,) = pending_segments(settings.spool_dir)
    with path.open("a") as handle:
        handle.write('{"rows": [["torn')
    assert replay_spool(settings) == 1
    assert sorted(names(db)) == ["committed-before-the-connection-broke", "kept"]


def test_a_segment_the_database_refuses_is_set_aside(settings, db):
    segment = SpoolSegment(settings.spool_dir)
    segment.append([{"rows": [("not-a-uuid",) + row("x")[1:]], "idempotency": None, "xid": None}])
    segment.close()
    good = SpoolSegment(settings.spool_dir)
    good.append([{"rows": [row("good")], "idempotency": None, "xid": None}])
    good.close()
    assert replay_spool(settings) == 1
    assert names(db) == ["good"]
    assert [p.suffix for p in settings.spool_dir.iterdir()] == [".failed"]


def test_writer_replays_its_spool_when_the_database_is_back(settings, database_url, db):
    url = {"value": DEAD_URL}
    writer = BatchWriter(lambda: url["value"], settings.spool_dir, lambda: subject_key(settings))
    writer.RETRY_SECONDS = 0
    try:
        assert writer.submit([row("during-outage")]) == "spooled"
        url["value"] = database_url
        assert writer.submit([row("after-outage")]) == "stored"
        # In order: the spool is replayed in a transaction before the new group's.
        by_commit = [n for (n,) in db.execute("select event_name from raw.events order by xmin::text::bigint")]
        assert by_commit == ["during-outage", "after-outage"]
        assert not writer.database_down and pending_segments(settings.spool_dir) == []
    finally:
        writer.stop()


def test_one_writer_per_process_and_spool(settings):
    assert writer_for(settings, "x") is writer_for(settings, "y")


def test_spooled_events_of_a_person_erased_meanwhile_are_not_replayed(settings, db):
    """A segment left by a worker that died during an outage is replayed later; an erasure carried
    out in between must not be undone by it. An erasure completed before the event was received
    does not apply to it (that is new data)."""
    site = str(db.execute("insert into collect.sites (name) values ('Erased') returning site_id").fetchone()[0])
    key = subject_key(settings)

    def erasure(kind: str, value: str, completed_at: str) -> None:
        db.execute("""insert into collect.privacy_requests
                        (site_id, kind, subject_kind, subject_hash, state, requested_by, completed_at)
                      values (%s, 'erasure', %s, %s, 'done', 'test', %s)""",
                   (site, kind, subject_hash(key, kind, value), completed_at))

    erasure("user_id", "u-old", "2000-01-01T00:00:00Z")  # long before: new events of u-old are kept
    segment = SpoolSegment(settings.spool_dir)
    segment.append([{"rows": [row("by-erased-user", site_id=site, user_id="u-gone", visitor_kind="user"),
                              row("by-erased-visitor", site_id=site, visitor_id="v" * 26, visitor_kind="cookie"),
                              row("by-old-request", site_id=site, user_id="u-old", visitor_kind="user"),
                              row("same-user-other-site", user_id="u-gone", visitor_kind="user"),
                              row("by-someone-else", site_id=site, user_id="u-kept", visitor_kind="user")],
                     "idempotency": None, "xid": None}])
    segment.close()
    erasure("user_id", "u-gone", datetime.now(timezone.utc).isoformat())
    erasure("visitor", "v" * 26, datetime.now(timezone.utc).isoformat())
    assert replay_spool(settings) == 3
    assert sorted(names(db)) == ["by-old-request", "by-someone-else", "same-user-other-site"]


def test_coroutines_share_a_commit_and_are_woken_together(settings, database_url, db):
    with writer_behind_a_lock(settings, database_url) as (writer, blocker):
        async def submit_all():
            tasks = [asyncio.create_task(writer.submit_async([row(f"c{i}")] * 2)) for i in range(10)]
            await asyncio.sleep(0)  # every coroutine has queued its job
            commits_before = writer.groups_committed
            await asyncio.get_running_loop().run_in_executor(None, lambda: (blocker.rollback(), blocker.close()))
            return await asyncio.gather(*tasks), writer.groups_committed - commits_before

        outcomes, commits = run_in_a_loop_of_its_own(submit_all())
        assert outcomes == ["stored"] * 10
        assert commits <= 2  # the first job's group, waiting on the lock, and the other nine together
        assert len(names(db)) == 21


def test_coroutines_events_are_spooled_while_the_database_is_down(settings):
    writer = BatchWriter(DEAD_URL, settings.spool_dir, lambda: subject_key(settings))
    try:
        async def submit():
            return await asyncio.gather(writer.submit_async([row("a")]), writer.submit_async([row("b")]))

        assert run_in_a_loop_of_its_own(submit()) == ["spooled", "spooled"]
        (segment,) = pending_segments(settings.spool_dir)
        assert [json.loads(line)["rows"][0][5] for line in segment.read_text().splitlines()] in (["a", "b"], ["b", "a"])
    finally:
        writer.stop()


def test_a_coroutine_is_answered_unavailable_when_the_writer_never_finishes(settings, database_url, monkeypatch):
    from pipelines.ingest import writer as writer_module
    from pipelines.ingest.writer import WriterUnavailable

    writer = BatchWriter(database_url, settings.spool_dir, lambda: subject_key(settings))
    stuck = threading.Event()
    monkeypatch.setattr(writer, "_write", lambda group: stuck.wait(30))  # a hung disk or database
    monkeypatch.setattr(writer_module._Deadlines, "SECONDS", 0.0)
    try:
        async def submit():
            with pytest.raises(WriterUnavailable):
                await writer.submit_async([row("never")])

        run_in_a_loop_of_its_own(submit())
    finally:
        stuck.set()
        writer.stop()


def test_a_finished_event_loop_takes_its_deadlines_with_it(settings, database_url):
    import gc
    import weakref

    writer = BatchWriter(database_url, settings.spool_dir, lambda: subject_key(settings))
    loops = []
    try:
        async def submit():
            loops.append(weakref.ref(asyncio.get_running_loop()))
            return await writer.submit_async([row("once")])

        for _ in range(3):  # each asyncio.run is a loop of its own, closed at its end
            assert run_in_a_loop_of_its_own(submit()) == "stored"
    finally:
        writer.stop()  # its thread held the last group's jobs (and their loop) until its next wait
    gc.collect()
    assert [ref() for ref in loops] == [None, None, None]


def test_group_commit_checks_and_counts_server_keys_with_their_rows(database_url, db):
    """A unit with a KeyCheck writes its rows only when its key is still active with the identity
    given; the events of all the group's units of a key are counted once, or not at all."""
    from pipelines.admin.server_keys import create_server_key, revoke_server_key, secret_hash
    from pipelines.ingest.writer import KeyCheck

    site = str(db.execute("insert into collect.sites (name) values ('K') returning site_id").fetchone()[0])
    keys = []
    for limit in (10, 10, 10):
        with db.transaction():
            key = create_server_key(db, site, actor="test", rate_limit_per_minute=limit)
        keys.append(KeyCheck(secret_hash(key["secret"]), str(key["id"]), site, False, 0))
    with db.transaction():
        revoke_server_key(db, site, keys[2].key_id, actor="test")

    def check(key: KeyCheck, events: int, **changed) -> KeyCheck:
        return KeyCheck(**{**key.__dict__, "events": events, **changed})

    units = [([row("a1", site_id=site)], None, None), ([row("a2", site_id=site)], None, None),
             ([row("b", site_id=site)], None, None), ([row("b-user-ids", site_id=site)], None, None),
             ([row("revoked", site_id=site)], None, None), ([row("plain")], None, None)]
    checks = [check(keys[0], 4), check(keys[0], 5), check(keys[1], 11), check(keys[1], 1, accept_user_id=True),
              check(keys[2], 1), None]
    seen = []
    with psycopg.connect(database_url, autocommit=True) as conn:
        duplicate = commit_units(conn, units, lambda xid: None, checks, seen.append)
    # keys[0]: 4 + 5 fit its 10; keys[1]: 11 do not; the same key cached with another identity is
    # left to its own check; a revoked key writes nothing.
    assert seen == [[True, True, False, False, False, True]] and duplicate == [False] * 6
    assert sorted(names(db)) == ["a1", "a2", "plain"]
    usage = dict(db.execute("select key_id::text, events from collect.server_key_usage").fetchall())
    assert usage == {keys[0].key_id: 9}
    # The count was committed in a transaction of its own, before the events' (see commit_units).
    (count_xmin,) = db.execute("select xmin::text from collect.server_key_usage").fetchone()
    assert db.execute("select array_agg(distinct xmin::text) from raw.events").fetchone()[0] != [count_xmin]
    stale = db.execute("select key_id::text from collect.server_keys where last_used_at is null").fetchall()
    assert [k for (k,) in stale] == [keys[2].key_id]  # the use of an active key is recorded, as its own check does


def test_a_key_check_is_never_spooled_unconfirmed(tmp_path):
    """While the database is down, a job whose key the writer could not check is not acknowledged
    from the spool: it comes back `unchecked`, for the request's own check to answer."""
    from pipelines.ingest.writer import KeyCheck

    writer = BatchWriter(DEAD_URL, tmp_path / "spool", lambda: b"k" * 32)
    try:
        key = KeyCheck(b"h" * 32, SITE, SITE, False, 1)
        assert writer.submit([row("checked")], key_check=key, timeout=10) == "unchecked"
        assert writer.submit([row("plain")], timeout=10) == "spooled"
        spooled = "".join(p.read_text() for p in (tmp_path / "spool").glob("*.jsonl"))
        assert "plain" in spooled and "checked" not in spooled
    finally:
        writer.stop()
