// The /api/v1 answers the page arrived with (the server puts them in it: workbench_app/page_shell/first_reads.py):
// the session and the first reads of the screen being opened. Each is taken once, by the first GET
// of its path in the page's first seconds, instead of asking the network; every other read goes
// out as usual, and the answers pass the client's middleware like any other.

interface FirstRead {
  status: number;
  body: unknown;
}

/** After this long the page's answers may be stale: a read asks the network. */
const FRESH_MS = 10_000;

export class FirstReads {
  private readonly answers: Map<string, FirstRead>;

  /** `text`: the JSON of the page's element, {"/api/v1/...": {"status", "body"}}. */
  constructor(text: string | null | undefined, private readonly origin: string) {
    let parsed: Record<string, FirstRead> = {};
    try {
      parsed = text ? (JSON.parse(text) as Record<string, FirstRead>) : {};
    } catch {
      // a page without valid answers reads everything from the network
    }
    this.answers = new Map(Object.entries(parsed));
  }

  /** The page's answer to `request`, once, or null when it must go to the network. */
  take(request: Request, pageAgeMs: number): Response | null {
    if (request.method !== "GET" || this.answers.size === 0) return null;
    if (pageAgeMs > FRESH_MS) {
      this.answers.clear();
      return null;
    }
    const url = new URL(request.url);
    const answer = url.origin === this.origin && !url.search ? this.answers.get(url.pathname) : undefined;
    if (!answer) return null;
    this.answers.delete(url.pathname);
    return new Response(JSON.stringify(answer.body), { status: answer.status, headers: { "Content-Type": "application/json" } });
  }
}

const page = typeof document === "undefined"
  ? new FirstReads(null, "")
  : new FirstReads(document.getElementById("first-reads")?.textContent, window.location.origin);

/** The page's answer to `request`, once, in its first seconds; otherwise null. */
export function takeFirstRead(request: Request): Response | null {
  return page.take(request, performance.now());
}
