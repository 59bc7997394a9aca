"""Reference forecasts for the browser's forecast module, computed by statsmodels.

Writes ``src/features/forecast/fixtures/*.json`` and ``fixtures/families/*.json``, which
``forecast.test.ts`` compares with the TypeScript implementation. CI never runs this script: it tests against the committed files.
statsmodels is not a dependency of the project; to regenerate, install it into the venv by hand:

    .venv/bin/pip install statsmodels
    .venv/bin/python workbench_app/frontend/scripts/make_forecast_fixtures.py

The models are the ones the module fits: ETS(A,A,A) (Holt-Winters), ETS(A,A,N) (Holt's smoothed
trend), both with statsmodels' "simple" initial states passed as known states, and an OLS line
on the period index. Each ETS series is recorded twice: with fixed smoothing parameters (the
recursions and the interval must agree to rounding) and with parameters fitted by statsmodels
(maximum likelihood, which for additive errors is least squares of the one-step errors).

The families (daily additive, quarterly, monthly multiplicative, short weekly, hourly) are new
series, several per family, each with its last 12 periods held out. For each series the file
records statsmodels as an analyst uses it: ``ExponentialSmoothing`` with an additive trend, damped
or not, and an additive or (positive series) multiplicative season of the bucket's length (no
season below two seasons), initial states estimated, the model with the lowest AICc kept; its
forecast of the held-out periods is what the module's accuracy is compared with. The family's
longest series also records ETSModel's answers for the family's model with fixed parameters and the
heuristic initial states (the recursions and the interval must agree; a multiplicative model's
interval is simulated by statsmodels, so it agrees only to the simulation's precision).
"""

from __future__ import annotations

import json
import math
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pandas as pd
import statsmodels
import statsmodels.api as sm
from statsmodels.tsa.exponential_smoothing.ets import ETSModel
from statsmodels.tsa.exponential_smoothing.initialization import _initialization_heuristic, _initialization_simple
from statsmodels.tsa.holtwinters import ExponentialSmoothing

FIXTURES = Path(__file__).resolve().parent.parent / "src" / "features" / "forecast" / "fixtures"
HORIZON = 12
ALPHA = 0.2  # an 80 % interval
FIXED = {"smoothing_level": 0.3, "smoothing_trend": 0.05, "smoothing_seasonal": 0.2}


def epoch_ms(moment: pd.Timestamp) -> int:
    return int(moment.tz_localize("UTC").timestamp() * 1000)


def noise(count: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).normal(0.0, 1.0, count)


def ets_reference(values: np.ndarray, season: int | None) -> dict:
    """Fixed-parameter and fitted ETS(A,A,A) or ETS(A,A,N) on known simple initial states."""
    seasonal = "add" if season else None
    level, trend, seasonal_states = _initialization_simple(values, trend="add", seasonal=seasonal, seasonal_periods=season)
    initial = {"initial_level": float(level), "initial_trend": float(trend)}
    if season:
        initial["initial_seasonal"] = [float(s) for s in seasonal_states]

    def model() -> ETSModel:
        return ETSModel(
            # A pandas series: statsmodels' prediction frame needs an index.
            pd.Series(values), error="add", trend="add", seasonal=seasonal, seasonal_periods=season,
            initialization_method="known", **initial,
        )

    fixed_params = {k: v for k, v in FIXED.items() if season or k != "smoothing_seasonal"}
    # ETS's beta is alpha times Holt's beta*: fixed values respect beta <= alpha and gamma <= 1 - alpha.
    fixed_model = model()
    with fixed_model.fix_params(fixed_params):
        fixed = fixed_model.fit(disp=False)
    fitted = model().fit(disp=False)
    return {
        "initial": initial,
        "fixed": describe(fixed, fixed_params),
        "optimised": describe(fitted, None),
    }


def describe(result, params: dict | None) -> dict:
    frame = result.get_prediction(start=len(result.fittedvalues), end=len(result.fittedvalues) + HORIZON - 1).summary_frame(alpha=ALPHA)
    names = ["smoothing_level", "smoothing_trend", "smoothing_seasonal"]
    return {
        "params": params or {name: float(result.params[i]) for i, name in enumerate(result.model.param_names) if name in names},
        "fitted": [float(v) for v in result.fittedvalues],
        "sse": float(result.sse),
        "mse": float(result.mse),
        "mean": [float(v) for v in frame["mean"]],
        "lower": [float(v) for v in frame["pi_lower"]],
        "upper": [float(v) for v in frame["pi_upper"]],
    }


def line_reference(values: np.ndarray) -> dict:
    index = np.arange(len(values), dtype=float)
    fit = sm.OLS(values, sm.add_constant(index)).fit()
    future = np.arange(len(values), len(values) + HORIZON, dtype=float)
    frame = fit.get_prediction(sm.add_constant(future, has_constant="add")).summary_frame(alpha=ALPHA)
    return {
        "intercept": float(fit.params[0]),
        "slope": float(fit.params[1]),
        "mean": [float(v) for v in frame["mean"]],
        "lower": [float(v) for v in frame["obs_ci_lower"]],
        "upper": [float(v) for v in frame["obs_ci_upper"]],
    }


def series(name: str, bucket: str, stamps: pd.DatetimeIndex, values, model: str, season: int | None = None, note: str = "") -> dict:
    """One fixture: the input points as the chart gives them, and statsmodels' answers."""
    points = [
        {"t": epoch_ms(stamp), "value": None if value is None or (isinstance(value, float) and math.isnan(value)) else float(value)}
        for stamp, value in zip(stamps, values)
    ]
    # The model sees every period: absent ones and nulls filled linearly in the period index.
    frame = pd.Series([p["value"] for p in points], index=stamps, dtype=float)
    full_index = pd.date_range(stamps[0], stamps[-1], freq=FREQ[bucket])
    filled = frame.reindex(full_index).interpolate(method="linear").to_numpy()
    fixture = {
        "name": name,
        "note": note,
        "bucket": bucket,
        "method": model,
        "season": season,
        "points": points,
        "filled": [float(v) for v in filled],
        "future": [epoch_ms(stamp) for stamp in pd.date_range(full_index[-1], periods=HORIZON + 1, freq=FREQ[bucket])[1:]],
    }
    if model == "linear":
        fixture["line"] = line_reference(filled)
    else:
        fixture["ets"] = ets_reference(filled, season)
    return fixture


FREQ = {"month": "MS", "quarter": "QS", "day": "D", "week": "W-MON", "hour": "h", "year": "YS"}


def fixtures() -> list[dict]:
    months36 = pd.date_range("2022-01-01", periods=36, freq="MS")
    month_of_year = np.arange(36) % 12
    seasonal_monthly = 1000 + 8 * np.arange(36) + 120 * np.sin(2 * np.pi * month_of_year / 12) + 25 * noise(36, 1)

    days = pd.date_range("2025-03-03", periods=56, freq="D")
    weekly = 500 + 1.5 * np.arange(56) + np.tile([40, 35, 30, 32, 20, -60, -97], 8) + 10 * noise(56, 2)

    quarters = pd.date_range("2021-01-01", periods=12, freq="QS")
    quarterly = 300 + 5 * np.arange(12) + np.tile([-30, 10, 45, -25], 3) + 6 * noise(12, 3)

    short_months = pd.date_range("2025-01-01", periods=14, freq="MS")
    short = 80 + 3.5 * np.arange(14) + 4 * noise(14, 4)

    very_short_weeks = pd.date_range("2025-09-01", periods=5, freq="W-MON")
    very_short = [12.0, 15.0, 14.0, 19.0, 21.0]

    flat = [250.0] * 30
    negative = -400 - 6 * np.arange(30) + 50 * np.cos(2 * np.pi * (np.arange(30) % 12) / 12) + 8 * noise(30, 5)

    # Missing periods: two months absent from the query's rows and one null value.
    gappy_all = pd.date_range("2023-01-01", periods=30, freq="MS")
    gappy_values = 200 + 2 * np.arange(30) + 30 * np.sin(2 * np.pi * (np.arange(30) % 12) / 12) + 5 * noise(30, 6)
    keep = [i for i in range(30) if i not in (7, 8)]
    gappy_stamps = pd.DatetimeIndex([gappy_all[i] for i in keep])
    gappy = [None if i == 17 else gappy_values[i] for i in keep]

    return [
        series("seasonal_monthly", "month", months36, seasonal_monthly, "holt_winters", 12, "36 months: trend and yearly season"),
        series("daily_weekly", "day", days, weekly, "holt_winters", 7, "8 weeks of days: weekly season"),
        series("quarterly", "quarter", quarters, quarterly, "holt_winters", 4, "12 quarters"),
        series("short_monthly", "month", short_months, short, "smoothed_trend", None, "14 months: under two seasons"),
        series("very_short_weekly", "week", very_short_weeks, very_short, "linear", None, "5 weeks: a least-squares line"),
        series("flat_monthly", "month", months36[:30], flat, "holt_winters", 12, "constant"),
        series("negative_monthly", "month", months36[:30], negative, "holt_winters", 12, "all values below zero"),
        series("missing_periods", "month", gappy_stamps, gappy, "holt_winters", 12, "Aug and Sep 2023 absent, Jun 2024 null"),
    ]


HELD_OUT = 12
SEASON = {"month": 12, "quarter": 4, "day": 7, "hour": 24}


def analyst_forecast(values: np.ndarray, season: int | None) -> dict:
    """statsmodels' Holt-Winters as an analyst uses it: the lowest AICc among the candidates."""
    seasonals = [None] if not season else (["add", "mul"] if values.min() > 0 else ["add"])
    best = None
    for seasonal in seasonals:
        for damped in (False, True):
            model = ExponentialSmoothing(
                values, trend="add", damped_trend=damped, seasonal=seasonal,
                seasonal_periods=season if seasonal else None, initialization_method="estimated",
            )
            result = model.fit()
            if best is None or result.aicc < best[0].aicc:
                best = (result, seasonal, damped)
    result, seasonal, damped = best
    return {
        "model": f"trend add{' damped' if damped else ''}, season {seasonal or 'none'}",
        "aicc": float(result.aicc) if np.isfinite(result.aicc) else None,  # infinite below k + 3 periods
        "mean": [float(v) for v in result.forecast(HELD_OUT)],
    }


def same_model(values: np.ndarray, season: int | None, seasonal: str | None, damped: bool) -> dict:
    """ETSModel with the family's model, fixed parameters and statsmodels' heuristic initial states."""
    error = "mul" if seasonal == "mul" else "add"
    level, trend, seasonal_states = _initialization_heuristic(values, trend="add", seasonal=seasonal, seasonal_periods=season)
    initial = {"initial_level": float(level), "initial_trend": float(trend)}
    if seasonal:
        initial["initial_seasonal"] = [float(s) for s in seasonal_states]
    params = {"smoothing_level": 0.3, "smoothing_trend": 0.05}
    if seasonal:
        params["smoothing_seasonal"] = 0.2
    if damped:
        params["damping_trend"] = 0.9
    model = ETSModel(
        pd.Series(values), error=error, trend="add", damped_trend=damped, seasonal=seasonal,
        seasonal_periods=season if seasonal else None, initialization_method="known", **initial,
    )
    with model.fix_params(params):
        result = model.fit(disp=False)
    start, end = len(values), len(values) + HELD_OUT - 1
    if error == "mul":
        prediction = result.get_prediction(start=start, end=end, method="simulated", simulate_repetitions=20000, rng=np.random.default_rng(7))
    else:
        prediction = result.get_prediction(start=start, end=end)
    frame = prediction.summary_frame(alpha=ALPHA)
    return {
        "spec": {"seasonality": {"add": "additive", "mul": "multiplicative", None: "none"}[seasonal], "damped": damped,
                 "error": "multiplicative" if error == "mul" else "additive"},
        "initial": initial,
        "params": params,
        "fitted": [float(v) for v in result.fittedvalues],
        "mean": [float(v) for v in frame["mean"]],
        "lower": [float(v) for v in frame["pi_lower"]],
        "upper": [float(v) for v in frame["pi_upper"]],
        "simulated": error == "mul",
    }


def family(name: str, bucket: str, start: str, generate, lengths: list[int], model: tuple[str | None, bool], note: str) -> dict:
    """Series of one family, each with its last HELD_OUT periods held out, and statsmodels' answers."""
    season = SEASON.get(bucket)
    entries = []
    for i, length in enumerate(lengths):
        values = generate(length + HELD_OUT, np.random.default_rng(1000 * len(name) + i))
        stamps = pd.date_range(start, periods=length + HELD_OUT, freq=FREQ[bucket])
        train = values[:length]
        usable = season if season and length >= 2 * season else None
        entries.append({
            "points": [{"t": epoch_ms(stamp), "value": float(v)} for stamp, v in zip(stamps[:length], train)],
            "filled": [float(v) for v in train],
            "future": [epoch_ms(stamp) for stamp in stamps[length:]],
            "held_out": [float(v) for v in values[length:]],
            "statsmodels": analyst_forecast(train, usable),
        })
        print(f"{name} {length}: {entries[-1]['statsmodels']['model']}")
    longest = np.asarray(entries[-1]["filled"])
    seasonal, damped = model
    return {
        "name": name,
        "note": note,
        "bucket": bucket,
        "season": season if seasonal else None,
        "same_model": same_model(longest, season if seasonal else None, seasonal, damped),
        "series": entries,
    }


def families() -> list[dict]:
    def daily_additive(n, rng):
        t = np.arange(n)
        week = np.array([30, 25, 20, 22, 10, -45, -62]) * rng.uniform(0.6, 1.4)
        walk = np.cumsum(rng.normal(0, 2, n))
        return 600 + rng.uniform(-1, 2) * t + walk + week[t % 7] + 12 * rng.normal(0, 1, n)

    def quarterly(n, rng):
        t = np.arange(n)
        pattern = np.array([-30, 10, 45, -25]) * rng.uniform(0.5, 1.5)
        return 400 + rng.uniform(0, 8) * t + pattern[t % 4] + 8 * rng.normal(0, 1, n) + np.cumsum(rng.normal(0, 3, n))

    def monthly_multiplicative(n, rng):
        t = np.arange(n)
        amplitude = rng.uniform(0.2, 0.45)
        season = 1 + amplitude * np.sin(2 * np.pi * (t % 12) / 12 + rng.uniform(0, 2 * np.pi))
        level = 200 * np.exp(rng.uniform(0.01, 0.03) * t + np.cumsum(rng.normal(0, 0.01, n)))
        return level * season * (1 + 0.04 * rng.normal(0, 1, n))

    def short_weekly(n, rng):
        t = np.arange(n)
        return 120 + rng.uniform(-2, 5) * t + 6 * rng.normal(0, 1, n) + np.cumsum(rng.normal(0, 1.5, n))

    def hourly(n, rng):
        t = np.arange(n)
        shape = np.maximum(0, np.sin(np.pi * ((t % 24) - 6) / 16)) * ((t % 24 >= 6) & (t % 24 < 22))
        base = 50 + rng.uniform(0, 0.02) * t + np.cumsum(rng.normal(0, 0.3, n))
        return base + rng.uniform(60, 140) * shape + 5 * rng.normal(0, 1, n) + 5

    return [
        family("daily_additive", "day", "2025-01-06", daily_additive, [28, 35, 42, 56, 70, 84, 120, 150, 180, 270, 365, 500],
               ("add", True), "days with a weekly additive season, a trend and a random walk"),
        family("quarterly", "quarter", "2015-01-01", quarterly, [8, 9, 10, 12, 14, 16, 20, 24, 28, 32, 36, 40],
               ("add", False), "quarters with an additive yearly season"),
        family("monthly_multiplicative", "month", "2016-01-01", monthly_multiplicative, [24, 27, 30, 36, 42, 48, 54, 60, 72, 84, 96, 120],
               ("mul", True), "months whose season grows with the level, multiplicative noise"),
        family("short_weekly", "week", "2025-01-06", short_weekly, [8, 9, 10, 11, 12, 13, 14, 16, 18, 19, 21, 23],
               (None, True), "8 to 23 weeks: no season, a trend"),
        family("hourly", "hour", "2025-03-03", hourly, [48, 60, 72, 96, 168, 240, 336, 504, 720, 1000, 1500, 1988],
               ("add", True), "hours with a daily cycle (a day of 24 hours)"),
    ]


def main() -> None:
    FIXTURES.mkdir(parents=True, exist_ok=True)
    (FIXTURES / "families").mkdir(exist_ok=True)
    made = datetime.now(timezone.utc).strftime("%Y-%m-%d")
    for fixture in fixtures():
        fixture["source"] = f"statsmodels {statsmodels.__version__}, {made}, scripts/make_forecast_fixtures.py"
        path = FIXTURES / f"{fixture['name']}.json"
        path.write_text(json.dumps(fixture, indent=1) + "\n")
        print(path.relative_to(Path.cwd()) if path.is_relative_to(Path.cwd()) else path)
    for fixture in families():
        fixture["source"] = f"statsmodels {statsmodels.__version__}, {made}, scripts/make_forecast_fixtures.py"
        path = FIXTURES / "families" / f"{fixture['name']}.json"
        path.write_text(json.dumps(fixture) + "\n")
        print(path.relative_to(Path.cwd()) if path.is_relative_to(Path.cwd()) else path)


if __name__ == "__main__":
    main()
