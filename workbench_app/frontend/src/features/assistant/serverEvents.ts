// Server-sent events read from a fetch() body: EventSource can only GET, and sending a message is
// a POST with the session's CSRF token. Pure parsing, tested by serverEvents.test.ts.

export interface ServerEvent {
  event: string;
  data: string;
}

/** Splits a growing text into complete events; returns them and the unfinished rest. */
export function takeEvents(buffer: string): { events: ServerEvent[]; rest: string } {
  const normalized = buffer.replace(/\r\n?/g, "\n");
  const blocks = normalized.split("\n\n");
  const rest = blocks.pop() ?? "";
  const events: ServerEvent[] = [];
  for (const block of blocks) {
    let event = "message";
    const data: string[] = [];
    for (const line of block.split("\n")) {
      if (line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon === -1 ? line : line.slice(0, colon);
      const value = colon === -1 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (field === "event") event = value;
      else if (field === "data") data.push(value);
    }
    if (data.length > 0) events.push({ event, data: data.join("\n") });
  }
  return { events, rest };
}

/** Reads a streamed response body, calling `onEvent` for each event as it arrives. */
export async function readEvents(body: ReadableStream<Uint8Array>, onEvent: (event: ServerEvent) => void): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    const taken = takeEvents(buffer + decoder.decode(value, { stream: true }));
    buffer = taken.rest;
    taken.events.forEach(onEvent);
  }
  takeEvents(buffer + "\n\n").events.forEach(onEvent);
}
