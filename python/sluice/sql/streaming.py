"""PySpark's StreamingQuery and StreamingQueryManager (pyspark.sql.streaming)."""
import json

from sluice._native import native
from sluice.errors import StreamingQueryException


def _seconds_to_ms(timeout):
    if timeout is None:
        return -1
    if not isinstance(timeout, (int, float)) or isinstance(timeout, bool) or timeout < 0:
        from sluice.errors import PySparkValueError
        raise PySparkValueError(f"timeout should be a non-negative number of seconds, got {timeout!r}")
    return int(timeout * 1000)


class StreamingQuery:
    """A handle on a running (or finished) query."""

    def __init__(self, native_query, session, plan=None):
        self._q = native_query
        self._session = session
        self._plan = plan  # the started DataFrame's plan text (explain)

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
        """Prints the plan the query runs (sluice's plan text, as DataFrame.explain prints it)."""
        print(self._plan if self._plan is not None else "No physical plan. Waiting for data.")

    def __repr__(self):
        return f"<StreamingQuery id={self.id} runId={self.runId} name={self.name}>"


class StreamingQueryListener:
    """Subclass and register with spark.streams.addListener(listener). onQueryStarted runs on
    the thread that calls start(); the other events on the query's thread, in order. Keep them
    short: the batch waits. An exception in a callback is reported and ignored."""

    def onQueryStarted(self, event):
        pass

    def onQueryProgress(self, event):
        pass

    def onQueryIdle(self, event):
        pass

    def onQueryTerminated(self, event):
        pass


class _Event:
    """An event's fields as attributes (PySpark's QueryStartedEvent, QueryIdleEvent, ...)."""

    def __init__(self, **fields):
        self.__dict__.update(fields)

    def __repr__(self):
        return f"{type(self).__name__}({self.__dict__})"


class QueryStartedEvent(_Event):
    pass


class QueryIdleEvent(_Event):
    pass


class QueryTerminatedEvent(_Event):
    pass


class StreamingQueryProgress:
    """One batch's progress (PySpark's StreamingQueryProgress): Spark's field names as
    attributes (progress.batchId, progress.numInputRows, ...), plus json and prettyJson."""

    def __init__(self, text):
        self.json = text
        self._fields = json.loads(text)

    @property
    def prettyJson(self):
        return json.dumps(self._fields, indent=2)

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return self._fields[name]
        except KeyError:
            raise AttributeError(name) from None

    def __repr__(self):
        return self.prettyJson


class QueryProgressEvent:
    def __init__(self, progress):
        self.progress = StreamingQueryProgress(progress)


def _dispatcher(listener):
    def dispatch(kind, fields):
        if kind == "started":
            listener.onQueryStarted(QueryStartedEvent(**{**fields, "name": fields["name"] or None}))
        elif kind == "progress":
            listener.onQueryProgress(QueryProgressEvent(fields["progress"]))
        elif kind == "idle":
            listener.onQueryIdle(QueryIdleEvent(**fields))
        elif kind == "terminated":
            listener.onQueryTerminated(QueryTerminatedEvent(**fields))
    return dispatch


class StreamingQueryManager:
    """spark.streams: the queries this session started."""

    def __init__(self, session):
        self._session = session
        self._known = {}  # runId -> StreamingQuery: one Python handle per run
        self._listeners = {}  # id(listener) -> (listener, native handle)

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
        if not isinstance(listener, StreamingQueryListener):
            from sluice.errors import PySparkTypeError
            raise PySparkTypeError("addListener takes a StreamingQueryListener")
        if id(listener) not in self._listeners:
            handle = native.add_listener(self._session._native, _dispatcher(listener))
            self._listeners[id(listener)] = (listener, handle)

    def removeListener(self, listener):
        entry = self._listeners.pop(id(listener), None)
        if entry is not None:
            native.remove_listener(self._session._native, entry[1])
