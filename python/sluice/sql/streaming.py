"""PySpark's StreamingQuery and StreamingQueryManager (pyspark.sql.streaming)."""
import json

from sluice.errors import StreamingQueryException, not_supported


def _seconds_to_ms(timeout):
    if timeout is None:
        return -1
    if not isinstance(timeout, (int, float)) or isinstance(timeout, bool) or timeout < 0:
        from sluice.errors import PySparkValueError
        raise PySparkValueError(f"timeout should be a non-negative number of seconds, got {timeout!r}")
    return int(timeout * 1000)


class StreamingQuery:
    """A handle on a running (or finished) query."""

    def __init__(self, native_query, session):
        self._q = native_query
        self._session = session

    @property
    def id(self):
        return self._q.id

    @property
    def runId(self):
        return self._q.run_id

    @property
    def name(self):
        return self._q.name or None

    @property
    def isActive(self):
        return self._q.is_active

    @property
    def status(self):
        message, data, trigger = self._q.status
        return {"message": message, "isDataAvailable": data, "isTriggerActive": trigger}

    @property
    def lastProgress(self):
        text = self._q.last_progress
        return json.loads(text) if text else None

    @property
    def recentProgress(self):
        return [json.loads(p) for p in self._q.recent_progress]

    def awaitTermination(self, timeout=None):
        """Waits for the end of the query (raising StreamingQueryException if it failed); with a
        timeout in seconds, returns whether it ended in time."""
        ended = self._q.await_termination(_seconds_to_ms(timeout))
        return None if timeout is None else ended

    def processAllAvailable(self):
        self._q.process_all_available()

    def stop(self):
        self._q.stop()

    def exception(self):
        message = self._q.exception()
        return None if message is None else StreamingQueryException(message)

    def explain(self, extended=False):
        raise not_supported("StreamingQuery.explain (use DataFrame.explain)")

    def __repr__(self):
        return f"<StreamingQuery id={self.id} runId={self.runId} name={self.name}>"


class StreamingQueryListener:
    """Base class of query listeners (registering them is not supported yet)."""

    def onQueryStarted(self, event):
        pass

    def onQueryProgress(self, event):
        pass

    def onQueryIdle(self, event):
        pass

    def onQueryTerminated(self, event):
        pass


class StreamingQueryManager:
    """spark.streams: the queries this session started."""

    def __init__(self, session):
        self._session = session
        self._known = {}  # runId -> StreamingQuery: one Python handle per run

    def _started(self, query):
        self._known[query.runId] = query
        return query

    def _wrap(self, native_query):
        known = self._known.get(native_query.run_id)
        return known if known is not None else self._started(StreamingQuery(native_query, self._session))

    @property
    def active(self):
        return [self._wrap(q) for q in self._session._native.active()]

    def get(self, id):
        q = self._session._native.get(id)
        return None if q is None else self._wrap(q)

    def awaitAnyTermination(self, timeout=None):
        ended = self._session._native.await_any_termination(_seconds_to_ms(timeout))
        return None if timeout is None else ended

    def resetTerminated(self):
        self._session._native.reset_terminated()

    def addListener(self, listener):
        raise not_supported("StreamingQueryManager.addListener")

    def removeListener(self, listener):
        raise not_supported("StreamingQueryManager.removeListener")
