"""The collector's Flask app prepared for a worker process: its event writer started, the user-agent
and crawler tables loaded, the garbage collector's view frozen. `collector_app.asgi` serves it
(as `analytics up` does); it is also a plain WSGI app for any WSGI server."""
import gc

from collector_app.app import create_app
from collector_app.collect_api import start_ingestion
from pipelines.ingest.browser import is_bot
from pipelines.ingest.visitors import device_of

app = create_app()
start_ingestion(app)

# Load the user-agent and crawler tables now, then move everything loaded so far out of the
# garbage collector's reach: those tens of thousands of long-lived objects (compiled patterns
# above all) were traversed by every full collection, a pause of about 0.1 s every few seconds
# under load that every request of the worker waited through.
_SAMPLE_AGENT = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"
device_of(_SAMPLE_AGENT)
is_bot(_SAMPLE_AGENT)
gc.freeze()
