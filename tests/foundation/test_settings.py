import stat

import pytest

from pipelines.settings import Settings, SettingsError


def test_defaults(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    settings = Settings.from_env({})
    assert settings.home == tmp_path / ".analytics"
    assert settings.embedded
    assert (settings.collector_port, settings.workbench_port, settings.dagster_port) == (8000, 8080, 3000)


def test_environment_overrides(tmp_path):
    settings = Settings.from_env({
        "ANALYTICS_HOME": str(tmp_path / "h"),
        "ANALYTICS_DATABASE_URL": "postgresql://u:p@db.internal:5433/a",
        "ANALYTICS_COLLECTOR_PORT": "9000",
        "ANALYTICS_WORKBENCH_PORT": "9001",
        "ANALYTICS_DAGSTER_PORT": "9002",
    })
    assert settings.home == tmp_path / "h"
    assert not settings.embedded
    assert (settings.collector_port, settings.workbench_port, settings.dagster_port) == (9000, 9001, 9002)


@pytest.mark.parametrize("value", ["abc", "0", "70000", "-1"])
def test_bad_port_is_a_clear_error(value):
    with pytest.raises(SettingsError, match="ANALYTICS_COLLECTOR_PORT"):
        Settings.from_env({"ANALYTICS_COLLECTOR_PORT": value})


def test_server_secret_generated_once_owner_only(tmp_path):
    settings = Settings.from_env({"ANALYTICS_HOME": str(tmp_path / "home")})
    first = settings.server_secret()
    path = tmp_path / "home" / "server-secret"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert len(first) >= 32
    assert Settings.from_env({"ANALYTICS_HOME": str(tmp_path / "home")}).server_secret() == first


def test_given_secret_wins_and_writes_nothing(tmp_path):
    settings = Settings.from_env({"ANALYTICS_HOME": str(tmp_path / "home"), "ANALYTICS_SECRET": "given"})
    assert settings.server_secret() == b"given"
    assert not (tmp_path / "home").exists()


def test_lake_settings(tmp_path):
    default = Settings.from_env({"ANALYTICS_HOME": str(tmp_path / "h")})
    assert default.lake_path == tmp_path / "h" / "lake" and default.workbench_reads == "lake"
    chosen = Settings.from_env({"ANALYTICS_HOME": str(tmp_path / "h"), "ANALYTICS_LAKE_PATH": str(tmp_path / "shared"),
                                "ANALYTICS_WORKBENCH_READS": "Postgres"})
    assert chosen.lake_path == tmp_path / "shared" and chosen.workbench_reads == "postgres"
    with pytest.raises(SettingsError, match="ANALYTICS_WORKBENCH_READS must be one of lake, postgres"):
        Settings.from_env({"ANALYTICS_WORKBENCH_READS": "spark"})


def test_engine_settings(tmp_path):
    default = Settings.from_env({"ANALYTICS_HOME": str(tmp_path / "h")})
    assert default.engine == "postgres" and default.spark_workers == 2 and default.spark_shuffle_partitions == 0
    assert default.spark_master == "spark://127.0.0.1:7077" and default.spark_dir == tmp_path / "h" / "spark"
    remote = Settings.from_env({"ANALYTICS_ENGINE": "Spark", "ANALYTICS_SPARK_WORKERS": "0",
                                "ANALYTICS_SPARK_MASTER_URL": "spark://10.0.0.5:7077",
                                "ANALYTICS_SPARK_WORKER_MEMORY": "2G", "ANALYTICS_SPARK_SHUFFLE_PARTITIONS": "8"})
    assert (remote.engine, remote.spark_workers, remote.spark_master, remote.spark_worker_memory,
            remote.spark_shuffle_partitions) == ("spark", 0, "spark://10.0.0.5:7077", "2g", 8)
    with pytest.raises(SettingsError, match="ANALYTICS_ENGINE must be one of postgres, spark"):
        Settings.from_env({"ANALYTICS_ENGINE": "trino"})
    with pytest.raises(SettingsError, match="ANALYTICS_SPARK_MASTER_URL must be a master address"):
        Settings.from_env({"ANALYTICS_SPARK_MASTER_URL": "10.0.0.5"})
    with pytest.raises(SettingsError, match="ANALYTICS_SPARK_WORKER_MEMORY must be a memory size"):
        Settings.from_env({"ANALYTICS_SPARK_WORKER_MEMORY": "lots"})
    assert default.spark_worker_wait_seconds == 120
    assert Settings.from_env({"ANALYTICS_SPARK_WORKER_WAIT_SECONDS": "30"}).spark_worker_wait_seconds == 30
    with pytest.raises(SettingsError, match="ANALYTICS_SPARK_WORKER_WAIT_SECONDS"):
        Settings.from_env({"ANALYTICS_SPARK_WORKER_WAIT_SECONDS": "0"})
    assert default.spark_metastore_url is None
    metastore = "postgresql://hive:secret@10.0.0.5:5432/metastore"
    assert Settings.from_env({"ANALYTICS_SPARK_METASTORE_URL": metastore}).spark_metastore_url == metastore
    assert "secret" not in repr(Settings.from_env({"ANALYTICS_SPARK_METASTORE_URL": metastore}))
    # JDBC reaches no Unix socket: the embedded server's URL (a socket folder) is refused, without its password.
    for refused in ("postgresql://hive:secret@/metastore?host=/run/pg", "jdbc:derby:metastore",
                    "postgresql://hive:secret@10.0.0.5/"):
        with pytest.raises(SettingsError, match="ANALYTICS_SPARK_METASTORE_URL must be a PostgreSQL URL") as raised:
            Settings.from_env({"ANALYTICS_SPARK_METASTORE_URL": refused})
        assert "secret" not in str(raised.value)
