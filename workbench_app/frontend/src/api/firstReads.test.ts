import { describe, expect, it } from "vitest";
import { FirstReads } from "./firstReads";

const ORIGIN = "https://workbench.example";
const text = JSON.stringify({
  "/api/v1/session": { status: 200, body: { csrf_token: "t", user: { email: "a@example.org" } } },
  "/api/v1/dashboards/7": { status: 404, body: { error: { code: "not_found", message: "No", details: {} } } },
});
const get = (path: string, init?: RequestInit) => new Request(`${ORIGIN}${path}`, init);

describe("the answers a page arrived with", () => {
  it("answers the first GET of each path once, with its status and body", async () => {
    const reads = new FirstReads(text, ORIGIN);
    const session = reads.take(get("/api/v1/session"), 50)!;
    expect(session.status).toBe(200);
    expect(await session.json()).toEqual({ csrf_token: "t", user: { email: "a@example.org" } });
    expect(reads.take(get("/api/v1/session"), 60)).toBeNull(); // the next read asks the network
    expect(reads.take(get("/api/v1/dashboards/7"), 60)!.status).toBe(404);
  });

  it("leaves every other request to the network", () => {
    const reads = new FirstReads(text, ORIGIN);
    expect(reads.take(get("/api/v1/session", { method: "POST", body: "{}" }), 10)).toBeNull();
    expect(reads.take(get("/api/v1/session?x=1"), 10)).toBeNull();
    expect(reads.take(new Request("https://elsewhere.example/api/v1/session"), 10)).toBeNull();
    expect(reads.take(get("/api/v1/me"), 10)).toBeNull();
  });

  it("drops its answers once they may be stale, and survives a broken or missing element", () => {
    const reads = new FirstReads(text, ORIGIN);
    expect(reads.take(get("/api/v1/session"), 60_000)).toBeNull();
    expect(reads.take(get("/api/v1/dashboards/7"), 10)).toBeNull();
    expect(new FirstReads("{not json", ORIGIN).take(get("/api/v1/session"), 10)).toBeNull();
    expect(new FirstReads(undefined, ORIGIN).take(get("/api/v1/session"), 10)).toBeNull();
  });
});
