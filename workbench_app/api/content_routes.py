"""Folders, questions, models and metrics."""
from __future__ import annotations

from flask import Blueprint, jsonify, request

from workbench_app import input_checks as check
from workbench_app.api.authentication import identity, json_body, origin, services
from workbench_app.content import folders, models_metrics, questions
from workbench_app.home import site_reports
from workbench_app.content.shapes import (QuestionsQuery, FolderAccess, FolderName, MetricQuery, ModelChange, NewFolder, NewMetric,
                                          NewModel, NewQuestion, QuestionChange, QuestionDownload, QuestionRun)
from workbench_app.request_shapes import validated, validated_query
from workbench_app.statements import csv_export
from workbench_app.statements.query_runner import run_statement

blueprint = Blueprint("content", __name__)


# --- folders ---------------------------------------------------------------------------------


@blueprint.get("/folders")
def list_folders():
    with services().transaction() as conn:
        site_reports.keep_up(services().settings, conn)
        return jsonify({"folders": folders.list_folders(conn, identity())})


@blueprint.post("/folders")
def create_folder():
    folder = validated(NewFolder, json_body())
    with services().transaction() as conn:
        return jsonify(folders.create_folder(conn, identity(), folder.name, folder.parent_id)), 201


@blueprint.get("/folders/<folder_id>")
def get_folder(folder_id):
    with services().transaction() as conn:
        return jsonify(folders.get_folder(conn, identity(), check.path_id(folder_id, "Folder")))


@blueprint.patch("/folders/<folder_id>")
def rename_folder(folder_id):
    name = validated(FolderName, json_body()).name
    with services().transaction() as conn:
        return jsonify(folders.rename_folder(conn, identity(), check.path_id(folder_id, "Folder"), name))


@blueprint.delete("/folders/<folder_id>")
def delete_folder(folder_id):
    with services().transaction() as conn:
        folders.delete_folder(conn, identity(), check.path_id(folder_id, "Folder"))
    return "", 204


@blueprint.put("/folders/<folder_id>/access/<group_id>")
def share_folder(folder_id, group_id):
    """Give a group view or edit access to a shared folder (`{"level": null}` removes it)."""
    level = validated(FolderAccess, json_body()).level
    with services().transaction() as conn:
        return jsonify(folders.share_folder(conn, identity(), check.path_id(folder_id, "Folder"),
                                            check.path_id(group_id, "Group"), level))


# --- questions -------------------------------------------------------------------------------


@blueprint.get("/questions")
def list_questions():
    query = validated_query(QuestionsQuery, request.args)
    with services().transaction() as conn:
        return jsonify({"questions": questions.list_questions(conn, identity(), query.folder_id, query.search or None)})


@blueprint.post("/questions")
def create_question():
    fields = validated(NewQuestion, json_body()).given()
    with services().transaction() as conn:
        return jsonify(questions.create_question(conn, identity(), fields)), 201


@blueprint.get("/questions/<question_id>")
def get_question(question_id):
    with services().transaction() as conn:
        return jsonify(questions.get_question(conn, identity(), check.path_id(question_id, "Question")))


@blueprint.patch("/questions/<question_id>")
def update_question(question_id):
    fields = validated(QuestionChange, json_body()).given()
    with services().transaction() as conn:
        return jsonify(questions.update_question(conn, identity(), check.path_id(question_id, "Question"), fields))


@blueprint.delete("/questions/<question_id>")
def delete_question(question_id):
    with services().transaction() as conn:
        questions.delete_question(conn, identity(), check.path_id(question_id, "Question"))
    return "", 204


@blueprint.post("/questions/<question_id>/run")
def run_question(question_id):
    """Run a saved question under the token owner's rights; body `{}` or `{"variables": {...}}`."""
    run = validated(QuestionRun, json_body(optional=True))
    return jsonify(questions.run_question(services(), identity(), check.path_id(question_id, "Question"),
                                          origin=origin(), variables=run.variables, row_limit=run.row_limit))


@blueprint.get("/questions/<question_id>/columns")
def question_columns(question_id):
    """The columns of a saved question's result (a run that keeps no row, under the caller's rights)."""
    return jsonify(questions.question_columns(services(), identity(), check.path_id(question_id, "Question"),
                                              origin=origin()))


@blueprint.post("/questions/<question_id>/csv")
def download_question(question_id):
    """A saved question's result as a CSV file, under the caller's own permissions."""
    run = validated(QuestionDownload, json_body())
    workbench = services()
    bound = workbench.settings.workbench_export_row_limit
    # The bound is a setting, so the model cannot state it: the same refusal as the model's.
    row_limit = check.integer({"row_limit": run.row_limit}, "row_limit", minimum=1, maximum=bound, nullable=True)
    number = check.path_id(question_id, "Question")
    sql, types, values = questions.question_statement(workbench, identity(), number, run.variables)
    result = run_statement(workbench, identity(), sql, origin=origin(), variables=values, variable_types=types,
                           row_limit=row_limit, row_ceiling=bound, question_id=number)
    return csv_export.response(result, f"question_{number}")


# --- models and metrics ----------------------------------------------------------------------


def _model_sql(sql: str | None) -> str | None:
    return sql.strip().rstrip(";").strip() if sql else sql


@blueprint.get("/models")
def list_models():
    with services().transaction() as conn:
        return jsonify({"models": models_metrics.list_models(conn, identity())})


@blueprint.post("/models")
def create_model():
    model = validated(NewModel, json_body())
    with services().transaction() as conn:
        return jsonify(models_metrics.create_model(
            conn, identity(), name=model.name, sql=_model_sql(model.sql), description=model.description,
            folder_id=model.folder_id)), 201


@blueprint.get("/models/<model_id>")
def get_model(model_id):
    with services().transaction() as conn:
        return jsonify(models_metrics.get_model(conn, identity(), check.path_id(model_id, "Model")))


@blueprint.patch("/models/<model_id>")
def update_model(model_id):
    change = validated(ModelChange, json_body())
    fields = {"name": change.name, "sql": _model_sql(change.sql), "description": change.description}
    with services().transaction() as conn:
        return jsonify(models_metrics.update_model(conn, identity(), check.path_id(model_id, "Model"), fields))


@blueprint.delete("/models/<model_id>")
def delete_model(model_id):
    with services().transaction() as conn:
        models_metrics.delete_model(conn, identity(), check.path_id(model_id, "Model"))
    return "", 204


@blueprint.get("/metrics")
def list_metrics():
    with services().transaction() as conn:
        return jsonify({"metrics": models_metrics.list_metrics(conn, identity())})


@blueprint.post("/metrics")
def create_metric():
    metric = validated(NewMetric, json_body())
    with services().transaction() as conn:
        return jsonify(models_metrics.create_metric(
            conn, identity(), model_id=metric.model_id, name=metric.name, aggregation=metric.aggregation,
            column=metric.column, dimensions=list(metric.dimensions), description=metric.description)), 201


@blueprint.get("/metrics/<metric_id>")
def get_metric(metric_id):
    with services().transaction() as conn:
        return jsonify(models_metrics.get_metric(conn, identity(), check.path_id(metric_id, "Metric")))


@blueprint.delete("/metrics/<metric_id>")
def delete_metric(metric_id):
    with services().transaction() as conn:
        models_metrics.delete_metric(conn, identity(), check.path_id(metric_id, "Metric"))
    return "", 204


@blueprint.post("/metrics/<metric_id>/query")
def query_metric(metric_id):
    query = validated(MetricQuery, json_body(optional=True))
    return jsonify(models_metrics.query_metric(services(), identity(), check.path_id(metric_id, "Metric"),
                                               query.dimensions, origin=origin(), row_limit=query.row_limit))
