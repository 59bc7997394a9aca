import { useQuery } from "@tanstack/react-query";
import { Navigate, useParams } from "react-router";
import { ErrorMessage } from "../../ui/ErrorMessage";
import { questionQuery } from "./browseQueries";

/** A saved question opens in the screen it was made with. */
export default function QuestionPage() {
  const { questionId } = useParams();
  const question = useQuery(questionQuery(Number(questionId)));
  if (question.error) return <ErrorMessage error={question.error} />;
  if (!question.data) return null;
  const screen = { builder: "/question/new", analysis: "/analysis/new", sql: "/sql" }[question.data.kind];
  return <Navigate replace to={`${screen}?question=${questionId}`} />;
}
