"""Saved content's part of the OpenAPI document (`workbench_app/api/openapi.py` merges it in): folders,
questions, segments, models, metrics, dashboards; the answer and request components come from the models of
`shapes.py`."""
from __future__ import annotations

from typing import Any

from workbench_app.openapi_vocabulary import model_body, ref as _ref
from workbench_app.content.shapes import (CardRun, Dashboard, DashboardCacheCounts, DashboardChange, DashboardList,
                                          FilterValues, Folder, FolderAccess, FolderList, FolderName, Metric, MetricList,
                                          MetricQuery, Model, ModelChange, ModelList, NewDashboard, NewFolder, NewMetric,
                                          NewModel, NewQuestion, Question, QuestionChange, QuestionDownload, QuestionList,
                                          QuestionRun, QuestionsQuery, ResultColumns, ValuesQuery, NewSegment, Segment,
                                          SegmentChange, SegmentConditions, SegmentList, SegmentsQuery)
from workbench_app.request_shapes import query_parameters
from workbench_app.statements.openapi_paths import csv_download as _csv

ANSWERS = (Dashboard, DashboardList, Model, ModelList, Metric, MetricList, Question, QuestionList, Folder, FolderList,
           ResultColumns, FilterValues, DashboardCacheCounts, Segment, SegmentList)
REQUESTS = (NewDashboard, DashboardChange, NewModel, ModelChange, NewMetric, NewQuestion, QuestionChange, NewFolder,
            FolderName, FolderAccess, QuestionRun, QuestionDownload, MetricQuery, CardRun, NewSegment, SegmentChange,
            SegmentConditions)



def paths(op, also) -> dict[str, Any]:
    """The paths, built with the document's own helpers (`_operation`, `_also`)."""
    return {
        "/folders": {"get": op("List folders", "folders", result=_ref("FolderList")),
                     "post": op("Create a folder", "folders", ok=201, result=_ref("Folder"),
                                body=model_body(NewFolder))},
        "/folders/{folder_id}": {"get": op("Get a folder", "folders", params=("folder_id",), result=_ref("Folder")),
                                 "patch": op("Rename a folder", "folders", params=("folder_id",), result=_ref("Folder"),
                                             body=model_body(FolderName)),
                                 "delete": op("Delete a folder", "folders", ok=204, params=("folder_id",))},
        "/folders/{folder_id}/access/{group_id}": {"put": op("Share a folder", "folders",
                                                             params=("folder_id", "group_id"), result=_ref("Folder"),
                                                             body=model_body(FolderAccess))},
        "/questions": {"get": op("List questions", "questions", result=_ref("QuestionList"), query=query_parameters(QuestionsQuery)),
                       "post": op("Create a question", "questions", ok=201, result=_ref("Question"),
                                  body=model_body(NewQuestion))},
        "/questions/{question_id}": {"get": op("Get a question", "questions", params=("question_id",),
                                               result=_ref("Question")),
                                     "patch": op("Update a question", "questions", params=("question_id",),
                                                 result=_ref("Question"),
                                                 body=model_body(QuestionChange)),
                                     "delete": op("Delete a question", "questions", ok=204, params=("question_id",))},
        "/questions/{question_id}/run": {"post": op("Run a question", "questions", params=("question_id",),
                                                    result=_ref("Result"),
                                                    body=model_body(QuestionRun, required=False))},
        "/questions/{question_id}/columns": {"get": op(
            "List the columns of a question's result", "questions", params=("question_id",),
            result=_ref("ResultColumns"))},
        "/questions/{question_id}/csv": {"post": _csv(op(
            "Download a question as CSV", "questions", params=("question_id",),
            body=model_body(QuestionDownload)))},
        "/segments": {"get": op("List segments", "segments", result=_ref("SegmentList"), query=query_parameters(SegmentsQuery)),
                      "post": op("Create a segment", "segments", ok=201, result=_ref("Segment"),
                                 body=model_body(NewSegment))},
        "/segments/{segment_id}": {"get": op("Get a segment", "segments", params=("segment_id",),
                                             result=_ref("Segment")),
                                   "patch": op("Update a segment", "segments", params=("segment_id",),
                                               result=_ref("Segment"), body=model_body(SegmentChange)),
                                   "delete": op("Delete a segment", "segments", ok=204, params=("segment_id",))},
        "/models": {"get": op("List models", "models", result=_ref("ModelList")),
                    "post": op("Create a model", "models", ok=201, result=_ref("Model"), body=model_body(NewModel))},
        "/models/{model_id}": {"get": op("Get a model", "models", params=("model_id",), result=_ref("Model")),
                               "patch": op("Update a model", "models", params=("model_id",), result=_ref("Model"),
                                           body=model_body(ModelChange)),
                               "delete": op("Delete a model", "models", ok=204, params=("model_id",))},
        "/metrics": {"get": op("List metrics", "models", result=_ref("MetricList")),
                     "post": op("Create a metric", "models", ok=201, result=_ref("Metric"), body=model_body(NewMetric))},
        "/metrics/{metric_id}": {"get": op("Get a metric", "models", params=("metric_id",), result=_ref("Metric")),
                                 "delete": op("Delete a metric", "models", ok=204, params=("metric_id",))},
        "/metrics/{metric_id}/query": {"post": op("Query a metric", "models", params=("metric_id",),
                                                  result=_ref("Result"),
                                                  body=model_body(MetricQuery, required=False))},
        "/dashboards": {"get": op("List dashboards", "dashboards", result=_ref("DashboardList")),
                        "post": op("Create a dashboard", "dashboards", ok=201, body=model_body(NewDashboard),
                                   result=_ref("Dashboard"))},
        "/dashboard-cache": {"get": also(op("Dashboard cache counts (administrators)", "dashboards",
                                              result=_ref("DashboardCacheCounts")),
                                           ("403", "forbidden: administrators only"))},
        "/dashboards/{dashboard_id}": {"get": op("Get a dashboard", "dashboards", params=("dashboard_id",),
                                                 result=_ref("Dashboard")),
                                       "put": op("Update a dashboard", "dashboards", params=("dashboard_id",),
                                                 body=model_body(DashboardChange), result=_ref("Dashboard")),
                                       "delete": op("Delete a dashboard", "dashboards", ok=204,
                                                    params=("dashboard_id",))},
        "/dashboards/{dashboard_id}/cards/{card_id}/run": {"post": op(
            "Run a dashboard card", "dashboards", params=("dashboard_id", "card_id"), result=_ref("Result"),
            body=model_body(CardRun, required=False))},
        "/dashboards/{dashboard_id}/filters/{filter_id}/values": {"get": op(
            "A one-of filter's values, read under the caller's rights (at most 200)", "dashboards",
            params=("dashboard_id", "filter_id"), result=_ref("FilterValues"),
            query=query_parameters(ValuesQuery))},
    }
