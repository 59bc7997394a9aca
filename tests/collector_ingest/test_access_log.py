"""The collector's access log (analytics_cli/gunicorn_collector.py): successful beacons are left
out, everything else is logged, and no line carries the client's address."""
from __future__ import annotations

import datetime
from types import SimpleNamespace

from gunicorn.config import Config

from analytics_cli.gunicorn_collector import CollectorLogger


def _log_line(logger, method, path, status):
    response = SimpleNamespace(status=f"{status} X", status_code=status, sent=0, response_length=0, headers=[])
    request = SimpleNamespace(headers=[("X-FORWARDED-FOR", "203.0.113.77")], method=method, path=path,
                              query="", uri=path, version=(1, 1))
    environ = {"REQUEST_METHOD": method, "PATH_INFO": path, "RAW_URI": path, "QUERY_STRING": "",
               "SERVER_PROTOCOL": "HTTP/1.1",
               "REMOTE_ADDR": "203.0.113.77", "HTTP_X_FORWARDED_FOR": "203.0.113.77"}
    logger.access(response, request, environ, datetime.timedelta(milliseconds=3))
    for handler in logger.access_log.handlers:
        handler.flush()


def test_successful_beacons_are_left_out_of_the_access_log(tmp_path):
    import analytics_cli.gunicorn_config as shared

    config = Config()
    config.set("accesslog", str(tmp_path / "access.log"))
    config.set("access_log_format", shared.access_log_format)
    logger = CollectorLogger(config)
    _log_line(logger, "POST", "/collect", 204)
    _log_line(logger, "POST", "/collect", 403)
    _log_line(logger, "POST", "/collect/server", 202)
    _log_line(logger, "GET", "/collect", 200)
    lines = (tmp_path / "access.log").read_text().splitlines()
    assert [line.split('"')[1] for line in lines] == ["POST /collect HTTP/1.1", "POST /collect/server HTTP/1.1",
                                                       "GET /collect HTTP/1.1"]
    assert " 403 " in lines[0]
    assert not any("203.0.113" in line for line in lines)
