// A statement run the person may stop. Each run gets an id; when its AbortSignal fires (the Cancel
// button, a newer run, the screen closing) the browser stops waiting AND asks the server to stop the
// statement (POST /sql/cancel), whichever worker runs it: aborting the fetch alone would leave the
// statement running on the server until its timeout.
import { api, data } from "./client";
import type { components, paths } from "./schema";

type Result = components["schemas"]["Result"];
type Body<P extends "/sql" | "/builder/run" | "/analyses/run"> =
  Omit<paths[P]["post"]["requestBody"]["content"]["application/json"], "statement_id">;

/** 32 hex characters from the browser's random source (crypto.randomUUID needs a secure context). */
export function newStatementId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

async function cancellable(signal: AbortSignal | undefined, run: (statementId: string) => Promise<Result>) {
  const statementId = newStatementId();
  const cancel = () => {
    // Its answer does not matter: the run ends with query_cancelled, or has ended already.
    void api.POST("/sql/cancel", { body: { statement_id: statementId } }).catch(() => undefined);
  };
  signal?.addEventListener("abort", cancel, { once: true });
  try {
    return await run(statementId);
  } finally {
    signal?.removeEventListener("abort", cancel);
  }
}

export function runSql(body: Body<"/sql">, signal?: AbortSignal): Promise<Result> {
  return cancellable(signal, async (statement_id) =>
    data(api.POST("/sql", { body: { ...body, statement_id }, signal })));
}

export function runBuilder(body: Body<"/builder/run">, signal?: AbortSignal): Promise<Result> {
  return cancellable(signal, async (statement_id) =>
    data(api.POST("/builder/run", { body: { ...body, statement_id }, signal })));
}

export function runAnalysis(body: Body<"/analyses/run">, signal?: AbortSignal): Promise<Result> {
  return cancellable(signal, async (statement_id) =>
    data(api.POST("/analyses/run", { body: { ...body, statement_id }, signal })));
}

/** An analysis's whole result as CSV: compiled to SQL (values as literals), then as a statement's. */
export async function downloadAnalysisCsv(analysis: components["schemas"]["AnalysisDefinition"]): Promise<Blob> {
  const compiled = await data(api.POST("/analyses/sql", { body: { analysis } }));
  return downloadSqlCsv({ sql: compiled.sql });
}

/** The whole result of a statement as CSV (the server's export bound, the person's rights). */
export async function downloadSqlCsv(body: Body<"/sql">): Promise<Blob> {
  return data(api.POST("/sql/csv", { body, parseAs: "blob" })) as Promise<Blob>;
}

/** A builder definition's whole result as CSV: compiled to SQL (values as literals), then as above. */
export async function downloadBuilderCsv(builder: components["schemas"]["BuilderDefinition"]): Promise<Blob> {
  const compiled = await data(api.POST("/builder/sql", { body: { builder } }));
  return downloadSqlCsv({ sql: compiled.sql });
}
