import { describe, expect, it } from "vitest";
import { takeEvents } from "./serverEvents";

describe("takeEvents", () => {
  it("splits complete events and keeps the rest", () => {
    const { events, rest } = takeEvents('event: delta\ndata: {"text":"a"}\n\nevent: done\ndata: {}\n\nevent: del');
    expect(events).toEqual([{ event: "delta", data: '{"text":"a"}' }, { event: "done", data: "{}" }]);
    expect(rest).toBe("event: del");
  });

  it("joins data lines and ignores comments and CRLF", () => {
    const { events } = takeEvents(": keep-alive\r\ndata: one\r\ndata: two\r\n\r\n");
    expect(events).toEqual([{ event: "message", data: "one\ntwo" }]);
  });
});
