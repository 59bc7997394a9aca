// Running a statement from a screen: one at a time, cancellable (on the server too: see
// api/statementRun.ts), the last answer or refusal kept.
import { useCallback, useRef, useState } from "react";
import { ApiError } from "../../api/client";
import { downloadSqlCsv, runSql } from "../../api/statementRun";
import type { Result } from "../results/types";

export interface RunRequest {
  sql: string;
  variables?: Record<string, unknown>;
  variable_types?: Record<string, string>;
}

export function useStatementRun() {
  const [result, setResult] = useState<Result | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [running, setRunning] = useState(false);
  const [cancelled, setCancelled] = useState(false);
  const controller = useRef<AbortController | null>(null);
  const last = useRef<RunRequest | null>(null);

  const run = useCallback(async (request: RunRequest) => {
    controller.current?.abort();
    const abort = new AbortController();
    controller.current = abort;
    last.current = request;
    setRunning(true);
    setCancelled(false);
    setError(null);
    try {
      const answer = await runSql(request as Parameters<typeof runSql>[0], abort.signal);
      if (!abort.signal.aborted) setResult(answer);
    } catch (caught) {
      if (abort.signal.aborted) return;
      setError(caught);
    } finally {
      if (controller.current === abort) {
        controller.current = null;
        setRunning(false);
      }
    }
  }, []);

  const cancel = useCallback(() => {
    controller.current?.abort();
    controller.current = null;
    setRunning(false);
    setCancelled(true);
  }, []);

  const retry = useCallback(() => {
    if (last.current) void run(last.current);
  }, [run]);

  // The CSV of the statement whose answer is shown, run again by the server without the screen's row cap.
  const fetchCsv = useCallback(() => downloadSqlCsv(last.current as Parameters<typeof downloadSqlCsv>[0]), []);

  const refusal = error instanceof ApiError ? error : null;
  return { result, error, refusal, running, cancelled, run, cancel, retry, fetchCsv };
}
