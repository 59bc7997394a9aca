// The assistant's shapes, from the generated OpenAPI schema.
import type { components } from "../../api/schema";

type Schemas = components["schemas"];
export type Conversation = Schemas["Conversation"];
export type AssistantMessage = Schemas["AssistantMessage"];
export type Artifact = Schemas["AssistantArtifact"];
export type AssistantStatus = Schemas["AssistantStatus"];
export type AssistantProvider = Schemas["AssistantProvider"];

/** A tool run as the answer and its `tool` event report it: what it ran and, while the answer is live, its result. */
export type ToolRun = Schemas["AssistantToolRun"];
/** A tool call the model got wrong (told to it), or, as the `error` event, a provider's failure. */
export type Notice = Schemas["AssistantNotice"];
/** The rows a tool run showed the asker (at most 50). */
export type ShownResult = NonNullable<ToolRun["result"]>;

/** What each server-sent event of an answer carries (`message`, the person's own, is not read). */
export interface AnswerEvents {
  delta: { text: string };
  tool: ToolRun;
  notice: Notice;
  error: Notice;
  done: { message: AssistantMessage };
}
