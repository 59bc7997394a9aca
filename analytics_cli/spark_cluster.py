"""The Spark engine's processes as children of `analytics up` (ANALYTICS_ENGINE=spark).

A standalone master, `ANALYTICS_SPARK_WORKERS` workers and Spark's Thrift server (the JDBC/ODBC
endpoint dbt-spark talks to), all started from the installed `pyspark` package: its folder is a
Spark distribution (jars, `bin/spark-class`, `bin/spark-submit`) without `sbin/` start scripts, so
the classes are started directly. With `ANALYTICS_SPARK_MASTER_URL` the master runs elsewhere and
only the workers and the Thrift server start here.

Everything the cluster keeps lives under `$ANALYTICS_HOME/spark/`: the Hive metastore in embedded
Derby (`metastore/`; in PostgreSQL with `ANALYTICS_SPARK_METASTORE_URL`), the warehouse of the tables that are not in the lake (`warehouse/`), the
workers' scratch space (`work/`), and the configuration written at each start (`conf/`).
"""
from __future__ import annotations

import os
import re
import shutil
import socket
import struct
import subprocess
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable
from urllib.parse import unquote, urlsplit
from xml.sax.saxutils import escape

import click

from pipelines.settings import Settings
from pipelines.spark_master import alive_workers, master_ui_url

JAVA_MINIMUM = 17
INSTALL_JAVA = "install Java 17 or newer (Debian: apt-get install openjdk-17-jre-headless)"
# The JDBC driver of a metastore in PostgreSQL (ANALYTICS_SPARK_METASTORE_URL): pyspark ships none.
POSTGRESQL_JDBC_JAR = Path("/usr/share/java/postgresql.jar")
INSTALL_POSTGRESQL_JDBC = "Debian: apt-get install libpostgresql-jdbc-java"

# Spark logs through log4j2; its default (INFO to the console) goes to the component's log file.
# Warnings that ask nothing of a person are turned down at their logger, so that the console of
# `analytics up` (which shows warnings) stays quiet: Hadoop's native library is optional; the
# metastore records its schema version on first use; the Thrift server warns at every statement
# that a job group it cancels is finished already, when it truncates a plan for its UI, and when the lake's
# `_lake.json` is not a partition; and a statement's error is the client's to report (dbt does).
LOG4J2 = """\
rootLogger.level = info
rootLogger.appenderRef.stdout.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{yy/MM/dd HH:mm:ss} %p %c{1}: %m%n%ex
logger.nativecode.name = org.apache.hadoop.util.NativeCodeLoader
logger.nativecode.level = error
logger.metastore.name = org.apache.hadoop.hive.metastore.ObjectStore
logger.metastore.level = error
logger.hiveconf.name = org.apache.hadoop.hive.conf.HiveConf
logger.hiveconf.level = error
logger.datanucleus.name = DataNucleus
logger.datanucleus.level = error
logger.sessionstate.name = org.apache.hadoop.hive.ql.session.SessionState
logger.sessionstate.level = error
logger.repair.name = org.apache.spark.sql.execution.command.RepairTableCommand
logger.repair.level = error
logger.planstring.name = org.apache.spark.sql.catalyst.util.SparkStringUtils
logger.planstring.level = error
logger.dagscheduler.name = org.apache.spark.scheduler.DAGScheduler
logger.dagscheduler.level = error
logger.statement.name = org.apache.spark.sql.hive.thriftserver.SparkExecuteStatementOperation
logger.statement.level = fatal
"""


# Hive's function registry, which the Thrift server's sessions reach when they close (Hive's
# SessionState.close looks up its thread's metastore handle, and creates one, registering Hive's
# built-in functions, when the thread has none it can reuse), registers the `get_splits` function of
# Hive LLAP, whose class refers to types of the hive-llap-common jar. pyspark 4 does not ship that jar
# (Apache Spark's SPARK-51041): the registry's initialization then fails with NoClassDefFoundError
# `org/apache/hadoop/hive/llap/security/LlapSigner$Signable`, the session's close fails (dbt reports
# `TCloseSessionResp ... NoClassDefFoundError` and fails the run), and every later close that needs
# the registry fails or waits for a registration that never ends. These are the three types the
# registry needs to load, empty (LLAP is not part of Spark: nothing calls them), written as class
# files into a jar on the Thrift server's class path.
LLAP_STUB_JAR = "hive-llap-signer-types.jar"
LLAP_STUB_TYPES = {
    # binary name: whether it is an interface
    "org/apache/hadoop/hive/llap/security/LlapSigner": True,
    "org/apache/hadoop/hive/llap/security/LlapSigner$Signable": True,
    "org/apache/hadoop/hive/llap/security/LlapSigner$SignedMessage": False,
}


def empty_class_file(name: str, interface: bool) -> bytes:
    """A Java class file (version 52, Java 8) of an empty public class or interface `name`."""
    def utf8(text: str) -> bytes:
        data = text.encode()
        return struct.pack(">BH", 1, len(data)) + data

    constants = utf8(name) + struct.pack(">BH", 7, 1) + utf8("java/lang/Object") + struct.pack(">BH", 7, 3)
    access = 0x0601 if interface else 0x0021  # public interface abstract / public super
    return (struct.pack(">IHHH", 0xCAFEBABE, 0, 52, 5) + constants
            + struct.pack(">HHHHHHH", access, 2, 4, 0, 0, 0, 0))


def write_llap_stub_jar(path: Path) -> Path:
    """The jar of LLAP_STUB_TYPES (rewritten at each start, like the configuration)."""
    with zipfile.ZipFile(path, "w") as jar:
        jar.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\r\n\r\n")
        for name, interface in LLAP_STUB_TYPES.items():
            jar.writestr(f"{name}.class", empty_class_file(name, interface))
    return path


class SparkUnavailable(click.ClickException):
    """The engine cannot start on this machine (no Java, no pyspark): one line saying what to do."""


def java_executable(env: dict[str, str] | None = None) -> str:
    """The `java` Spark will run (JAVA_HOME's, else the PATH's); SparkUnavailable when absent or too old."""
    env = os.environ if env is None else env
    java_home = env.get("JAVA_HOME")
    candidate = str(Path(java_home) / "bin" / "java") if java_home else shutil.which("java", path=env.get("PATH"))
    if not candidate or not os.access(candidate, os.X_OK):
        raise SparkUnavailable(f"the Spark engine needs Java, which is not installed: {INSTALL_JAVA}")
    try:
        version = subprocess.run([candidate, "-version"], capture_output=True, text=True, timeout=30).stderr
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise SparkUnavailable(f"the Spark engine needs Java ({candidate} does not run: {exc}): {INSTALL_JAVA}")
    found = re.search(r'version "(\d+)', version)
    if found and int(found.group(1)) < JAVA_MINIMUM:
        raise SparkUnavailable(f"the Spark engine needs Java {JAVA_MINIMUM} or newer, {candidate} is Java "
                               f"{found.group(1)}: {INSTALL_JAVA}")
    return candidate


def spark_home() -> Path:
    """The installed pyspark package's folder, which is SPARK_HOME."""
    try:
        import pyspark
    except ImportError:
        raise SparkUnavailable("the Spark engine needs the project's `spark` extra, which is not installed: "
                               "pip install -e '.[spark]' (make install-dev installs it)") from None
    return Path(pyspark.__file__).resolve().parent


def metastore_driver_jar(settings: Settings) -> Path | None:
    """The PostgreSQL driver's jar when the metastore is in PostgreSQL; SparkUnavailable when it is absent."""
    if settings.spark_metastore_url is None:
        return None
    if not POSTGRESQL_JDBC_JAR.is_file():
        raise SparkUnavailable(f"ANALYTICS_SPARK_METASTORE_URL needs PostgreSQL's JDBC driver, which is not installed "
                               f"({POSTGRESQL_JDBC_JAR}): {INSTALL_POSTGRESQL_JDBC}")
    return POSTGRESQL_JDBC_JAR


def metastore_properties(url: str) -> dict[str, str]:
    """Hive's settings of a metastore in the PostgreSQL database of `url`.

    Spark's Hive client creates the metastore's schema by itself only in embedded Derby (it turns
    schema verification off and DataNucleus' autoCreateAll on for a `jdbc:derby` URL alone); for
    PostgreSQL it is said here, so that the first start creates the tables in the empty database
    and later starts find them.

    Tables and columns, not foreign keys (autoCreateAll would add them): DataNucleus creates each
    table at the first use of its class, on a connection of its own, and the first `create table`
    deadlocked: its transaction had inserted into TBLS, and the foreign key of TBL_PRIVS to TBLS,
    created on the other connection, waited for that transaction's lock while the transaction waited
    for the key. Without foreign keys a table created later locks no other; Hive removes a table's
    rows itself.
    """
    parts = urlsplit(url)
    port = f":{parts.port}" if parts.port else ""
    return {
        "javax.jdo.option.ConnectionURL": f"jdbc:postgresql://{parts.hostname}{port}{parts.path}",
        "javax.jdo.option.ConnectionDriverName": "org.postgresql.Driver",
        "javax.jdo.option.ConnectionUserName": unquote(parts.username or "postgres"),
        "javax.jdo.option.ConnectionPassword": unquote(parts.password or ""),
        "datanucleus.schema.autoCreateTables": "true",
        "datanucleus.schema.autoCreateColumns": "true",
        "datanucleus.schema.autoCreateConstraints": "false",
        "hive.metastore.schema.verification": "false",
    }


def write_hive_site(path: Path, properties: dict[str, str] | None) -> None:
    """`conf/hive-site.xml` (on every Spark process's class path) with `properties`, or none at all."""
    path.unlink(missing_ok=True)
    if properties is None:
        return
    body = "".join(f"  <property><name>{escape(key)}</name><value>{escape(value)}</value></property>\n"
                   for key, value in properties.items())
    # Created readable by its owner alone: it holds the database's password.
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w") as out:
        out.write(f'<?xml version="1.0"?>\n<configuration>\n{body}</configuration>\n')


def prepare_spark_dir(settings: Settings) -> Path:
    """The cluster's folders and configuration under `$ANALYTICS_HOME/spark`."""
    root = settings.spark_dir
    for name in ("conf", "jars", "metastore", "warehouse", "work", "tmp", "tmp/hive"):
        (root / name).mkdir(parents=True, exist_ok=True)
    (root / "conf" / "log4j2.properties").write_text(LOG4J2)
    write_llap_stub_jar(root / "jars" / LLAP_STUB_JAR)
    url = settings.spark_metastore_url
    write_hive_site(root / "conf" / "hive-site.xml", metastore_properties(url) if url else None)
    return root


def spark_environment(settings: Settings, env: dict[str, str]) -> dict[str, str]:
    """The children's environment: SPARK_HOME, the configuration folder, where workers write."""
    home = spark_home()
    root = settings.spark_dir
    spark_env = dict(env)
    spark_env.update({
        "SPARK_HOME": str(home),
        "SPARK_CONF_DIR": str(root / "conf"),
        "SPARK_WORKER_DIR": str(root / "work"),
        "SPARK_LOCAL_DIRS": str(root / "tmp"),
        "SPARK_LOCAL_IP": settings.bind_host,
        # The master's and workers' own temporary files under the home too (Java's default is /tmp).
        "SPARK_DAEMON_JAVA_OPTS": f"-Djava.io.tmpdir={root / 'tmp'}",
    })
    return spark_env


def port_answers(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=1):
            return True
    except OSError:
        return False


def thrift_server_conf(settings: Settings) -> list[str]:
    """The Thrift server's options: the metastore in Derby under the home (or in PostgreSQL, with
    its driver on the class path and its connection in `conf/hive-site.xml`), the warehouse beside it."""
    root = settings.spark_dir
    # The types Hive's function registry needs to load (LLAP_STUB_TYPES): a session's close reaches it.
    class_path = [str(root / "jars" / LLAP_STUB_JAR)]
    driver = metastore_driver_jar(settings)
    if driver:
        class_path.append(str(driver))
    conf = {
        "spark.sql.warehouse.dir": str(root / "warehouse"),
        # Java's temporary folder under the home, not /tmp: the Hive session's scratch and resource
        # folders go there, so deleting $ANALYTICS_HOME removes everything the cluster wrote.
        # The driver's code is compiled by C1 alone (TieredStopAtLevel=1), with the code cache of
        # tiered compilation (240 MB; C1 alone defaults to 48 MB, which filled up and kept the code
        # sweeper busy): the driver plans statements and runs the metastore, a wide code base of
        # which little is hot, and C2 spent about as much CPU compiling it as the driver spent running
        # statements, on the cores the executors share. At 2,000,000 events, one worker: the JIT
        # 76 s -> 9 s, the driver's CPU 97 s -> 49 s (full build) and 52 s -> 29 s (incremental day),
        # its statements no slower.
        "spark.driver.extraJavaOptions": f"-Dderby.system.home={root / 'metastore'} -Djava.io.tmpdir={root / 'tmp'} "
                                         "-XX:TieredStopAtLevel=1 -XX:ReservedCodeCacheSize=240m",
        "spark.driver.extraClassPath": os.pathsep.join(class_path),
        "spark.executor.memory": settings.spark_worker_memory,
        # `insert overwrite` of a partitioned table replaces the partitions its rows fall in, not
        # the whole table (dbt-spark's insert_overwrite strategy by day).
        "spark.sql.sources.partitionOverwriteMode": "dynamic",
        "spark.sql.session.timeZone": "UTC",
        "spark.ui.showConsoleProgress": "false",
        "spark.ui.port": str(settings.spark_thrift_ui_port),
    }
    if settings.spark_shuffle_partitions:
        conf["spark.sql.shuffle.partitions"] = str(settings.spark_shuffle_partitions)
    options = []
    for key, value in conf.items():
        options += ["--conf", f"{key}={value}"]
    # No per-statement operation logs (Hive writes them to files that only its own clients fetch;
    # dbt and the workbench read none): the Spark UI and the Thrift server's log say what ran.
    for key, value in {"hive.server2.thrift.port": settings.spark_thrift_port,
                       "hive.server2.thrift.bind.host": settings.bind_host,
                       "hive.server2.logging.operation.enabled": "false",
                       # Hive's local scratch folder (by default Java's temporary folder and the user's
                       # name), which a closing session lists: made by prepare_spark_dir.
                       "hive.exec.local.scratchdir": root / "tmp" / "hive"}.items():
        options += ["--hiveconf", f"{key}={value}"]
    return options


@dataclass(frozen=True)
class SparkProcess:
    """One process of the cluster, as `analytics up` supervises it (analytics_cli/supervisor.py's Child)."""

    name: str
    argv: list[str]
    url: str | None
    ready: Callable[[], bool]
    detail: str
    port_variable: str | None = None
    # Started only once this holds: a worker after its local master listens (before, it warns that it
    # failed to connect, then retries); the Thrift server's application registers with the master
    # after the workers joined (before, the master warns that no worker can run it).
    start_after: Callable[[], bool] | None = None


def spark_children(settings: Settings) -> list[SparkProcess]:
    """The cluster's processes: master (unless remote), workers, Thrift server."""
    home = spark_home()
    spark_class, spark_submit = str(home / "bin" / "spark-class"), str(home / "bin" / "spark-submit")
    host, master = settings.bind_host, settings.spark_master
    children = []
    # A remote master is not waited for: its workers retry until it answers, as Spark's own do.
    master_listens = None
    if settings.spark_master_url is None:
        master_listens = lambda: port_answers(host, settings.spark_master_port)  # noqa: E731
        children.append(SparkProcess(
            "spark-master",
            [spark_class, "org.apache.spark.deploy.master.Master", "--host", host,
             "--port", str(settings.spark_master_port), "--webui-port", str(settings.spark_master_ui_port)],
            master, port_variable="ANALYTICS_SPARK_MASTER_PORT",
            ready=master_listens,
            detail=f"{master} (status {master_ui_url(settings)})"))
    for number in range(settings.spark_workers):
        children.append(SparkProcess(
            f"spark-worker-{number + 1}",
            [spark_class, "org.apache.spark.deploy.worker.Worker", master, "--host", host,
             "--cores", str(settings.spark_worker_cores), "--memory", settings.spark_worker_memory,
             "--webui-port", "0", "--work-dir", str(settings.spark_dir / "work")],
            None,
            # Workers are alike: the n-th is ready when the master counts n of them.
            ready=lambda count=number + 1: alive_workers(settings) >= count,
            start_after=master_listens,
            detail=f"{settings.spark_worker_cores} core, {settings.spark_worker_memory}, joined {master}"))
    children.append(SparkProcess(
        "spark-thrift",
        [spark_submit, "--class", "org.apache.spark.sql.hive.thriftserver.HiveThriftServer2",
         "--name", "analytics-thrift-server", "--master", master, *thrift_server_conf(settings), "spark-internal"],
        f"jdbc:hive2://{host}:{settings.spark_thrift_port}", port_variable="ANALYTICS_SPARK_THRIFT_PORT",
        ready=lambda: port_answers(host, settings.spark_thrift_port),
        start_after=lambda: alive_workers(settings) >= settings.spark_workers,
        detail=f"jdbc:hive2://{host}:{settings.spark_thrift_port} (dbt target spark)"))
    return children
