"""Gunicorn settings shared by the collector and the workbench.

The access log format leaves the remote address out on purpose: an IP address must never reach
a log line (DESIGN.md, privacy rules).
"""
import os

worker_class = "gthread"
threads = int(os.environ.get("ANALYTICS_GUNICORN_THREADS", "8"))
graceful_timeout = 20
timeout = 60
keepalive = 5
accesslog = "-"
errorlog = "-"
access_log_format = '%(t)s "%(m)s %(U)s %(H)s" %(s)s %(B)s %(M)sms'
# Client addresses are read from X-Forwarded-For only when the proxy is trusted; see README.
forwarded_allow_ips = os.environ.get("ANALYTICS_TRUSTED_PROXIES", "127.0.0.1,::1")
# Two gunicorn masters run side by side; the shared default control socket would collide.
control_socket_disable = True
