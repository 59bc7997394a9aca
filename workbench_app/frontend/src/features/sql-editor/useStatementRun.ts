// Running a statement from a screen: one at a time, cancellable, the last answer or refusal kept.
import { useCallback, useRef, useState } from "react";
import { api, ApiError, data } from "../../api/client";
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
      const answer = await data(api.POST("/sql", { body: request as never, signal: abort.signal }));
      if (!abort.signal.aborted) setResult(answer as Result);
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

  const refusal = error instanceof ApiError ? error : null;
  return { result, error, refusal, running, cancelled, run, cancel, retry };
}
